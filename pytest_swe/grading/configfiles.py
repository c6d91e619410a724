"""The parts of configuration files that steer pytest, compared by meaning, not by text.

``setup.cfg`` and ``pyproject.toml`` hold the settings of many tools; only their pytest
sections and plugin entry points can change how the graded tests run, so an edit elsewhere
(a ``[flake8]`` section, a dependency) is left alone. Files that pytest or tox read whole
(``pytest.ini``, ``tox.ini``, ...) are compared whole. Parsing uses the standard library's
``configparser`` and ``tomllib`` (``tomli`` before Python 3.11), the readers pytest itself uses.
"""

from __future__ import annotations

import configparser
import posixpath
import sys
from collections.abc import Mapping

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    # tomli is installed on Python 3.10 only: a type check for 3.10 run on a newer Python lacks it.
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

WHOLE_FILES = frozenset({"pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "tox.ini"})
SECTIONED_FILES = frozenset({"setup.cfg", "pyproject.toml"})
_PLUGIN_GROUP = "pytest11"


def _plugin_group(name: str) -> bool:
    return name.replace("_", "").replace("-", "").lower() == _PLUGIN_GROUP


View = dict[str, object] | tuple[str, str] | None
"""What of a configuration file can steer pytest: its pytest sections and plugin entry points, or
``(kind, text)`` for a file compared by its text, or None for an absent file."""


def _ini_view(text: str) -> dict[str, object]:
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    parser.read_string(text)
    view: dict[str, object] = {}
    for section in parser.sections():
        name = section.strip().lower()
        if name in ("pytest", "tool:pytest"):
            view[name] = dict(parser.items(section))
        elif name in ("options.entry_points", "entry_points"):
            view[name] = {k: v for k, v in parser.items(section) if _plugin_group(k)}
    return view


def _table(data: Mapping[str, object], key: str) -> dict[str, object]:
    """The TOML table under ``key`` (empty when absent or not a table)."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _toml_view(text: str) -> dict[str, object]:
    data: dict[str, object] = tomllib.loads(text)
    tool = _table(data, "tool")
    entry_points = _table(_table(data, "project"), "entry-points")
    plugins = _table(_table(tool, "poetry"), "plugins")
    return {
        "tool.pytest": tool.get("pytest"),
        "entry-points": {k: v for k, v in entry_points.items() if _plugin_group(k)},
        "poetry.plugins": {k: v for k, v in plugins.items() if _plugin_group(k)},
    }


def steering_view(path: str, text: str | None) -> View:
    """What of a configuration file can steer pytest; the whole text for files pytest reads whole.

    A file that does not parse is compared by its text: a reader more lenient than ours could
    still find a section in it.
    """
    if text is None:
        return None
    name = posixpath.basename(path)
    try:
        if name == "setup.cfg":
            return _ini_view(text)
        if name == "pyproject.toml":
            return _toml_view(text)
    except (configparser.Error, tomllib.TOMLDecodeError, ValueError):
        return ("unparsed", text)
    return ("text", text)


def steers_pytest(path: str) -> bool:
    return posixpath.basename(path) in WHOLE_FILES | SECTIONED_FILES


def steering_changed(path: str, before: str | None, after: str | None) -> bool:
    """True when the change from ``before`` to ``after`` can change how pytest runs."""
    return steering_view(path, before) != steering_view(path, after)
