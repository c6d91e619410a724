"""Benchmark configuration: OmegaConf layers resolved into validated pydantic settings.

Layers, lowest first: built-in defaults < base files named by ``extends`` < the benchmark
file < ``--swe-config FILE`` < ``--swe-set key=value`` (dotlist). Values left ``???`` are
reported together in one error, and pydantic errors name the dotted path, so a bad config
fails before any sandbox exists. Layers of plain data are merged as OmegaConf would merge them,
without importing it; interpolations, ``???`` and anything else go to OmegaConf.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import cast
from typing import get_args

import yaml
from pydantic import BaseModel
from pydantic import ValidationError

from pytest_swe.api.errors import ConfigError
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.settings import is_local_source

if TYPE_CHECKING:  # imported where a layer needs it: plain layers merge without it
    from omegaconf import DictConfig

DEFAULTS: dict[str, Any] = {
    "family": "swe-bench",
    "dataset": {"split": "test"},
    "markers": [],
    "agent": {"name": "gold"},
    "provider": {"name": "docker"},
    "timeouts": {"agent": 3600, "eval": 1800, "sandbox": 300, "command": 180, "item": None},
    "limits": {"memory": "4g", "cpus": 2.0, "pids": 4096, "output_bytes": 4_000_000},
    "network": {"agent": False, "eval": False},
    "images": {},
    "eval": {},
    "family_options": {},
}

# Sections a layer may write as a bare string: ``agent: gold`` means ``agent: {name: gold}``.
SHORTHAND_KEYS = {"agent": "name", "provider": "name", "dataset": "source"}


# --- loading ----------------------------------------------------------------------------------


def read_yaml(path: Path) -> dict[str, Any]:
    """Read one YAML mapping; errors name the file (and the line, when YAML knows it)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{path}:{where}: invalid YAML: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a benchmark file must be a YAML mapping, got {type(data).__name__}")
    return data


def _absolute(value: str, base: Path) -> str:
    path = Path(value).expanduser()
    return str(path if path.is_absolute() else (base / path).resolve())


def _normalize_layer(layer: dict[str, Any], base_dir: Path | None) -> dict[str, Any]:
    """Expand shorthands and make the layer's relative paths absolute against its own file."""
    layer = dict(layer)
    for key, field in SHORTHAND_KEYS.items():
        if isinstance(layer.get(key), str):
            layer[key] = {field: layer[key]}
    if base_dir is None:
        return layer
    dataset = layer.get("dataset")
    if isinstance(dataset, dict) and isinstance(dataset.get("source"), str):
        source = dataset["source"]
        if is_local_source(source) and "${" not in source:
            layer["dataset"] = {**dataset, "source": _absolute(source, base_dir)}
    agent = layer.get("agent")
    if (
        isinstance(agent, dict)
        and isinstance(agent.get("predictions"), str)
        and "${" not in agent["predictions"]
    ):
        layer["agent"] = {**agent, "predictions": _absolute(agent["predictions"], base_dir)}
    build = layer.get("build")
    if isinstance(build, dict):
        build = dict(build)
        if isinstance(build.get("repo"), str):
            build["repo"] = _absolute(build["repo"], base_dir)
        if isinstance(build.get("files"), dict):
            build["files"] = {
                k: _absolute(v, base_dir) if isinstance(v, str) else v for k, v in build["files"].items()
            }
        layer["build"] = build
    return layer


def _file_layers(path: Path, seen: tuple[Path, ...] = ()) -> list[dict[str, Any]]:
    """The layers of a file: its ``extends`` bases (recursively, in order), then itself."""
    path = path.resolve()
    if path in seen:
        chain = " -> ".join(str(p) for p in (*seen, path))
        raise ConfigError(f"{path}: 'extends' forms a cycle: {chain}")
    data = read_yaml(path)
    extends = data.pop("extends", None)
    bases: list[str]
    if extends is None:
        bases = []
    elif isinstance(extends, str):
        bases = [extends]
    elif isinstance(extends, list) and all(isinstance(b, str) for b in extends):
        bases = extends
    else:
        raise ConfigError(f"{path}: 'extends' must be a file name or a list of file names")
    layers: list[dict[str, Any]] = []
    for base in bases:
        base_path = (path.parent / base).resolve()
        if not base_path.is_file():
            raise ConfigError(f"{path}: 'extends' names {base!r}, which does not exist ({base_path})")
        layers.extend(_file_layers(base_path, (*seen, path)))
    layers.append(_normalize_layer(data, path.parent))
    return layers


def parse_dotlist(items: Iterable[str]) -> dict[str, Any]:
    """``--swe-set`` items as a nested mapping; errors name the offending item."""
    from omegaconf import DictConfig
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    cfg = OmegaConf.create()
    for item in items:
        if "=" not in item:
            raise ConfigError(
                f"--swe-set {item!r}: expected KEY=VALUE (for example --swe-set timeouts.eval=600)"
            )
        try:
            # Merged into a DictConfig, the result is a DictConfig.
            cfg = cast(DictConfig, OmegaConf.merge(cfg, OmegaConf.from_dotlist([item])))
        except OmegaConfBaseException as exc:
            raise ConfigError(f"--swe-set {item!r}: {exc}") from None
        except yaml.YAMLError as exc:  # the value is parsed as YAML: "{{x}}" is a mapping, quote it
            raise ConfigError(
                f"--swe-set {item!r}: the value is not valid YAML ({exc}); quote it: KEY='VALUE'"
            ) from None
    return OmegaConf.to_container(cfg, resolve=False)  # type: ignore[return-value]


def missing_values_message(source: str, paths: Iterable[str]) -> str:
    paths = sorted(paths)
    width = max(len(p) for p in paths)
    lines = [f"{source}: {len(paths)} required value{'s' if len(paths) != 1 else ''} left as ??? (missing):"]
    lines += [f"  {p:<{width}}   set it with: --swe-set {p}=<value>" for p in paths]
    return "\n".join(lines)


def _merge(layers: list[Mapping[str, Any]], source: str) -> DictConfig:
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    try:
        return OmegaConf.merge(*(OmegaConf.create(dict(layer)) for layer in layers))  # type: ignore[return-value]
    except OmegaConfBaseException as exc:
        key = getattr(exc, "full_key", None)
        raise ConfigError(f"{source}: cannot merge config{f' at {key}' if key else ''}: {exc.msg}") from None
    except TypeError:  # "Cannot merge incompatible container types", without the key
        raise ConfigError(f"{source}: cannot merge config: {_CLASH}") from None


_CLASH = "a mapping and a list cannot be merged (one layer has a list where another has keys)"


class _NotPlain(Exception):
    """A layer holds something only OmegaConf can merge or resolve exactly."""


def _plain_copy(value: Any) -> Any:
    """``value`` copied, if OmegaConf would hold it as it is: mappings with string keys, lists,
    and str, int, float, bool or None; no ``${...}`` interpolation, no ``???``."""
    kind = type(value)
    if kind is str:
        if "${" in value or value == "???":
            raise _NotPlain
        return value
    if kind in (int, float, bool) or value is None:
        return value
    if kind is dict:
        if not all(type(key) is str for key in value):
            raise _NotPlain
        return {key: _plain_copy(item) for key, item in value.items()}
    if kind is list:
        return [_plain_copy(item) for item in value]
    raise _NotPlain


def _merge_plain(layers: list[Mapping[str, Any]], source: str) -> dict[str, Any]:
    """OmegaConf's merge of plain layers, without OmegaConf (a fifth of a cached run's time is its
    import): mappings merge key by key, anything else replaces, and a mapping and a list do not
    merge. Layers :func:`_plain_copy` refuses are left to OmegaConf."""

    def into(target: dict[str, Any], layer: dict[str, Any], where: str) -> None:
        for key, value in layer.items():
            here = target.get(key)
            if isinstance(here, dict) and isinstance(value, dict):
                into(here, value, f"{where}{key}.")
            elif {type(here), type(value)} == {dict, list}:
                raise ConfigError(f"{source}: cannot merge config at {where}{key}: {_CLASH}")
            else:
                target[key] = value

    merged: dict[str, Any] = {}
    for layer in layers:
        into(merged, _plain_copy(dict(layer)), "")
    return merged


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The settings model a field holds (``BuildSettings | None`` holds ``BuildSettings``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        model = _model_of(arg)
        if model is not None:
            return model
    return None


def known_keys(loc: Iterable[Any], model: type[BaseModel] = BenchmarkSettings) -> list[str]:
    """The keys the section at ``loc`` (e.g. ``("timeouts",)``) accepts; none for a free-form one."""
    current: type[BaseModel] | None = model
    for part in loc:
        field = current.model_fields.get(str(part)) if current is not None else None
        current = _model_of(field.annotation) if field is not None else None
        if current is None:
            return []
    return list(current.model_fields) if current is not None else []


def did_you_mean(key: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'eval'?)`` for a key close to one of ``choices``, else nothing."""
    close = difflib.get_close_matches(key, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def validation_message(source: str, exc: ValidationError) -> str:
    lines = [f"{source}: invalid configuration:"]
    for error in exc.errors():
        path = ".".join(str(p) for p in error["loc"]) or "(top level)"
        if error["type"] == "extra_forbidden":
            *section, key = error["loc"] or ("",)
            lines.append(f"  {path}: unknown key{did_you_mean(str(key), known_keys(section))}")
        else:
            lines.append(f"  {path}: {error['msg']}")
    return "\n".join(lines)


def load_benchmark(
    path: Path,
    *,
    extra_config: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    cli_layer: Mapping[str, Any] | None = None,
) -> BenchmarkSettings:
    """Resolve one benchmark file into validated settings, or raise :class:`ConfigError`.

    ``cli_layer`` holds the dedicated options (``--swe-agent`` ...); it sits between
    ``--swe-config`` and ``--swe-set``.
    """
    path = Path(path).resolve()
    source = str(path)
    layers: list[Mapping[str, Any]] = [DEFAULTS, {"name": path.stem}]
    layers += _file_layers(path)
    if extra_config is not None:
        layers += _file_layers(Path(extra_config))
    if cli_layer:
        layers.append(_normalize_layer(dict(cli_layer), None))
    if overrides:
        layers.append(_normalize_layer(dict(overrides), Path.cwd()))
    try:
        data = _merge_plain(layers, source)
    except _NotPlain:
        data = _resolved(layers, source)
    data["file"] = source
    for key in ("dataset", "agent", "provider"):
        if data.get(key) is None:
            data.pop(key, None)
    try:
        return BenchmarkSettings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(validation_message(source, exc)) from None


def _resolved(layers: list[Mapping[str, Any]], source: str) -> dict[str, Any]:
    """The layers merged and resolved by OmegaConf: interpolations, ``???`` and the rest."""
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    cfg = _merge(layers, source)
    missing = OmegaConf.missing_keys(cfg)
    if missing:
        raise ConfigError(missing_values_message(source, missing))
    try:
        # A merge of mappings is a DictConfig, so its container is a dict.
        return cast("dict[str, Any]", OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True))
    except OmegaConfBaseException as exc:
        key = getattr(exc, "full_key", None)
        raise ConfigError(f"{source}: cannot resolve {key or 'config'}: {exc.msg}") from None


def peek_markers(path: Path) -> list[str]:
    """The benchmark's ``markers`` (its own or an ``extends`` base's) without resolving anything."""
    try:
        layers = _file_layers(Path(path))
    except ConfigError:
        return []
    for layer in reversed(layers):
        markers = layer.get("markers")
        if isinstance(markers, list):
            return [m for m in markers if isinstance(m, str)]
    return []


def peek_name(path: Path) -> str:
    """The benchmark's name without resolving anything (for selection before loading)."""
    try:
        data = read_yaml(path)
    except ConfigError:
        return path.stem
    name = data.get("name")
    return name if isinstance(name, str) and name else path.stem
