"""The probe keeps the files it may have to restore (installed test-runner code, the repository's
runner configuration) in one file, and restores them byte for byte after an install step."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

from pytest_swe.grading import probe

HOOK = Path(probe.__file__).parent / "hook.py"


def load_hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("probe_hook_under_test", HOOK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_runner_code_and_configuration_come_back_from_the_one_copies_file(tmp_path: Path) -> None:
    hook = load_hook()
    repo, site, work = tmp_path / "repo", tmp_path / "site", tmp_path / "probe"
    (site / "_pytest").mkdir(parents=True)
    (site / "pluggy").mkdir()
    repo.mkdir()
    work.mkdir()
    runner = {
        site / "_pytest" / "main.py": b"def main():\n    return 0\n",
        site / "_pytest" / "empty.py": b"",
        site / "pluggy" / "hooks.py": bytes(range(256)),
    }
    for path, data in runner.items():
        path.write_bytes(data)
    (repo / "conftest.py").write_bytes(b"import os\n")
    plan = {"repo": str(repo), "dir": str(work), "site_dirs": [str(site)], "graded": []}
    hook.cmd_snapshot(plan)

    snap = json.loads((work / "snapshot.json").read_text())
    assert [p.name for p in work.iterdir() if p.name.startswith("copies")] == ["copies.bin"]
    for path in runner:
        (path).write_bytes(b"raise SystemExit('planted by the install step')\n")
    (repo / "conftest.py").write_bytes(b"import planted\n")

    done, _ = hook.neutralize({**plan, "test_patch_paths": [], "shadow_names": []}, snap)
    for path, data in runner.items():
        assert path.read_bytes() == data, path
    assert (repo / "conftest.py").read_bytes() == b"import os\n"
    assert sorted(d.split(" (")[0] for d in done) == sorted([*(str(p) for p in runner), "conftest.py"])
