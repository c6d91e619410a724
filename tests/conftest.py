"""Shared fixtures and helpers: a real Docker engine with the demo and local benchmarks' images,
pytester projects read back via JUnit, and the official ``swebench`` package in its own venv."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from types import ModuleType
from typing import Any
from typing import NoReturn

import pytest
from filelock import FileLock

from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.runner import config as _config  # noqa: F401 - see below
from pytest_swe.tools import report

# The plugin imports PyYAML and OmegaConf only when a run reads a benchmark. Imported here, they
# are in sys.modules before any in-process pytester run, whose module snapshot would otherwise
# remove them after the run and import them again in the next, where PyYAML, imported a second
# time in one process, fails to load "9" ("could not determine a constructor for the tag None").


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSONL file (a dataset, predictions, a ledger); blank lines are not rows."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


REPO = Path(__file__).resolve().parents[1]
# The repositories under security/data/grading-local are task fixtures, not tests of this
# project (a conftest.py of their own would shadow this module for `from conftest import`).
collect_ignore_glob = ["security/data/grading-local/*"]
DEMO_DIR = REPO / "benchmarks" / "demo"
DEMO_JSONL = DEMO_DIR / "demo.jsonl"
DEMO_IDS = [row["instance_id"] for row in read_jsonl(DEMO_JSONL)]
IN_CI = os.environ.get("CI", "").lower() == "true"
#: The classic SWE-bench row, in the column order of the published parquet files.
SWEBENCH_CLASSIC_COLUMNS = (
    "repo",
    "instance_id",
    "base_commit",
    "patch",
    "test_patch",
    "problem_statement",
    "hints_text",
    "created_at",
    "version",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
    "environment_setup_commit",
)


def _shared_data() -> Path:
    """The published SWE-bench rows: ``PYTEST_SWE_SHARED_DATA``, else ``../shared/data`` beside the
    repository, else the workplace's ``/work/shared/data`` (a clone elsewhere still finds them)."""
    candidates = [
        os.environ.get("PYTEST_SWE_SHARED_DATA"),
        REPO.parent / "shared" / "data",
        "/work/shared/data",
    ]
    for candidate in candidates:
        if candidate and Path(candidate, "swebench-lite").is_dir():
            return Path(candidate)
    return Path(candidates[1])


SHARED_DATA = _shared_data()


def docker_client() -> Any:
    import docker

    client = docker.from_env(timeout=300)
    client.ping()
    return client


def unavailable(reason: str) -> NoReturn:
    """CI must not pass by skipping what it was set up to check; elsewhere a missing tool skips."""
    if IN_CI:
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def require_docker() -> Any:
    """A client of the real Docker engine; fails in CI when it is missing, skips elsewhere."""
    try:
        return docker_client()
    except Exception as exc:
        unavailable(f"these tests need a running Docker engine ({exc}); .ci/run starts one")


@pytest.fixture(scope="session")
def docker_engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A client of the real Docker engine; fails in CI when it is missing, skips elsewhere."""
    return require_docker()


def run_shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory every xdist worker of this test run sees, and no other run does."""
    root = tmp_path_factory.getbasetemp()
    return root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root


def _build_lock(tmp_path_factory: pytest.TempPathFactory) -> FileLock:
    return FileLock(str(tmp_path_factory.getbasetemp().parent / "images.lock"))


def image_builder() -> Any:
    """The Docker provider, building images as ``pytest-swe images`` does."""
    from pytest_swe.api.sandbox import this_run
    from pytest_swe.providers.docker import DockerProvider

    return DockerProvider({"name": "docker"}, this_run())


def build_local_images(
    engine: Any, tmp_path_factory: pytest.TempPathFactory, benchmark_yaml: Path, *, force: bool = False
) -> list[str]:
    """Build a local benchmark's images under the lock xdist workers share; return every row's image.

    ``engine`` is the caller's client of the engine (proof that it answers); the images are built
    through the Docker provider, as ``pytest-swe images`` builds them.

    Without ``force`` only absent images are built. With it they are rebuilt once per test run,
    so an edited instance repository is never graded in an image made from its older state.
    """
    from pytest_swe.tools import images
    from pytest_swe.tools.cli import _load_benchmark

    done = run_shared_dir(tmp_path_factory) / f"{benchmark_yaml.stem}.built"
    with _build_lock(tmp_path_factory):
        settings, family, rows = _load_benchmark(str(benchmark_yaml))
        if not (force and done.exists()):
            images.build_benchmark_images(
                image_builder(), settings, family, rows, force=force, log=lambda _: None
            )
        if force:
            done.touch()
    return [family.normalize(row, settings).image for row in rows]


@pytest.fixture(scope="session")
def base_image(docker_engine: Any, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The base image (Debian 12, Python, pytest, git), built once if absent."""
    from pytest_swe.tools import images

    with _build_lock(tmp_path_factory):
        images.build_base(image_builder(), log=lambda _: None)
    return images.BASE_IMAGE


@pytest.fixture(scope="session")
def demo_images(docker_engine: Any, base_image: str, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Every demo image, built once if absent."""
    return build_local_images(docker_engine, tmp_path_factory, REPO / "benchmarks" / "demo.yaml")


def labelled_containers(client: Any, **labels: str) -> list[dict[str, Any]]:
    """Containers carrying the pytest-swe label (and these label values), as listed by the engine."""
    filters = ["pytest-swe"] + [f"pytest-swe.{k}={v}" for k, v in labels.items()]
    return client.api.containers(all=True, filters={"label": filters})


@dataclass
class SweRun:
    """A finished pytester run of pytest-swe, with its JUnit ledger read back."""

    result: pytest.RunResult
    junit: Path
    run_dir: Path
    cases: list[report.Case] = field(default_factory=list)
    suite: dict[str, str] = field(default_factory=dict)

    @property
    def by_id(self) -> dict[str, report.Case]:
        return {c.instance_id: c for c in self.cases}

    def outcomes(self) -> dict[str, str]:
        return {c.instance_id: c.outcome for c in self.cases}

    def ledger(self) -> list[dict[str, Any]]:
        path = self.run_dir / "ledger.jsonl"
        if not path.exists():
            return []
        return read_jsonl(path)

    def assert_bad_rows(self, expected: dict[str, tuple[str, str]]) -> None:
        """Each item of ``{instance_id: (row, field)}`` errored as a bad row whose message names both."""
        for instance_id, (row, field_name) in expected.items():
            case = self.by_id[instance_id]
            assert case.outcome == "error" and case.properties["error_kind"] == "bad_row"
            assert row in case.message and field_name in case.message


def write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> Path:
    """A dataset file: one JSON object a line."""
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


#: Libraries an in-process run may import. Pytester restores the module table when a test that ran
#: pytest in-process ends, so whatever the test imported first is dropped and imported again later:
#: a second copy beside objects of the first breaks (requests refuses the other copy's CookieJar,
#: pyarrow refuses to register an extension type twice).
#: Imported with this module, before any test, they stay one copy.
IN_PROCESS_PRELOAD = (
    "docker",
    "requests",
    "pyarrow",
    "pyarrow.parquet",
    "tenacity",
    "psutil",
)
for _name in IN_PROCESS_PRELOAD:
    if importlib.util.find_spec(_name.split(".")[0]) is not None:
        importlib.import_module(_name)


class SweProject:
    """A pytester project holding benchmark files; runs pytest on them as a user would."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.path = pytester.path
        (self.path / "benchmarks").mkdir(exist_ok=True)
        self.runs = 0

    def benchmark(self, name: str, body: str) -> Path:
        path = self.path / "benchmarks" / f"{name}.yaml"
        path.write_text(textwrap.dedent(body))
        return path

    def local(self, name: str, family: str, dataset: Path, extra: str = "") -> Path:
        """A benchmark of ``family`` over a local dataset (and its locally built images), in Docker.

        ``extra`` is more YAML, appended (a key given again there wins).
        """
        body = f"""\
            name: {name}
            family: {family}
            dataset: {{source: {dataset}, split: test}}
            agent: gold
            provider: docker
            timeouts: {{agent: 300, eval: 300}}
            limits: {{memory: 1g, cpus: 1, pids: 512}}
            """
        return self.benchmark(name, textwrap.dedent(body) + textwrap.dedent(extra))

    def variant(self, base: Path, name: str, rows: Iterable[Mapping[str, Any]]) -> Path:
        """A benchmark extending the benchmark file ``base``, over these rows instead of its dataset."""
        dataset = write_jsonl(self.path / f"{name}.jsonl", rows)
        return self.benchmark(name, f"extends: {base}\nname: {name}\ndataset: {{source: {dataset}}}\n")

    def demo(self, name: str = "demo", extra: str = "", dataset: Path = DEMO_JSONL) -> Path:
        """A benchmark over the repository's demo dataset (and its locally built images)."""
        return self.local(name, "swe-bench", dataset, "markers: [demo]\n" + textwrap.dedent(extra))

    def run(self, *args: str, timeout: float = 600, subprocess: bool | None = None) -> SweRun:
        """Run pytest on the project, in this process unless it needs a process of its own.

        A run with xdist workers (``-n``) is always a subprocess: the workers report to a controller
        process, and a worker killed on purpose must not take this one with it. Pass
        ``subprocess=True`` for what else a shared interpreter would change: modules that read the
        environment when imported, process identity (a sandbox's owner is the running pid), signals,
        an engine that stops mid-run. In-process runs share the interpreter and its imports, which is
        where most of a short run's time goes; ``timeout`` holds only for a subprocess.
        The child needs no property-based testing plugin: loading one only slows every run.
        """
        self.runs += 1
        junit = self.path / f"junit-{self.runs}.xml"
        run_dir = self.path / f"run-{self.runs}"
        argv = (*args, f"--junitxml={junit}", f"--swe-run-dir={run_dir}", "-p", "no:cacheprovider")
        if not any(a.startswith(("--swe-cache", "--swe-no-cache")) for a in args):
            # Each run its own verdict cache: a run shares verdicts only with runs that ask to.
            argv += (f"--swe-cache={self.path / f'verdict-cache-{self.runs}'}",)
        argv += ("-p", "no:hypothesispytest")
        if subprocess is None:
            subprocess = any(a == "-n" or a.startswith(("--numprocesses", "-n=")) for a in args)
        if subprocess:
            result = self.pytester.runpytest_subprocess(*argv, timeout=timeout)
        else:
            result = self.pytester.runpytest_inprocess(*argv)
        run = SweRun(result, junit, run_dir)
        if junit.exists():
            run.cases = report.read_cases(junit)
            run.suite = report.read_suite_properties(junit)
        return run


_verdicts_root = pytest.StashKey[Path]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_verdicts_root] = Path(tempfile.mkdtemp(prefix="pytest-swe-test-verdicts-"))


def pytest_unconfigure(config: pytest.Config) -> None:
    root = config.stash.get(_verdicts_root, None)
    if root is not None:
        shutil.rmtree(root, ignore_errors=True)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Every test its own default verdict cache, set before its fixtures (module-scoped ones too)
    run pytest, so no test replays another's verdicts and the suite's sandboxes really run."""
    if isinstance(item, pytest.Function):
        root = item.config.stash[_verdicts_root]
        os.environ["PYTEST_SWE_VERDICT_CACHE"] = tempfile.mkdtemp(dir=root)


@pytest.fixture
def swe_project(pytester: pytest.Pytester) -> Iterator[SweProject]:
    yield SweProject(pytester)


@pytest.fixture
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private pytest-swe cache (dataset indexes, downloads) for this test."""
    cache = tmp_path / "swe-cache"
    monkeypatch.setenv("PYTEST_SWE_CACHE", str(cache))
    return cache


def copy_demo_dataset(dest: Path) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(DEMO_JSONL, dest)
    return dest


def run_in_repo(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run pytest in the repository itself, as a user of its ``benchmarks/`` would."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", *args, "-p", "no:cacheprovider"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


def load_module(path: Path) -> ModuleType:
    """Import a script that is not part of a package (a benchmark's ``make_rows.py``)."""
    name = f"{path.parent.name}_{path.stem}".replace("-", "_").replace(".", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def benchmark_settings(family: str, **overrides: Any) -> BenchmarkSettings:
    """Settings of a benchmark of ``family`` (gold agent, Docker), for calling the family directly."""
    fields: dict[str, Any] = {
        "name": family,
        "family": family,
        "dataset": {"source": "rows.jsonl"},
        "agent": {"name": "gold"},
        "provider": {"name": "docker"},
    }
    return BenchmarkSettings(**{**fields, **overrides})


# --- the official swebench package, in its own venv ------------------------------------------------

OFFICIAL_VENVS = {
    # release -> (environment variable that overrides the venv, default venv directory)
    "5.0.2": ("PYTEST_SWE_OFFICIAL_VENV", REPO / ".venv-official"),
    "4.1.0": ("PYTEST_SWE_OFFICIAL_V4_VENV", REPO / ".venv-official-v4"),
}


def official_venv(release: str) -> Path:
    """Where the official ``release`` is installed: its environment variable, else beside the repository."""
    variable, default = OFFICIAL_VENVS[release]
    return Path(os.environ.get(variable) or default)


def official_python(release: str) -> Path:
    """The interpreter of the official ``release`` venv; fails the test in CI and skips it elsewhere
    when missing (``.ci/official-venv.sh`` makes the venvs)."""
    venv = official_venv(release)
    python = venv / "bin" / "python"
    if not python.is_file():
        variable, _ = OFFICIAL_VENVS[release]
        unavailable(
            f"the official swebench {release} venv is missing ({venv}); run .ci/official-venv.sh "
            f"(or point {variable} at one)"
        )
    return python


class JsonLinesDriver:
    """A long-lived driver process under another interpreter, answering one JSON line per request.

    The official package is imported only there, once (its imports take seconds): the tests
    compare its outputs with ours, never its code.
    """

    def __init__(self, python: Path, driver: Path, name: str) -> None:
        self.name = name
        self._process = subprocess.Popen(
            [str(python), str(driver)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        )

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        answer = self._process.stdout.readline()
        if not answer:
            raise RuntimeError(f"{self.name} exited ({self._process.poll()})")
        return json.loads(answer)

    def close(self) -> None:
        if self._process.stdin:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


# --- headless Chromium for the HTML report -------------------------------------------------------

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright (.ci/install-html.sh installs both); fails in CI
    when missing, skips elsewhere. Never a browser Playwright downloads."""
    if not CHROMIUM.is_file():
        unavailable(
            f"the HTML report's browser tests need {CHROMIUM} (Debian's chromium); run .ci/install-html.sh"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the HTML report's browser tests need playwright (pip install -e '.[dev]')")
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def screenshot_colours(browser: Any, png: bytes) -> int:
    """How many distinct colours a screenshot holds (sampled), counted by the browser's canvas:
    a blank or one-colour page has one or two."""
    import base64

    page = browser.new_page()
    try:
        return int(
            page.evaluate(
                """async (src) => {
                    const img = new Image(); img.src = src; await img.decode();
                    const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
                    const g = c.getContext('2d'); g.drawImage(img, 0, 0);
                    const d = g.getImageData(0, 0, c.width, c.height).data; const seen = new Set();
                    for (let i = 0; i < d.length; i += 4 * 7) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
                    return seen.size; }""",
                "data:image/png;base64," + base64.b64encode(png).decode(),
            )
        )
    finally:
        page.close()
