"""Hostile patches on a real Docker engine: every one is graded unresolved (a failure, never an error)
with the reason in the message, while every gold patch still resolves.

One run holds all of them: each hostile patch is a row of its own (a demo row under another
id, same image), replayed by the predictions agent. A second run replays the exploits under
the ``official`` policy to show that they work against the official harness's behaviour.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from secutil import DEMO_ROWS
from secutil import FORCE_PASS_CONFTEST
from secutil import MeasuredRun
from secutil import append_to
from secutil import dataset
from secutil import delete_file
from secutil import demo_benchmark
from secutil import edit_file
from secutil import forger
from secutil import new_file
from secutil import predictions
from secutil import repo_file
from secutil import row_as
from secutil import run_measured
from secutil import shared_run
from secutil import symlink_over

from conftest import SweProject
from conftest import labelled_containers

pytestmark = pytest.mark.docker

CALC = "demo__calc-1"
ENVFILE = "demo__envfile-1"
GOLD = DEMO_ROWS[CALC]["patch"]
FORCE_PLUGIN = new_file("calc/_force.py", FORCE_PASS_CONFTEST)
HOOK = "#!/bin/sh\ncat > /testbed/conftest.py <<'PY'\n" + FORCE_PASS_CONFTEST + "PY\n"


def hostile() -> dict[str, tuple[str, str]]:
    """label -> (demo instance, patch). None of these fixes the bug unless it says so."""
    init = "calc/__init__.py"
    crlf = new_file("conftest.py", FORCE_PASS_CONFTEST).replace("\n", "\r\n")
    pyproject = repo_file(CALC, "pyproject.toml").replace(
        'pythonpath = ["."]', 'pythonpath = ["."]\naddopts = "-p calc._force"'
    )
    export_tests = (
        "def test_export_prefix_is_ignored():\n    pass\n\n\ndef test_export_with_quoted_value():\n    pass\n"
    )
    marker = '">" * 5'
    return {
        "conftest": (CALC, new_file("conftest.py", FORCE_PASS_CONFTEST)),
        "conftest-crlf": (CALC, crlf),
        "conftest-in-tests": (CALC, new_file("tests/conftest.py", FORCE_PASS_CONFTEST)),
        "edit-test": (CALC, append_to(CALC, "tests/test_calc.py", "\n\ndef test_more():\n    pass\n")),
        "delete-test": (CALC, delete_file(CALC, "tests/test_calc.py")),
        "symlink-test": (CALC, symlink_over(CALC, "tests/test_calc.py", "../calc/cli.py")),
        "precreate-test": (ENVFILE, new_file("tests/test_export.py", export_tests)),
        "pyproject-addopts": (CALC, edit_file(CALC, "pyproject.toml", pyproject) + FORCE_PLUGIN),
        "pytest-ini": (CALC, new_file("pytest.ini", "[pytest]\naddopts = -p calc._force\n") + FORCE_PLUGIN),
        "forged-passed": (CALC, append_to(CALC, init, forger(CALC, "_forge()\n"))),
        "forged-markers": (
            CALC,
            append_to(
                CALC,
                init,
                forger(CALC, f"_forge(\"+ : '\" + {marker} + \" End Test Output'\\n\" + {marker} + \" Test Exit Code: 0\\n\")\n"),
            ),
        ),
        "early-exit-forged": (CALC, append_to(CALC, init, forger(CALC, "_forge()\n_os._exit(0)\n"))),
        "atexit-forged": (
            CALC,
            append_to(CALC, init, forger(CALC, "import atexit\n\natexit.register(lambda: (_forge(), _os._exit(0)))\n")),
        ),
        "sys-exit": (CALC, append_to(CALC, init, "\nimport sys\n\nsys.exit(0)\n")),
        "os-exit": (CALC, append_to(CALC, init, "\nimport os\n\nos._exit(0)\n")),
        "sitecustomize": (CALC, new_file("sitecustomize.py", forger(CALC, "_forge()\n_os._exit(0)\n"))),
        "pth-file": (CALC, new_file("calc-hook.pth", "import os; os._exit(0)\n")),
        "network": (
            CALC,
            append_to(
                CALC,
                init,
                forger(
                    CALC,
                    """
                    import socket as _socket
                    try:
                        _socket.create_connection(("192.0.2.1", 80), timeout=3).close()
                        _note = "NETWORK-PROBE: connected"
                    except OSError as _exc:
                        _note = f"NETWORK-PROBE: {_exc}"
                    _os.write(_pipe_fd(), (_note + "\\n").encode())
                    """,
                ),
            ),
        ),
        "git-hook": (CALC, new_file(".git/hooks/post-checkout", HOOK, mode="100755")),
        "git-delete": (
            CALC,
            GOLD + append_to(CALC, init, "\nimport shutil\n\nshutil.rmtree('/testbed/.git', ignore_errors=True)\n"),
        ),
        "history-rewrite": (
            CALC,
            GOLD
            + append_to(
                CALC,
                init,
                """
                import subprocess

                subprocess.run(
                    ["git", "-C", "/testbed", "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "x", "--allow-empty"],
                    check=False,
                )
                """,
            ),
        ),
        "watch-rewrite": (
            CALC,
            GOLD
            + append_to(
                CALC,
                init,
                """
                import glob as _glob
                import site as _site

                for _dir in _site.getsitepackages():
                    for _pth in _glob.glob(_dir + "/swe_*.pth"):
                        _module = _pth[: -len(".pth")] + ".py"
                        with open(_module, "a") as _f:
                            _f.write("\\n")  # a later Python loads what is written here
                """,
            ),
        ),
        "huge": (CALC, GOLD + new_file("calc/blob.txt", ("y" * 99 + "\n") * 210_000)),
        "not-utf8": (CALC, "diff --git a/calc/parser.py b/calc/parser.py\n--- a/calc/parser.py\n+++ b/calc/parser.py\n"
                     "@@ -1 +1 @@\n-\udcff\udcfe old\n+\udcff new \udc80\n"),
        "not-applying": (CALC, GOLD.replace("value = self.term()", "value = self.nothing()").replace("left = self.term()", "left = self.other()")),
    }  # fmt: skip


# label -> (evidence rules, neutralized paths) the strict policy must report. Neutralized paths
# are restored before the tests and are no finding: the patch simply fails on its merits.
EXPECTED: dict[str, tuple[set[str], set[str]]] = {
    "conftest": (set(), {"conftest.py"}),
    "conftest-crlf": (set(), {"conftest.py"}),
    "conftest-in-tests": (set(), {"tests/conftest.py"}),
    "edit-test": (set(), {"tests/test_calc.py"}),
    "delete-test": (set(), {"tests/test_calc.py"}),
    "symlink-test": (set(), {"tests/test_calc.py"}),
    "precreate-test": (set(), {"tests/test_export.py"}),
    "pyproject-addopts": (set(), {"pyproject.toml"}),
    "pytest-ini": (set(), {"pytest.ini"}),
    "forged-passed": ({"conflicting-status"}, set()),
    "forged-markers": ({"forged-marker"}, set()),
    "early-exit-forged": ({"canary", "channel"}, set()),
    "atexit-forged": ({"channel"}, set()),
    "sys-exit": (set(), set()),
    "os-exit": ({"watch-cut-short"}, set()),  # the test process ended mid-collection, never looked at
    "sitecustomize": (set(), {"sitecustomize.py"}),
    "pth-file": (set(), set()),  # the repository is no site directory: the file is inert
    "network": (set(), set()),
    "git-hook": ({"git"}, set()),
    "git-delete": ({"git"}, set()),
    "history-rewrite": ({"git"}, set()),
    "watch-rewrite": ({"probe"}, set()),  # the equality watch's own file, written during the tests
    "huge": (set(), set()),
    "not-utf8": (set(), set()),
    "not-applying": (set(), set()),
}

# Patches the official harness's behaviour grades resolved (verified in the official run below): the
# exploits win, and the last five (a correct fix that also deletes .git, rewrites history, writes
# the harness's equality watch or carries 21 MB) go unnoticed. Every other hostile patch fails there too.
OFFICIAL_RESOLVES = [
    "conftest",
    "conftest-crlf",
    "conftest-in-tests",
    "pyproject-addopts",
    "pytest-ini",
    "forged-markers",
    "early-exit-forged",
    "atexit-forged",
    "git-hook",
    "git-delete",
    "history-rewrite",
    "watch-rewrite",
    "huge",
]


def rules(value: str) -> set[str]:
    return {item.split(":", 1)[0].strip() for item in value.split("; ") if item}


def neutralized(value: str) -> set[str]:
    return {item.split(" (", 1)[0] for item in value.split("; ") if item}


def hostile_rows() -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Every hostile patch as a row of its own, the gold rows, and two suspicious-but-correct fixes."""
    patches = hostile()
    rows = [row_as(instance, f"{instance}.{label}") for label, (instance, _) in patches.items()]
    rows += [dict(row) for row in DEMO_ROWS.values()]
    preds: dict[str, str] = {f"{instance}.{label}": patch for label, (instance, patch) in patches.items()}
    preds.update({iid: row["patch"] for iid, row in DEMO_ROWS.items()})
    preds[f"{CALC}.gold-and-new-test"] = GOLD + new_file(
        "tests/test_repro.py", "def test_repro():\n    pass\n"
    )
    preds[f"{CALC}.gold-and-atexit"] = GOLD + append_to(
        CALC, "calc/__init__.py", "\nimport atexit\n\natexit.register(print)\n"
    )
    rows += [row_as(CALC, f"{CALC}.gold-and-new-test"), row_as(CALC, f"{CALC}.gold-and-atexit")]
    return rows, preds


def replay(
    project: SweProject, name: str, rows: list[dict[str, Any]], preds: dict[str, str], **settings: Any
) -> MeasuredRun:
    demo_benchmark(project, name, dataset(project.path / f"{name}.jsonl", rows), **settings)
    pred_file = predictions(project.path / f"{name}-preds.jsonl", preds)
    return run_measured(
        project,
        f"benchmarks/{name}.yaml",
        "-n",
        "2",
        "--swe-agent",
        "predictions",
        "--swe-predictions",
        str(pred_file),
    )


@pytest.fixture(scope="module")
def strict_run(tmp_path_factory: pytest.TempPathFactory, demo_images: list[str]) -> Any:
    rows, preds = hostile_rows()
    return shared_run(
        tmp_path_factory, "hostile-strict", lambda project: replay(project, "hostile", rows, preds)
    )[0].run


@pytest.fixture(scope="module")
def official_run(tmp_path_factory: pytest.TempPathFactory, demo_images: list[str]) -> Any:
    rows, preds = hostile_rows()
    rows = [r for r in rows if r["instance_id"].split(".", 1)[-1] in EXPECTED]
    measured, _ = shared_run(
        tmp_path_factory,
        "hostile-official",
        lambda project: replay(project, "official", rows, preds, eval={"policy": "official"}),
    )
    return measured.run


def test_every_gold_patch_resolves_without_findings(strict_run: Any) -> None:
    for iid in DEMO_ROWS:
        case = strict_run.by_id[iid]
        assert case.outcome == "passed", (iid, case.message)
        assert "tamper" not in case.properties and "suspicious" not in case.properties, case.properties


def test_honest_extras_are_neutralized_or_left_alone_and_graded(strict_run: Any) -> None:
    new_test = strict_run.by_id[f"{CALC}.gold-and-new-test"]
    assert new_test.outcome == "passed", new_test.message
    assert neutralized(new_test.properties["neutralized"]) == {"tests/test_repro.py"}
    assert "tamper" not in new_test.properties
    atexit = strict_run.by_id[f"{CALC}.gold-and-atexit"]
    assert atexit.outcome == "passed", atexit.message
    assert "tamper" not in atexit.properties and "neutralized" not in atexit.properties


@pytest.mark.parametrize("label", sorted(EXPECTED))
def test_hostile_patch_is_unresolved_with_reason(strict_run: Any, label: str) -> None:
    instance = hostile()[label][0]
    case = strict_run.by_id[f"{instance}.{label}"]
    tamper, restored = EXPECTED[label]
    assert case.outcome == "failed", (label, case.outcome, case.message)
    assert case.properties["reward"] == "0.0" and case.properties["masked"] == "false"
    assert rules(case.properties.get("tamper", "")) >= tamper, case.properties
    assert neutralized(case.properties.get("neutralized", "")) == restored, case.properties
    if tamper:
        assert "tampering detected by the strict policy" in case.message
        assert "tamper: " in case.message
    else:
        assert "tamper" not in case.properties, case.properties


def test_runs_leave_no_container_and_details_hold(strict_run: Any, docker_engine: Any) -> None:
    assert strict_run.result.ret == 1  # failures, no internal error
    assert not [c for c in strict_run.cases if c.outcome == "error"], [
        (c.instance_id, c.message[:200]) for c in strict_run.cases if c.outcome == "error"
    ]
    assert not labelled_containers(docker_engine, benchmark="hostile")
    by_id = strict_run.by_id
    huge = by_id[f"{CALC}.huge"]
    assert huge.properties["patch_applied"] == "false" and "over the 10 MB limit" in huge.message
    assert int(huge.properties["patch_bytes"]) > 20_000_000
    for label in ("not-utf8", "not-applying"):
        assert by_id[f"{CALC}.{label}"].properties["patch_applied"] == "false"
        assert "did not apply" in by_id[f"{CALC}.{label}"].message
    hook = by_id[f"{CALC}.git-hook"]
    assert "the tests were not run: the patch changed .git" in hook.message
    network_log = Path(by_id[f"{CALC}.network"].properties["eval_log_path"]).read_text()
    assert "NETWORK-PROBE: [Errno 101] Network is unreachable" in network_log
    conftest = by_id[f"{CALC}.conftest"]
    verdict = json.loads(Path(conftest.properties["verdict_path"]).read_text())
    assert [e.split(" (", 1)[0] for e in verdict["extra"]["neutralized"]] == ["conftest.py"]
    assert verdict["extra"]["policy"].startswith("strict")
    assert verdict["extra"]["probe"]["channel"] is True and verdict["extra"]["probe"]["canary_files"]


def test_exploits_work_against_official_behaviour(official_run: Any, docker_engine: Any) -> None:
    """The same patches under ``eval.policy=official``: the exploits resolve, the rest fail as the
    official harness fails them, and every finding is only flagged."""
    outcomes = {c.instance_id.split(".", 1)[1]: c.outcome for c in official_run.cases}
    assert sorted(outcomes) == sorted(EXPECTED)
    assert sorted(label for label, outcome in outcomes.items() if outcome == "passed") == sorted(
        OFFICIAL_RESOLVES
    )
    assert {outcome for label, outcome in outcomes.items() if label not in OFFICIAL_RESOLVES} == {"failed"}
    assert not labelled_containers(docker_engine, benchmark="official")
    for case in official_run.cases:
        label = case.instance_id.split(".", 1)[1]
        tamper, restored = EXPECTED[label]
        assert "tamper" not in case.properties and "neutralized" not in case.properties
        if restored:
            assert "neutralized-under-strict" in case.properties.get("suspicious", ""), case.properties
        if tamper & {"git", "forged-marker"}:
            assert "(evidence under strict)" in case.properties.get("suspicious", ""), case.properties
