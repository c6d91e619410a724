"""The ``apptainer`` command lines this provider runs, and its parsing of what ``apptainer`` prints.

Kept apart from the processes that run them so that both are checked without Apptainer installed:
the arguments follow Apptainer's documented CLI (1.1 and later), the parsers its documented output
(``instance list --json``: ``{"instances": [{"instance", "pid", "img", "ip", "logErrPath",
"logOutPath"}]}``; without ``--json`` a table headed ``INSTANCE NAME  PID  IP  IMAGE``;
``--version``: ``apptainer version 1.3.4``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

PREFIX = "pswe"
"""Every instance this provider starts is named ``pswe-<run id>-<worker>-<role>-<random>``."""


@dataclass(frozen=True)
class Instance:
    name: str
    pid: int
    image: str


def _name_part(value: str) -> str:
    """A run id or worker as an instance name may carry it (letters, digits, ``.``, ``_``)."""
    return re.sub(r"[^A-Za-z0-9._]+", "_", value)[:40] or "_"


def instance_name(run_id: str, worker: str, role: str, suffix: str) -> str:
    return "-".join([PREFIX, _name_part(run_id), _name_part(worker), _name_part(role), suffix])


def name_run(name: str) -> tuple[str, str] | None:
    """(run id, worker) as written in an instance's name, or None for an instance not of pytest-swe."""
    parts = name.split("-")
    if len(parts) != 5 or parts[0] != PREFIX:
        return None
    return parts[1], parts[2]


def names_run(name: str, run_id: str) -> bool:
    found = name_run(name)
    return found is not None and found[0] == _name_part(run_id)


def start_argv(
    sif: str,
    name: str,
    *,
    workdir: str,
    env: Mapping[str, str],
    network: bool,
    mounts: Mapping[str, str],
    memory: str | None = None,
    pids: int | None = None,
    cpus: float | None = None,
) -> list[str]:
    """``apptainer instance start``: no host home or paths (``--containall``), a writable tmpfs over
    the image, a clean environment, no network unless asked for, cgroup limits when given."""
    argv = ["apptainer", "instance", "start", "--containall", "--no-home", "--writable-tmpfs", "--cleanenv"]
    if not network:
        argv += ["--net", "--network", "none"]
    argv += ["--pwd", workdir]
    for key, value in env.items():
        argv += ["--env", f"{key}={value}"]
    for host, inside in mounts.items():
        argv += ["--bind", f"{host}:{inside}"]
    if memory:
        argv += ["--memory", str(memory), "--memory-swap", str(memory)]
    if pids:
        argv += ["--pids-limit", str(pids)]
    if cpus:
        argv += ["--cpus", f"{cpus:g}"]
    return [*argv, sif, name]


def exec_argv(
    name: str, inside: list[str], *, workdir: str, env: Mapping[str, str], user: str | None = None
) -> list[str]:
    """``apptainer exec instance://NAME``: the command runs in the instance's namespaces."""
    argv = ["apptainer", "exec", "--cleanenv", "--pwd", workdir]
    for key, value in env.items():
        argv += ["--env", f"{key}={value}"]
    del user  # an instance runs as the user who started it: apptainer cannot switch users inside
    return [*argv, f"instance://{name}", *inside]


def stop_argv(name: str, *, force: bool = False) -> list[str]:
    return ["apptainer", "instance", "stop", *(["--force", "--signal", "SIGKILL"] if force else []), name]


def list_argv() -> list[str]:
    return ["apptainer", "instance", "list", "--json"]


def build_argv(sif: str, source: str) -> list[str]:
    """``apptainer build`` of a SIF from ``docker-daemon://TAG``, ``docker://REF``, an archive, a directory."""
    return ["apptainer", "build", "--force", sif, source]


def source_of(reference: str) -> str:
    """How ``apptainer build`` names an image reference given as skopeo names it."""
    for transport in ("oci-archive:", "docker-archive:"):
        if reference.startswith(transport) and not reference.startswith(transport + "//"):
            return transport + reference[len(transport) :]
    return reference


def parse_instances(output: str) -> list[Instance]:
    """The instances ``apptainer instance list`` printed, as JSON (``--json``) or as its table."""
    text = output.strip()
    if not text:
        return []
    if text.startswith("{"):
        payload = json.loads(text)
        return [
            Instance(str(row["instance"]), int(row.get("pid") or 0), str(row.get("img") or ""))
            for row in payload.get("instances") or []
        ]
    found = []
    for line in text.splitlines():
        fields = line.split()
        if not fields or line.startswith("INSTANCE NAME"):
            continue
        pid = next((f for f in fields[1:] if f.isdigit()), "0")
        found.append(Instance(fields[0], int(pid), fields[-1] if len(fields) > 2 else ""))
    return found


def parse_version(output: str) -> str:
    """``apptainer version 1.3.4`` -> ``1.3.4`` (the whole text when it is not that)."""
    match = re.search(r"version\s+(\S+)", output)
    return match.group(1) if match else output.strip()
