"""Benchmark settings: the validated model every layer reads (loaded by :mod:`pytest_swe.runner.config`)."""

from __future__ import annotations

import difflib
import re
from typing import Any
from typing import Literal

from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field
from pydantic import field_validator
from pydantic import model_validator

LOCAL_DATASET_SUFFIXES = (".jsonl", ".json", ".parquet")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DatasetSettings(_Strict):
    source: str
    split: str = "test"
    name: str | None = None
    """Hugging Face configuration name."""
    revision: str | None = None
    instances: list[str] | None = None
    """Only these instance ids (None: every row)."""
    optional: bool = False
    """A local file that may be absent on this machine (an internal dataset): absent, the benchmark is
    one skipped item. Otherwise a local path that does not exist is a collection error."""


class AgentSettings(BaseModel):
    """The agent's name plus any options the agent reads (model, limits, command, ...)."""

    model_config = ConfigDict(extra="allow")
    name: str
    predictions: str | None = None


class ProviderSettings(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    pull: Literal["missing", "never", "always"] = "missing"


class Timeouts(_Strict):
    agent: float = Field(default=3600, gt=0)
    eval: float = Field(default=1800, gt=0)
    sandbox: float = Field(default=300, gt=0)
    """Starting a sandbox (including an image pull)."""
    command: float = Field(default=180, gt=0)
    """One command an agent runs in its sandbox."""
    item: float | None = Field(default=None, gt=0)
    """The whole item: sandbox creation, agent, eval and teardown (None: no deadline beyond the
    phases' own). Past it the item is a masked ``item_timeout`` error."""


_MEMORY = re.compile(r"^\d+(\.\d+)?[bkmgBKMG]?$")


class Limits(_Strict):
    memory: str | None = "4g"
    cpus: float | None = Field(default=2.0, gt=0)
    pids: int | None = Field(default=4096, gt=0)
    output_bytes: int = Field(default=4_000_000, gt=1024)
    """Command output kept per exec (head and tail); the middle is dropped."""

    @field_validator("memory")
    @classmethod
    def _memory(cls, value: str | None) -> str | None:
        if value is not None and not _MEMORY.match(value):
            raise ValueError("must look like 512m or 4g")
        return value


class NetworkSettings(_Strict):
    agent: bool = False
    eval: bool = False


class PolicyOptions(_Strict):
    """Knobs of the grading policy (``eval.policy_options``); see ``docs/security.md``."""

    max_patch_bytes: int | None = Field(default=10_000_000, gt=0)
    """Larger patches are not applied under ``strict`` (None: no limit)."""
    protected_paths: list[str] = Field(default_factory=list)
    """Glob patterns (repository-relative) treated like test files."""
    allowed_paths: list[str] = Field(default_factory=list)
    """Glob patterns no path rule applies to, for datasets whose fixes touch such paths."""


class EvalSettings(BaseModel):
    model_config = ConfigDict(extra="allow")
    run_empty_patch: bool = True
    """Run the tests for an empty patch too (it is never resolved; the log shows why)."""
    policy: Literal["strict", "official"] = "strict"
    """``strict``: tampering makes an item unresolved; ``official``: the official harness's behaviour, findings flagged only."""
    policy_options: PolicyOptions = Field(default_factory=PolicyOptions)

    @model_validator(mode="after")
    def _no_misspelt_policy_keys(self) -> EvalSettings:
        for key in self.model_extra or {}:
            close = difflib.get_close_matches(key, ["policy", "policy_options"], n=1, cutoff=0.75)
            if close:
                raise ValueError(f"unknown key {key!r} (did you mean {close[0]!r}?)")
        return self


class BuildSettings(_Strict):
    """How to build a local dataset's images (``pytest-swe images build``)."""

    repo: str
    """Directory of each row's repository; ``{instance_id}`` is replaced."""
    base: str | None = None
    files: dict[str, str] = Field(default_factory=dict)
    """Extra files or directories: path in the image -> host path (``{instance_id}`` replaced)."""
    dockerfile: list[str] = Field(default_factory=list)
    """Extra Dockerfile lines appended after the repository is copied in."""


_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_MARKER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class BenchmarkSettings(_Strict):
    name: str
    family: str
    dataset: DatasetSettings
    markers: list[str] = Field(default_factory=list)
    agent: AgentSettings
    provider: ProviderSettings
    timeouts: Timeouts = Field(default_factory=Timeouts)
    limits: Limits = Field(default_factory=Limits)
    network: NetworkSettings = Field(default_factory=NetworkSettings)
    images: dict[str, Any] = Field(default_factory=dict)
    eval: EvalSettings = Field(default_factory=EvalSettings)
    build: BuildSettings | None = None
    family_options: dict[str, Any] = Field(default_factory=dict)
    file: str = ""
    """The benchmark file these settings came from."""

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not _NAME.match(value):
            raise ValueError("must start with a letter or digit and hold only letters, digits, '_', '.', '-'")
        return value

    @field_validator("markers")
    @classmethod
    def _markers(cls, value: list[str]) -> list[str]:
        for marker in value:
            if not _MARKER.match(marker):
                raise ValueError(f"marker {marker!r} is not an identifier")
        return value

    @property
    def dataset_is_local(self) -> bool:
        return is_local_source(self.dataset.source)


def is_local_source(source: str) -> bool:
    """True for a local file path, False for a Hugging Face dataset id."""
    return source.endswith(LOCAL_DATASET_SUFFIXES) or source.startswith(("/", "./", "../", "~"))
