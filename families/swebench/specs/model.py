"""The record that describes how one repository at one version is installed and tested."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any

#: The eval-script generations a spec can belong to. ``swebench`` is the form the official
#: harness generated up to 4.1.0 (and that the published v5 rows carry); ``swe-gym`` is the
#: older form of the SWE-Gym fork (``set -xo pipefail``, plain ``git diff``, no markers).
DIALECTS = ("swebench", "swe-gym")


@dataclass(frozen=True)
class RepoSpec:
    """Install and test facts for one repository at one version.

    Only ``test_cmd``, ``eval_commands``, ``install`` (Python) and ``build`` (other languages)
    reach the eval script; ``pre_install``, ``python``, ``docker_specs`` and ``apt_packages``
    describe the image and are kept so that locally built images can follow the same recipe.
    """

    language: str
    #: One command (Python repos: the test directives are appended) or a list run in order.
    test_cmd: str | tuple[str, ...]
    #: Python: re-run in the eval script before the tests; other languages: image build only.
    install: tuple[str, ...] = ()
    #: Other languages: run after the test patch is applied, before the start marker.
    build: tuple[str, ...] = ()
    #: Image build only: commands run in the checkout before ``install``.
    pre_install: tuple[str, ...] = ()
    #: Python: run right after ``cd /testbed``, before anything else (locale, env vars).
    eval_commands: tuple[str, ...] = ()
    #: Python version of the conda ``testbed`` environment, where the source names one.
    python: str | None = None
    docker_specs: Mapping[str, Any] = field(default_factory=dict, hash=False)
    apt_packages: tuple[str, ...] = ()
    dialect: str = "swebench"
    #: Where the facts were read, so a reader can check them.
    origin: str = ""

    def __post_init__(self) -> None:
        if self.dialect not in DIALECTS:
            raise ValueError(f"unknown eval-script dialect {self.dialect!r}; expected one of {DIALECTS}")
        if isinstance(self.install, str):
            object.__setattr__(self, "install", (self.install,))

    @property
    def test_commands(self) -> tuple[str, ...]:
        """The test command(s) as a tuple, whatever shape the table used."""
        return (self.test_cmd,) if isinstance(self.test_cmd, str) else tuple(self.test_cmd)
