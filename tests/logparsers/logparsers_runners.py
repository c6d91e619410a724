"""Real test runners run on the sample projects under ``projects/``, producing the logs the
differential tests parse.

Each :class:`Runner` copies its project into a scratch directory, runs the runner the way the
official harness's eval scripts do (stdout and stderr in one stream, ``set -x`` where a parser
reads traced commands) and returns ``{log name: text}``. The tools come from
``.ci/install-runners.sh``: Debian packages, plus npm packages and a Python venv in a cache
directory outside the repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

PROJECTS = Path(__file__).resolve().with_name("projects")
FIXTURES = Path(__file__).resolve().with_name("fixtures")


def read_fixture(name: str) -> str:
    """A log kept in the repository, for runners that cannot run here (see fixtures/README.md)."""
    return (FIXTURES / name).read_text(encoding="utf-8")


def runners_cache() -> Path:
    """Where install-runners.sh keeps npm packages and the runner venv (outside the repository)."""
    override = os.environ.get("PYTEST_SWE_RUNNERS_CACHE")
    if override:
        return Path(override)
    cache_home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache_home / "pytest-swe" / "logparser-runners"


def runner_python() -> Path:
    return runners_cache() / "python" / "venv" / "bin" / "python"


def node_modules() -> Path:
    return runners_cache() / "node" / "node_modules"


def _installed_python_runners() -> str | None:
    wanted = (PROJECTS / "python-runners.txt").read_bytes()
    recorded = runners_cache() / "python" / "requirements.txt"
    if not runner_python().exists() or not recorded.exists() or recorded.read_bytes() != wanted:
        return f"runner venv missing or outdated at {runner_python().parent.parent}"
    return None


def _installed_node_packages() -> str | None:
    wanted = (PROJECTS / "node" / "package-lock.json").read_bytes()
    recorded = runners_cache() / "node" / "installed-package-lock.json"
    if not node_modules().is_dir() or not recorded.exists() or recorded.read_bytes() != wanted:
        return f"npm packages missing or outdated at {node_modules()}"
    return None


def _scrubbed_environment(**overrides: str) -> dict[str, str]:
    """The runner sees a plain environment: no pytest or xdist settings of the outer run, no colour hints."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "COV_", "FORCE_COLOR", "NO_COLOR", "CLICOLOR"))
    }
    env.update(LANG="C.UTF-8", LC_ALL="C.UTF-8", COLUMNS="100", TERM="dumb")
    env.update(overrides)
    return env


def run(command: str, cwd: Path, *, timeout: float = 300, **env: str) -> str:
    """Run a bash command, stdout and stderr in one stream as the harness captures them; return the text."""
    completed = subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=_scrubbed_environment(**env),
        timeout=timeout,
        check=False,
    )
    return completed.stdout.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class Runner:
    name: str
    project: str
    produce_logs: Callable[[Path], dict[str, str]]
    tools: tuple[str, ...] = ()
    checks: tuple[Callable[[], str | None], ...] = field(default=())

    def missing(self) -> list[str]:
        """What is not installed (empty when the runner can run)."""
        problems = [f"{tool} not on PATH" for tool in self.tools if shutil.which(tool) is None]
        problems += [problem for check in self.checks if (problem := check()) is not None]
        return problems


# --- Python ------------------------------------------------------------------------------------

_PYTEST_RUNS = {
    # plain -rA, as most SWE-bench Python repos run
    "rA": "-rA test_outcomes.py",
    # the older "--tb=no -p no:cacheprovider" variant of the same command
    "rA_no_traceback": "-rA --tb=no test_outcomes.py",
    # astropy's command: verbose lines end with the status word (the "older" form of pytest_v2)
    "classic_verbose": "-rA -vv -o console_output_style=classic --tb=no test_outcomes.py",
    # verbose progress lines "id PASSED [ 5%]" (seaborn reads those)
    "verbose": "-rA -v test_outcomes.py",
    # ANSI colours in every line (pytest_v2 strips them, the others do not)
    "colour": "-rA -v --color=yes test_outcomes.py",
    # a module that fails to import stops the session
    "collection_error": "-rA",
    "collection_error_continued": "-rA --continue-on-collection-errors",
}


def _pytest_logs(python: str) -> Callable[[Path], dict[str, str]]:
    def produce(work: Path) -> dict[str, str]:
        return {
            name: run(
                f"{python} -m pytest -p no:cacheprovider {arguments}",
                work,
                PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
            )
            for name, arguments in _PYTEST_RUNS.items()
        }

    return produce


def _django_logs(work: Path) -> dict[str, str]:
    command = f"{runner_python()} runtests.py demo_app --verbosity 2 --settings=test_sqlite --parallel 1"
    return {"runtests": run(command, work)}


def _sympy_logs(work: Path) -> dict[str, str]:
    return {"bin_test": run(f"{runner_python()} run_tests.py", work)}


# --- Go, Rust -----------------------------------------------------------------------------------


def _go_logs(work: Path) -> dict[str, str]:
    # The module cache and build cache stay inside the scratch directory; the sample has no dependencies.
    env = {"GOCACHE": str(work / ".gocache"), "GOPATH": str(work / ".gopath"), "GOFLAGS": "-mod=mod"}
    return {
        "verbose": run("go test -v ./...", work, **env),
        # a -run filter as SWE-bench's Go instances use, on one package
        "filtered": run('go test -v ./calc -run "^TestTable|^TestNested"', work, **env),
    }


def _cargo_logs(work: Path) -> dict[str, str]:
    env = {"CARGO_TARGET_DIR": str(work / "target"), "CARGO_TERM_COLOR": "never"}
    return {
        "all_targets": run("cargo test --offline --no-fail-fast", work, **env),
        "one_thread": run("cargo test --offline --lib -- --test-threads=1 --include-ignored", work, **env),
    }


# --- Java ------------------------------------------------------------------------------------------

# Debian's Maven plugins in /usr/share/maven-repo, offline: the runs need no network.
_MAVEN = "mvn -o -B -Dmaven.repo.local=/usr/share/maven-repo -Dsurefire.failIfNoSpecifiedTests=false"


def _maven_logs(work: Path) -> dict[str, str]:
    env = {"MAVEN_OPTS": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}  # halves the JVM's start-up
    one_test_per_run = "\n".join(
        f"{_MAVEN} test -Dtest=demo.CalculatorTest#{method}"
        for method in ("addsNumbers", "failsWithMultilineMessage", "divisionByZeroErrors")
    )
    return {
        # traced with set -x: the parser takes each test's name from its command line
        "per_test": run(f"set -x\n{one_test_per_run}", work, **env),
        # two runs at once: both commands are traced before either result is printed
        "concurrent": run(
            "set -x\n"
            f"{_MAVEN} test -Dtest=demo.CalculatorTest#addsNumbers &\n"
            f"{_MAVEN} test -Dtest=demo.CalculatorTest#failsWithMultilineMessage &\n"
            "wait",
            work,
            **env,
        ),
    }


def _ant_logs(work: Path) -> dict[str, str]:
    return {"test_instance": run("ant test.instance", work)}


# --- PHP, Ruby -------------------------------------------------------------------------------------


def _phpunit_logs(work: Path) -> dict[str, str]:
    return {"testdox": run("phpunit --testdox --colors=never tests", work)}


# jq filters that flatten RSpec's JSON report, in the three shapes SWE-bench's Ruby instances use:
# "<description> - <id> - <status>", "<description> - <status>", and one line per description
# that fails when any example of that description failed.
_RSPEC_WITH_IDS = r"""jq -r '.examples[] | "\(.description) - \(.id) - \(.status)"'"""
_RSPEC_PLAIN = r"""jq -r '.examples[] | "\(.description) - \(.status)"'"""
_RSPEC_GROUPED = (
    r"""jq -r '.examples | group_by(.description)[] | """
    r"""(if any(.status == "failed") then "failed" else .[0].status end) as $s | """
    r""""\(.[0].description) - \($s)"'"""
)


def _ruby_logs(work: Path) -> dict[str, str]:
    rspec = "rspec --no-color --format json spec"
    return {
        "minitest": run("ruby -Itest test/test_site_minitest.rb -v --seed 1", work),
        "test_unit": run("ruby test/test_unit_sample.rb -v", work),
        "rspec_with_ids": run(f"{rspec} | {_RSPEC_WITH_IDS}", work),
        "rspec_plain": run(f"{rspec} | sed -n '/^{{/,$p' | {_RSPEC_PLAIN}", work),
        "rspec_grouped": run(f"{rspec} | {_RSPEC_GROUPED}", work),
    }


# --- C and C++ -------------------------------------------------------------------------------------


def _googletest_logs(work: Path) -> dict[str, str]:
    build = run("cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug && cmake --build build -j2", work)
    if not (work / "build" / "format-test").exists():
        raise RuntimeError(f"googletest sample did not build:\n{build[-3000:]}")
    return {
        "ctest_verbose": run("ctest --test-dir build -V -R format-test", work),
        "binary": run("./build/format-test", work),
    }


def _doctest_logs(work: Path) -> dict[str, str]:
    build = run("g++ -std=c++17 -O0 -o test-sample test.cpp", work)
    if not (work / "test-sample").exists():
        raise RuntimeError(f"doctest sample did not build:\n{build[-3000:]}")
    return {"xml": run("./test-sample -s -r=xml", work), "console": run("./test-sample -s", work)}


def _automake_logs(work: Path) -> dict[str, str]:
    configure = run("autoreconf -fi && ./configure", work)
    if not (work / "Makefile").exists():
        raise RuntimeError(f"automake sample did not configure:\n{configure[-3000:]}")
    return {"make_check": run("make check", work), "make_check_verbose": run("make check VERBOSE=yes", work)}


# --- JavaScript ------------------------------------------------------------------------------------

_JEST_JSON_TO_LINES = (
    r"""jq -r '.testResults[].assertionResults[] | "[" + (.status | ascii_upcase) + "] " + """
    r"""((.ancestorTitles + [.title]) | join(" > "))'"""
)


def _node_workspace(work: Path) -> dict[str, str]:
    """Link the cached node_modules into the scratch copy; the environment the runs share."""
    (work / "node_modules").symlink_to(node_modules())
    return {"PATH": f"{work / 'node_modules' / '.bin'}:{os.environ.get('PATH', '')}", "CI": "true"}


_NODE_BIN = "./node_modules/.bin"


def _jest_vitest_logs(work: Path) -> dict[str, str]:
    env = _node_workspace(work)
    jest = f"{_NODE_BIN}/jest --rootDir jest"
    vitest = f"{_NODE_BIN}/vitest run --root vitest --reporter=verbose"
    return {
        # traced: wp-calypso's parser splits the log at each traced jest command
        "jest_verbose": run(f"set -x\n{jest} --verbose", work, **env),
        "jest_files": run(jest, work, **env),
        "jest_files_timed": run(f"{jest} --config '{{\"slowTestThreshold\": 0}}'", work, **env),
        "jest_json": run(f"{jest} --json | {_JEST_JSON_TO_LINES}", work, **env),
        "vitest_verbose": run(vitest, work, NO_COLOR="1", **env),
        "vitest_colour": run(vitest, work, FORCE_COLOR="1", **env),
    }


def _mocha_and_friends_logs(work: Path) -> dict[str, str]:
    env = _node_workspace(work)
    mocha = f"{_NODE_BIN}/mocha"
    return {
        "mocha_spec": run(f"{mocha} mocha/calc.spec.js", work, **env),
        "mocha_tap": run(f"{mocha} -R tap mocha/calc.spec.js", work, **env),
        # p5.js's parser reads only the numbered failure list, which the dot reporter prints alone
        "mocha_dot": run(f"{mocha} --reporter dot mocha/calc.spec.js", work, **env),
        # traced: lighthouse's and PrismJS's parsers find the JSON report after the traced command
        "mocha_json": run(f"set -x\n{mocha} --reporter json mocha/calc.spec.js", work, **env),
        "mocha_run_js_json": run(f"set -x\n{mocha} tests/run.js --reporter json", work, **env),
        "mocha_wrapper": run("node mocha/run-mocha-tests.js", work, **env),
        "qunit_tap": run(f"{_NODE_BIN}/qunit qunit/calc.test.js", work, **env),
        "jasmine": run(
            f"{_NODE_BIN}/jasmine --no-color --config=jasmine/spec/support/jasmine.json", work, **env
        ),
        "karma_jsdom": run(f"{_NODE_BIN}/karma start karma/karma.jsdom.conf.js", work, **env),
        "deno": run(f"{_NODE_BIN}/deno test deno/", work, DENO_DIR=str(work / ".deno"), **env),
    }


def _karma_chrome_logs(work: Path) -> dict[str, str]:
    env = {**_node_workspace(work), "CHROME_BIN": "/usr/bin/chromium"}
    karma = f"{_NODE_BIN}/karma start karma/karma.chrome.conf.js"
    return {
        # a headed Chrome under xvfb-run (traced), as Chart.js and alibaba-fusion/next run it
        "headed": run(
            f"set -x\nxvfb-run -a {karma}",
            work,
            KARMA_BROWSER="ChromeNoSandbox",
            KARMA_REPORTERS="progress,spec",
            **env,
        ),
        "headless": run(karma, work, KARMA_BROWSER="ChromeHeadlessNoSandbox", **env),
    }


RUNNERS: dict[str, Runner] = {}


def _register(*runners: Runner) -> None:
    for runner in runners:
        RUNNERS[runner.name] = runner


_register(
    Runner("pytest", "pytest", _pytest_logs(sys.executable)),
    Runner("pytest7", "pytest", _pytest_logs(str(runner_python())), checks=(_installed_python_runners,)),
    Runner("django", "django", _django_logs, checks=(_installed_python_runners,)),
    Runner("sympy", "sympy", _sympy_logs, checks=(_installed_python_runners,)),
    Runner("go", "go", _go_logs, tools=("go",)),
    Runner("cargo", "cargo", _cargo_logs, tools=("cargo",)),
    Runner("maven", "maven", _maven_logs, tools=("mvn", "java")),
    Runner("ant", "ant", _ant_logs, tools=("ant", "javac")),
    Runner("phpunit", "phpunit", _phpunit_logs, tools=("phpunit",)),
    Runner("ruby", "ruby", _ruby_logs, tools=("ruby", "rspec", "jq")),
    Runner("googletest", "googletest", _googletest_logs, tools=("cmake", "ctest", "g++")),
    Runner("doctest", "doctest", _doctest_logs, tools=("g++",)),
    Runner("automake", "automake", _automake_logs, tools=("autoreconf", "make")),
    Runner("jest", "node", _jest_vitest_logs, tools=("node", "jq"), checks=(_installed_node_packages,)),
    Runner("mocha", "node", _mocha_and_friends_logs, tools=("node",), checks=(_installed_node_packages,)),
    Runner(
        "karma_chrome",
        "node",
        _karma_chrome_logs,
        tools=("node", "chromium", "xvfb-run"),
        checks=(_installed_node_packages,),
    ),
)
