"""The provider conformance suite: every provider the registry knows, held to the sandbox protocol
(``pytest_swe.api.sandbox``) through the protocol alone.

Nothing here knows a provider: the tests use ``Provider``/``Sandbox`` and the optional protocols,
the set-up (an image, options) comes from ``conftest.PROVIDER_SETUP``, and a capability a provider
does not declare skips its test with the provider's own list. Limit faults are classified as the
grading pipeline classifies them (``grading.run``), so "oom" here is "oom" in a run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from forged_checks import forge_and_kill

from pytest_swe.api.errors import InfraError
from pytest_swe.api.family import EvalContext
from pytest_swe.api.sandbox import CommandCarrier
from pytest_swe.api.sandbox import Provider
from pytest_swe.api.sandbox import RunInfo
from pytest_swe.api.sandbox import Sandbox
from pytest_swe.api.sandbox import Versioned
from pytest_swe.api.sandbox import this_run
from pytest_swe.api.task import Task
from pytest_swe.grading import inline
from pytest_swe.grading.run import Afterwards
from pytest_swe.grading.run import Opening
from pytest_swe.grading.run import classify_fault
from pytest_swe.grading.run import limit_counters
from pytest_swe.grading.run import run_script
from pytest_swe.grading.run import run_script_then
from pytest_swe.grading.run import sandbox_survived
from pytest_swe.tools import report

from .conftest import DEMO_YAML
from .conftest import LOCAL_YAMLS
from .conftest import Target
from .conftest import prepare_images
from .conftest import require
from conftest import DEMO_IDS
from conftest import SweProject
from conftest import benchmark_settings
from conftest import run_in_repo

PROCESSES = "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' '"
"""Every process's command line inside the sandbox (read from /proc: no ps needed)."""


@pytest.fixture
def sandbox(provider: Provider, target: Target) -> Any:
    sb = provider.create(target.spec(env={"CONFORMANCE_GREETING": "hello there"}))
    yield sb
    sb.close()


def fault_of(sandbox: Sandbox, command: str, timeout: float = 60) -> InfraError | None:
    """Run ``command`` and name its fault as the grading pipeline does (``grading.run.run_script``)."""
    before = limit_counters(sandbox)
    result = sandbox.exec(command, timeout=timeout)
    after = limit_counters(sandbox)
    return classify_fault(result, before, after, sandbox_survived(sandbox, result), timeout, "(log)")


def gone(provider: Provider, run: RunInfo) -> bool:
    """Nothing of ``run`` is left: a reap of the run, kept sandboxes too, finds nothing to remove."""
    return provider.reap(run_id=run.run_id, kept=None) == []


# -- create, exec --------------------------------------------------------------------------------


def test_create_with_workdir_env_and_exit_codes(sandbox: Sandbox) -> None:
    result = sandbox.exec('echo out; echo err >&2; pwd; echo "$CONFORMANCE_GREETING"; exit 3', timeout=30)
    assert (result.exit_code, result.timed_out, result.ok) == (3, False, False)
    assert result.output.splitlines() == ["out", "err", "/tmp", "hello there"]
    again = sandbox.exec('pwd; echo "$EXTRA"', timeout=30, workdir="/", env={"EXTRA": "x y"})
    assert again.ok and again.output.split("\n")[:2] == ["/", "x y"]
    assert sandbox.exec("true", timeout=30).exit_code == 0
    assert sandbox.exec("kill -9 $$", timeout=30).exit_code == 137  # 128 + the signal that ended it


def test_exec_timeout_kills_the_process_tree(sandbox: Sandbox) -> None:
    started = time.monotonic()
    result = sandbox.exec("sh -c 'sleep 302 & sleep 303; wait' & sleep 301; echo never", timeout=2)
    assert result.timed_out and not result.ok and "never" not in result.output
    assert time.monotonic() - started < 15
    left = sandbox.exec(PROCESSES, timeout=30).output
    for sleeper in ("sleep 301", "sleep 302", "sleep 303"):  # the command, its child and grandchildren
        assert sleeper not in left, left
    assert sandbox.alive()


def test_output_is_capped_keeping_head_and_tail(sandbox: Sandbox) -> None:
    result = sandbox.exec(
        "echo FIRST; head -c 5000000 /dev/zero | tr '\\0' x; echo; echo LAST",
        timeout=60,
        output_limit=100_000,
    )
    assert result.exit_code == 0
    assert result.output.startswith("FIRST") and result.output.rstrip().endswith("LAST")
    assert result.truncated_bytes > 4_800_000
    assert len(result.output) < 110_000


def test_a_command_runs_whole_up_to_the_carrier_limit(sandbox: Sandbox) -> None:
    """A command as long as the sandbox says one may be (``CommandCarrier.command_limit``), longer
    than a process's single argument may be, runs as written: every byte of its here-document
    arrives, quoting and non-ASCII text included, its exit status is its own, and it sees no
    arguments of the transport."""
    if not isinstance(sandbox, CommandCarrier):
        pytest.skip("carries no files in its commands")
    text = "".join(f"{i} $HOME `id` 'EOF' \"q\" \u00e9\u20ac\U0001f600 \\n\n" for i in range(200_000))
    text = text[: len(text) * (sandbox.command_limit - 4096) // len(text.encode())]
    text = text[: text.rfind("\n") + 1]
    assert len(text.encode()) > 128 << 10
    command = (
        f"cat > /tmp/long.txt <<'PYTEST_SWE_END'\n{text}PYTEST_SWE_END\n"
        'echo "args=$#"; sha256sum /tmp/long.txt | cut -c1-64; exit 7'
    )
    assert len(command.encode()) <= sandbox.command_limit
    result = sandbox.exec(command, timeout=60)
    assert result.exit_code == 7, result.output[-2000:]
    assert result.output.split() == ["args=0", hashlib.sha256(text.encode()).hexdigest()]


def test_files_are_binary_safe(sandbox: Sandbox) -> None:
    data = bytes(range(256)) * 64 + b"\r\n\x00tail\xff"
    sandbox.write_file("/opt/deep/new dir/blob.bin", data, mode=0o755)
    assert sandbox.read_file("/opt/deep/new dir/blob.bin") == data
    assert sandbox.exec("test -x '/opt/deep/new dir/blob.bin'", timeout=30).exit_code == 0
    sandbox.write_file("/opt/deep/new dir/blob.bin", b"short")
    assert sandbox.read_file("/opt/deep/new dir/blob.bin") == b"short"
    sandbox.exec("printf '\\000\\377\\n' > /tmp/made-inside", timeout=30)
    assert sandbox.read_file("/tmp/made-inside") == b"\x00\xff\n"
    with pytest.raises(FileNotFoundError):
        sandbox.read_file("/opt/nothing-here")


TEXT_FILES = {
    "/tmp/pytest-swe/g-conf/hook.py": (b"import sys\nprint('$HOME `id` EOF', sys.argv)\n", 0o600),
    "/tmp/pytest-swe/g-conf/plan.json": (b'{"text": "PYTEST_SWE_FILE_0\\n\'EOF\'", "crlf": 1}\r\n', 0o600),
}
LARGE_TEXT = "".join(f"line {i}: $HOME `id` 'EOF' \"quoted\" \u00e9\u20ac\U0001f600\n" for i in range(2500))
LARGE_FILES = {  # the probe's size and more: over one argument of a process, within a carrier's limit
    "/tmp/pytest-swe/g-conf/hook.py": (LARGE_TEXT.encode(), 0o600),
    "/tmp/pytest-swe/g-conf/plan.json": (LARGE_TEXT[::-1].lstrip("\n").encode() + b"\n", 0o600),
}
OTHER_FILES = {
    "/opt/conf dir/no-newline.txt": (b"no newline at the end", 0o644),  # not sayable in a here-document
    "/opt/conf dir/blob.bin": (bytes(range(256)) + b"\n", 0o755),  # nor are bytes that are not UTF-8
}


@pytest.mark.parametrize("kind", ["text", "text-and-binary", "script-only", "large-text"])
def test_the_eval_script_and_its_files_arrive_byte_for_byte(
    sandbox: Sandbox, tmp_path: Path, kind: str
) -> None:
    """``run_script`` writes the script and its files with their modes: inside the command that runs
    them where the sandbox can carry them (``CommandCarrier``; text files only), else in a write
    before it. The log is the script's own output either way, even when the script prints the
    harness's mark."""
    files = {
        "text": TEXT_FILES,
        "text-and-binary": {**TEXT_FILES, **OTHER_FILES},
        "script-only": {},
        "large-text": LARGE_FILES,
    }[kind]
    writes: list[str] = []
    for name in ("write_file", "write_files"):
        if hasattr(sandbox, name):
            original = getattr(sandbox, name)
            setattr(sandbox, name, lambda *a, _o=original, _n=name, **k: (writes.append(_n), _o(*a, **k))[1])
    script = f"echo '{inline.WRITTEN_MARK}'\necho script-ran\n" + "".join(
        f"stat -c '%a %s' '{path}'; sha256sum '{path}' | cut -c1-64\n" for path in files
    )
    task = Task(family="swe-bench", instance_id="conf", image="-", workdir="/tmp")
    ctx = EvalContext(
        settings=benchmark_settings("swe-bench"), artifacts=tmp_path, timeout=60, output_limit=1 << 20
    )
    log, code = run_script(
        task, sandbox, ctx, script, path="/tmp/conf-eval.sh", command="sh /tmp/conf-eval.sh", files=files
    )
    expected = [inline.WRITTEN_MARK, "script-ran"]
    for data, mode in files.values():
        expected += [f"{mode:o} {len(data)}", hashlib.sha256(data).hexdigest()]
    assert (log.splitlines(), code) == (expected, 0)
    assert (tmp_path / "eval.log").read_text() == log
    carried = isinstance(sandbox, CommandCarrier) and kind != "text-and-binary"
    assert (writes == []) is carried, writes
    assert sandbox.read_file("/tmp/conf-eval.sh") == script.encode()


def test_an_eval_whose_files_cannot_be_written_is_an_infrastructure_error(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """A file in the way of the eval's files (here ``/etc/hostname`` as a directory) stops the eval
    before it runs, as an infrastructure error, not a verdict on the patch."""
    if not isinstance(sandbox, CommandCarrier):
        pytest.skip("writes the eval's files through the provider's own write, whose errors are its own")
    task = Task(family="swe-bench", instance_id="conf", image="-", workdir="/tmp")
    ctx = EvalContext(
        settings=benchmark_settings("swe-bench"), artifacts=tmp_path, timeout=60, output_limit=1 << 20
    )
    files = {"/etc/hostname/inside.py": (b"x = 1\n", 0o644)}
    with pytest.raises(InfraError) as raised:
        run_script(task, sandbox, ctx, "echo should-not-run\n", path="/tmp/conf-eval.sh", files=files)
    assert raised.value.kind == "sandbox_error" and "could not be written" in str(raised.value)
    assert "should-not-run" not in (tmp_path / "eval.log").read_text()


@pytest.mark.parametrize("case", ["plain", "capped", "forged-nearest", "forged-outermost"])
def test_the_checks_after_the_script_come_back_in_its_command(
    sandbox: Sandbox, tmp_path: Path, case: str
) -> None:
    """``run_script_then``: the checks after the tests run at the end of the eval script's command
    and come back apart from its log, also when the log was capped; a script that forges their
    line and kills the shell that would print the real one leaves them to a command of their own."""
    task = Task(family="swe-bench", instance_id="conf", image="-", workdir="/tmp")
    ctx = EvalContext(
        settings=benchmark_settings("swe-bench"), artifacts=tmp_path, timeout=60, output_limit=100_000
    )
    script = {
        "plain": "echo script-ran\nexit 3\n",
        "capped": "echo FIRST; head -c 500000 /dev/zero | tr '\\0' x; echo; echo LAST\n",
        "forged-nearest": forge_and_kill("nearest", wait=2),
        "forged-outermost": forge_and_kill("outermost", wait=2),
    }[case]
    afterwards = Afterwards("echo checked; pwd", limit=ctx.output_limit // 4)
    log, code, after, *_ = run_script_then(
        task, sandbox, ctx, script, afterwards, path="/tmp/conf-eval.sh", command="sh /tmp/conf-eval.sh"
    )
    if case.startswith("forged"):
        assert "no marker found" not in log and "no shell found" not in log and after is None, (code, log)
        return
    assert after == "checked\n/tmp\n"
    assert (tmp_path / "eval.log").read_text() == log and afterwards.marker not in log
    if case == "plain":
        assert (log, code) == ("script-ran\n", 3)
    else:
        assert log.startswith("FIRST") and log.endswith("LAST\n") and "dropped" in log and code == 0


@pytest.mark.parametrize("case", ["ok", "fails", "capped"])
def test_a_command_before_the_script_comes_back_first_in_its_command(
    sandbox: Sandbox, tmp_path: Path, case: str
) -> None:
    """``run_script_then`` with an opening (the patch's apply): its output opens the command's and
    comes back apart from the log, with its exit status; the script runs only when it exited 0;
    what ``then`` keeps in the shell's memory reaches the checks after the script; output over
    the cap leaves the opening whole in the part kept from the start."""
    task = Task(family="swe-bench", instance_id="conf", image="-", workdir="/tmp")
    ctx = EvalContext(
        settings=benchmark_settings("swe-bench"), artifacts=tmp_path, timeout=60, output_limit=100_000
    )
    status = 1 if case == "fails" else 0
    opening = Opening(
        f"echo opened; echo 'second line'; exit {status}", path="/tmp/conf-open/a-1", then="kept=yes"
    )
    script = "echo script-ran\n" + (
        "head -c 500000 /dev/zero | tr '\\0' x; echo\n" if case == "capped" else ""
    )
    afterwards = Afterwards('echo "kept $kept"', limit=ctx.output_limit // 4)
    ran = run_script_then(
        task, sandbox, ctx, script, afterwards, path="/tmp/conf-eval.sh", command="sh /tmp/conf-eval.sh",
        opening=opening,
    )  # fmt: skip
    assert sandbox.read_file("/tmp/conf-open/a-1") == b"opened\nsecond line\n"
    if case == "fails":
        assert (ran.log, ran.exit_code, ran.after, ran.opened) == ("", 0, None, "opened\nsecond line\n")
        assert ran.opening_status == 1
        return
    assert ran.after == "kept yes\n" and ran.log.startswith("script-ran\n") and ran.exit_code == 0
    # Capped, its output and line still lie in the part kept from the start: they are taken.
    assert ran.opened == "opened\nsecond line\n" and ran.opening_status == 0


def test_end_processes_spares_the_sandbox(sandbox: Sandbox) -> None:
    sandbox.exec("sleep 500 >/dev/null 2>&1 & setsid sleep 501 >/dev/null 2>&1 &", timeout=30)
    assert "sleep 500" in sandbox.exec(PROCESSES, timeout=30).output
    sandbox.end_processes()
    left = sandbox.exec(PROCESSES, timeout=30).output
    assert "sleep 500" not in left and "sleep 501" not in left
    assert sandbox.alive()


# -- life, identity, reaping ----------------------------------------------------------------------


def test_alive_until_close_which_is_confirmed(provider: Provider, target: Target, run: RunInfo) -> None:
    sb = provider.create(target.spec())
    assert sb.alive() and sb.enter_command()
    result = sb.close()
    assert result.removed, result.error
    assert not sb.alive()
    assert gone(provider, run)


def test_labels_name_the_run_the_worker_and_kept_sandboxes(target: Target, run: RunInfo) -> None:
    mine = target.build(run)
    require(mine, "labels")
    other_worker = target.build(dataclasses.replace(run, worker="conformance-2"))
    try:
        first = mine.create(target.spec())
        second = other_worker.create(target.spec())
        kept = mine.create(target.spec(keep=True))
        assert mine.reap(run_id=f"{run.run_id}-other") == []
        assert len(mine.reap(run_id=run.run_id, worker=run.worker)) == 1
        assert not first.alive() and second.alive() and kept.alive()
        assert len(mine.reap(run_id=run.run_id)) == 1  # the other worker's, not the kept one
        assert not second.alive() and kept.alive()
        assert len(mine.reap(run_id=run.run_id, kept=True)) == 1
        assert not kept.alive()
        assert gone(mine, run)
    finally:
        mine.reap(run_id=run.run_id, kept=None)
        mine.close()
        other_worker.close()


ORPHAN_MAKER = textwrap.dedent(
    """\
    import json, os, signal, sys
    from pytest_swe.api.sandbox import SandboxSpec, this_run
    from pytest_swe.runner.registry import Registry, plugin_manager_for_tools
    name, options, image, run_id = json.loads(sys.argv[1])
    factory = Registry(plugin_manager_for_tools()).providers.get(name)
    sandbox = factory(options, this_run(run_id=run_id)).create(SandboxSpec(image=image))
    print(sandbox.id, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def test_orphans_of_an_owner_killed_with_sigkill_are_reaped(target: Target, provider: Provider) -> None:
    require(provider, "labels")
    orphan_run = f"orphan-{time.monotonic_ns():x}"
    made = subprocess.run(
        [
            sys.executable,
            "-c",
            ORPHAN_MAKER,
            json.dumps([target.name, target.options, target.image, orphan_run]),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert made.returncode == -signal.SIGKILL, made.stderr
    orphan_id = made.stdout.strip()
    assert orphan_id
    survivor = target.build(this_run(run_id="conformance-survivor"))
    try:
        removed = survivor.reap(orphans=True)
        assert any(orphan_id.startswith(r) or r.startswith(orphan_id) for r in removed), (orphan_id, removed)
        assert gone(survivor, this_run(run_id=orphan_run))
    finally:
        survivor.close()


def test_ttl_ends_an_abandoned_sandbox(provider: Provider, target: Target) -> None:
    require(provider, "ttl")
    sb = provider.create(target.spec(ttl=2))
    deadline = time.monotonic() + 20
    while sb.alive() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not sb.alive()


# -- isolation and limits ---------------------------------------------------------------------------

CONNECT = (
    "if command -v nc >/dev/null 2>&1; then nc -w 3 127.0.0.1 {port} </dev/null; "
    "else exec 3<>/dev/tcp/127.0.0.1/{port}; fi"
)


def test_no_network_by_default(sandbox: Sandbox, provider: Provider) -> None:
    """A connect to a loopback port the host listens on fails from inside (the sandbox's loopback is
    its own), while the same connect to a port inside the sandbox works: the tool is not the cause."""
    require(provider, "network-off")
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.setblocking(False)
        port = listener.getsockname()[1]
        outward = sandbox.exec(CONNECT.format(port=port), timeout=30)
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert outward.exit_code != 0, outward.output
    inward = sandbox.exec(
        # The listener may start late on a loaded machine: the client tries again until it is up.
        # Its stdin stays open (a listener that sees end of input first may close before reading
        # what arrived), and it appends, so the second spelling cannot wipe what the first got.
        f"( (sleep 20 | nc -l -p {port} || sleep 20 | nc -l {port}) >>/tmp/got 2>/dev/null ) & "
        f"for i in $(seq 20); do sleep 0.5; echo ping | nc -w 2 127.0.0.1 {port} && break; done; "
        "for i in $(seq 20); do grep -q ping /tmp/got 2>/dev/null && break; sleep 0.25; done; cat /tmp/got",
        timeout=30,
    )
    assert "ping" in inward.output


def test_memory_limit_is_oom(sandbox: Sandbox, provider: Provider) -> None:
    require(provider, "oom")
    fault = fault_of(sandbox, "dd if=/dev/zero of=/dev/null bs=400M count=1")
    assert fault is not None and fault.kind == "oom", fault


def test_pids_limit_is_pids_limit(sandbox: Sandbox, provider: Provider) -> None:
    require(provider, "pids-limit")
    fault = fault_of(sandbox, "i=0; while [ $i -lt 200 ]; do sleep 5 & i=$((i+1)); done; wait")
    assert fault is not None and fault.kind == "pids_limit", fault
    sandbox.end_processes()


def test_disk_fill_is_disk_full(sandbox: Sandbox, provider: Provider) -> None:
    require(provider, "disk-limit")
    fault = fault_of(sandbox, "dd if=/dev/zero of=/var/tmp/fill bs=1M count=200; sync", timeout=120)
    assert fault is not None and fault.kind == "disk_full", fault


# -- benchmarks end to end ---------------------------------------------------------------------------


@pytest.fixture
def demo_ready(target: Target) -> Target:
    prepare_images(target, [DEMO_YAML])
    return target


def header_names_the_provider(output: str, target: Target) -> None:
    """The report header names the provider, and its engine's version when it can say."""
    lines = [line for line in output.splitlines() if line.startswith("pytest-swe: ")]
    assert any(f"provider {target.name}" in line for line in lines), output[:3000]
    provider = target.build(this_run())
    provider.close()
    if isinstance(provider, Versioned):
        assert any(f"provider {target.name} (" in line and "unavailable" not in line for line in lines), lines


@pytest.mark.parametrize(("agent", "outcome"), [("gold", "passed"), ("empty", "failed")])
def test_demo_benchmark_gold_resolves_all_and_empty_none(
    demo_ready: Target, tmp_path: Path, agent: str, outcome: str
) -> None:
    """``pytest benchmarks/demo.yaml --swe-provider NAME -n 2`` over the benchmark file as shipped
    (it names another provider), after ``pytest-swe images benchmarks/demo.yaml --provider NAME``."""
    junit = tmp_path / "junit.xml"
    out = run_in_repo(
        "benchmarks/demo.yaml",
        "--swe-provider",
        demo_ready.name,
        "--swe-agent",
        agent,
        "-n",
        "2",
        f"--junitxml={junit}",
        f"--swe-run-dir={tmp_path / 'run'}",
    )
    header_names_the_provider(out.stdout, demo_ready)
    cases = report.read_cases(junit)
    assert {c.instance_id: c.outcome for c in cases} == dict.fromkeys(DEMO_IDS, outcome), out.stdout[-3000:]
    assert {c.properties["provider"] for c in cases} == {demo_ready.name}


def test_one_local_benchmark_per_family_resolves_with_gold(swe_project: SweProject, target: Target) -> None:
    """Chosen with the benchmark file's ``provider:`` key."""
    prepare_images(target, LOCAL_YAMLS)
    for path in LOCAL_YAMLS:
        swe_project.benchmark(path.stem, f"extends: {path}\nagent: gold\nprovider: {target.name}\n")
    run = swe_project.run("benchmarks/", "-n", "2", timeout=900)
    families = {case.properties["family"] for case in run.cases}
    assert len(families) == len(LOCAL_YAMLS), families
    failed = {c.instance_id: (c.outcome, c.message[:300]) for c in run.cases if c.outcome != "passed"}
    assert not failed, failed
    assert all(case.properties["provider"] == target.name for case in run.cases)


def test_sigterm_during_a_run_leaves_no_sandbox(
    swe_project: SweProject, demo_ready: Target, tmp_path: Path
) -> None:
    marker = tmp_path / "agent-started"
    swe_project.demo(
        "termdemo",
        extra=f"provider: {demo_ready.name}\n"
        f"agent: {{name: command, mode: host, command: 'echo $SWE_SANDBOX_ID > {marker}; sleep 300'}}\n",
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "benchmarks/",
            "-p",
            "no:cacheprovider",
            "-x",
            f"--swe-run-dir={tmp_path / 'run'}",
        ],
        cwd=swe_project.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert marker.exists(), "the agent never started"
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    run_ids = [
        line.split()[2].rstrip(",") for line in output.splitlines() if line.startswith("pytest-swe: run ")
    ]
    assert run_ids, output[-3000:]
    checker = demo_ready.build(this_run(run_id="conformance-checker"))
    try:
        assert checker.reap(run_id=run_ids[0], kept=None) == [], "the run left sandboxes behind"
    finally:
        checker.close()
