"""Differential tests: on real runner logs, our parsers and the official ones give the same maps.

Every log comes from a real runner run on a sample project at test time (see
``logparsers_runners``), except for the few runners that cannot run on this machine, whose
logs are fixture files in the runner's documented format (``fixtures/README.md`` says which
and why). The official parsers answer from their own virtual environments (5.0.2 and 4.1.0);
without them these tests skip, or fail when ``CI=true``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field

import pytest

from pytest_swe.families.logparsers import PARSERS
from pytest_swe.families.logparsers import ParseContext
from pytest_swe.families.logparsers import parser_name_for_repo

from .logparsers_official import OfficialParsers
from .logparsers_official import compare
from .logparsers_official import our_outcome
from .logparsers_runners import read_fixture
from .tricky_lines import TRICKY
from .tricky_lines import Tricky

CURRENT, RELEASE_4_1 = "5.0.2", "4.1.0"

# Parsers 4.1.0 does not have (SWE-bench Multimodal's JavaScript repositories came with 5.x).
ONLY_IN_5 = frozenset(
    {
        "parse_log_bpmn_js",
        "parse_log_carbon",
        "parse_log_eslint",
        "parse_log_grommet",
        "parse_log_highlightjs",
        "parse_log_lighthouse",
        "parse_log_next",
        "parse_log_openlayers",
        "parse_log_prismjs",
        "parse_log_quarto_cli",
    }
)


@dataclass(frozen=True)
class Case:
    """One parser on one log: ``runner/log`` from a real run, or ``fixture:<file>``."""

    parser: str
    source: str
    ctx: ParseContext = field(default_factory=ParseContext)
    may_be_empty: bool = False
    """The official parser legitimately finds no test in this log (checked to stay empty)."""

    def log(self, runner_logs: Callable[[str], dict[str, str]]) -> str:
        if self.source.startswith("fixture:"):
            return read_fixture(self.source.removeprefix("fixture:"))
        runner, name = self.source.split("/", 1)
        return runner_logs(runner)[name]

    @property
    def id(self) -> str:
        suffix = (
            f"@{self.ctx.instance_id or self.ctx.version}"
            if (self.ctx.instance_id or self.ctx.version)
            else ""
        )
        return f"{self.parser}:{self.source}{suffix}"


PYTEST_LOGS = (
    "rA",
    "rA_no_traceback",
    "classic_verbose",
    "verbose",
    "colour",
    "collection_error",
    "collection_error_continued",
)
PYTEST_READERS = (
    "parse_log_pytest",
    "parse_log_pytest_options",
    "parse_log_pytest_v2",
    "parse_log_matplotlib",
    "parse_log_seaborn",
)
PYTEST_ALIASES = (
    "parse_log_astroid",
    "parse_log_flask",
    "parse_log_marshmallow",
    "parse_log_pvlib",
    "parse_log_pyvista",
    "parse_log_sqlfluff",
    "parse_log_xarray",
    "parse_log_pydicom",
    "parse_log_requests",
    "parse_log_pylint",
    "parse_log_astropy",
    "parse_log_scikit",
    "parse_log_sphinx",
)


def _at(instance_id: str = "", version: str = "") -> ParseContext:
    return ParseContext(instance_id=instance_id, version=version)


CASES: list[Case] = [
    # Python
    *(
        Case(parser, f"{runner}/{log}", may_be_empty=parser == "parse_log_seaborn" and "collection" in log)
        for runner in ("pytest", "pytest7")
        for parser in PYTEST_READERS
        for log in PYTEST_LOGS
    ),
    *(
        Case(parser, f"pytest/{log}")
        for parser in PYTEST_ALIASES
        for log in ("rA", "classic_verbose", "colour")
    ),
    Case("parse_log_django", "django/runtests"),
    Case("parse_log_sympy", "sympy/bin_test"),
    # Go, Rust
    Case("parse_log_gotest", "go/verbose"),
    Case("parse_log_gotest", "go/filtered"),
    Case("parse_log_cargo", "cargo/all_targets"),
    Case("parse_log_cargo", "cargo/one_thread"),
    # Java
    Case("parse_log_maven", "maven/per_test"),
    Case("parse_log_maven", "maven/concurrent"),
    Case("parse_log_ant", "ant/test_instance"),
    Case("parse_log_gradle_custom", "fixture:gradle_test_logging.log"),
    # PHP
    Case("parse_log_phpunit", "phpunit/testdox"),
    # Ruby
    Case("parse_log_minitest", "ruby/minitest"),
    Case("parse_log_ruby_unit", "ruby/test_unit"),
    Case("parse_log_rspec_transformed_json", "ruby/rspec_with_ids"),
    Case("parse_log_rspec_transformed_json", "ruby/rspec_plain"),
    Case("parse_log_rspec_transformed_json", "ruby/rspec_grouped"),
    Case("parse_log_cucumber", "fixture:cucumber_jekyll_progress.log"),
    Case("parse_log_jekyll", "ruby/minitest", _at("jekyll__jekyll-9141")),
    Case("parse_log_jekyll", "fixture:cucumber_jekyll_progress.log", _at("jekyll__jekyll-8761")),
    Case("parse_log_jekyll", "ruby/minitest", _at("jekyll__jekyll-1234")),  # no known runner: both raise
    # C and C++
    Case("parse_log_redis", "fixture:redis_runtest.log"),
    Case("parse_log_jq", "automake/make_check"),
    Case("parse_log_jq", "automake/make_check_verbose"),
    Case("parse_log_doctest", "doctest/xml"),
    Case("parse_log_doctest", "doctest/console", may_be_empty=True),
    Case("parse_log_micropython_test", "fixture:micropython_run_tests.log"),
    Case("parse_log_googletest", "googletest/ctest_verbose"),
    Case("parse_log_googletest", "googletest/binary"),
    # JavaScript: generic runners
    Case("parse_log_jest", "jest/jest_verbose"),
    Case("parse_log_jest_json", "jest/jest_json"),
    Case("parse_log_vitest", "jest/vitest_verbose"),
    Case("parse_log_vitest", "jest/vitest_colour", may_be_empty=True),
    Case("parse_log_karma", "mocha/karma_jsdom"),
    Case("parse_log_tap", "mocha/mocha_tap"),
    Case("parse_log_tap", "mocha/qunit_tap"),
    Case("parse_log_immutable_js", "jest/jest_verbose", _at("immutable-js__immutable-js-2006")),
    Case("parse_log_immutable_js", "jest/jest_json", _at("immutable-js__immutable-js-2005")),
    Case("parse_log_immutable_js", "jest/jest_json", _at("immutable-js__immutable-js-1999")),
    # JavaScript: repository readers
    Case("parse_log_calypso", "jest/jest_verbose"),
    Case("parse_log_chart_js", "karma_chrome/headed"),
    Case("parse_log_marked", "mocha/jasmine"),
    Case("parse_log_p5js", "mocha/mocha_dot"),
    Case("parse_log_p5js", "mocha/mocha_spec", may_be_empty=True),
    *(
        Case(parser, f"jest/{log}")
        for parser in ("parse_log_react_pdf", "parse_log_carbon", "parse_log_grommet")
        for log in ("jest_files", "jest_files_timed")
    ),
    Case("parse_log_bpmn_js", "fixture:karma_phantomjs_and_older_chrome.log"),
    Case("parse_log_bpmn_js", "karma_chrome/headless", may_be_empty=True),
    Case("parse_log_eslint", "mocha/mocha_spec"),
    Case("parse_log_highlightjs", "mocha/mocha_spec"),
    Case("parse_log_lighthouse", "mocha/mocha_wrapper", _at(version="10.0")),
    Case("parse_log_lighthouse", "jest/jest_files_timed", _at(version="11.0")),
    Case("parse_log_lighthouse", "mocha/mocha_json", _at(version="2.9")),
    Case("parse_log_lighthouse", "mocha/mocha_json", _at(version="")),  # not a number: both raise
    Case("parse_log_next", "karma_chrome/headed", _at(version="1.0")),
    Case("parse_log_next", "fixture:cypress_run.log", _at(version="1.27")),
    Case("parse_log_openlayers", "karma_chrome/headless"),
    Case("parse_log_openlayers", "karma_chrome/headed"),
    Case("parse_log_openlayers", "mocha/mocha_spec"),
    Case("parse_log_prismjs", "mocha/mocha_run_js_json"),
    Case("parse_log_quarto_cli", "mocha/deno"),
]


def _params() -> list:
    return [
        pytest.param(case, release, id=f"{case.id}-{release}")
        for case in CASES
        for release in (CURRENT, RELEASE_4_1)
        if not (release == RELEASE_4_1 and case.parser in ONLY_IN_5)
    ]


@pytest.mark.parametrize(("case", "release"), _params())
def test_same_status_map_as_official(
    case: Case,
    release: str,
    runner_logs: Callable[[str], dict[str, str]],
    official: Callable[[str], OfficialParsers],
) -> None:
    log = case.log(runner_logs)
    theirs = official(release).parse(case.parser, log, case.ctx)
    ours = our_outcome(case.parser, log, case.ctx, release)
    difference = compare(ours, theirs)
    assert difference is None, f"{case.id} under {release}: {difference}"
    if not case.may_be_empty:
        assert theirs.raised or theirs.statuses, f"the official parser found no test in {case.source}"


def test_every_parser_has_a_differential_case() -> None:
    covered = {case.parser for case in CASES}
    assert sorted(set(PARSERS) - covered) == []


def test_names_match_the_official_registry(official: Callable[[str], OfficialParsers]) -> None:
    assert sorted(PARSERS) == official(CURRENT).names()


def test_release_4_1_has_every_name_but_the_multimodal_ones(
    official: Callable[[str], OfficialParsers],
) -> None:
    assert sorted(set(PARSERS) - ONLY_IN_5) == sorted(set(official(RELEASE_4_1).names()) & set(PARSERS))


def test_repo_selection_matches_release_4_1(official: Callable[[str], OfficialParsers]) -> None:
    table = official(RELEASE_4_1).repo_map()
    assert len(table) == 64
    assert {repo: parser_name_for_repo(repo) for repo in table} == {
        repo: names[0] for repo, names in table.items()
    }


def test_repo_selection_of_5_x_tables_names_the_same_parser(
    official: Callable[[str], OfficialParsers],
) -> None:
    """5.x's per-language tables also cover the Multimodal JavaScript repos; where such a
    repo's parser is registered, our choice is one of its registered names."""
    for repo, registered_names in official(CURRENT).repo_map().items():
        chosen = parser_name_for_repo(repo)
        if registered_names:
            assert chosen in registered_names, repo
        else:  # cypress, emotion, plotly: parsers 5.x keeps in a table but does not register
            assert chosen is None, repo


# Contexts under which a parser that depends on the row reads a log at all.
_READING_CONTEXT = {
    "parse_log_immutable_js": _at("immutable-js__immutable-js-2006"),
    "parse_log_jekyll": _at("jekyll__jekyll-9141"),
    "parse_log_lighthouse": _at(version="10.0"),
    "parse_log_next": _at(version="1.0"),
}
ALL_SOURCES = sorted({case.source for case in CASES})
FIXTURES = "fixtures"
#: Log sources by where they come from: a runner's name, or ``fixtures`` for the logs kept as files.
SOURCES_BY_ORIGIN: dict[str, list[str]] = {}
for _source in ALL_SOURCES:
    SOURCES_BY_ORIGIN.setdefault(
        FIXTURES if _source.startswith("fixture:") else _source.split("/", 1)[0], []
    ).append(_source)


@pytest.mark.parametrize(
    ("origin", "release"),
    [
        pytest.param(origin, release, id=f"{origin}-{release}")
        for origin in sorted(SOURCES_BY_ORIGIN)
        for release in (CURRENT, RELEASE_4_1)
    ],
)
def test_every_parser_agrees_with_official_on_these_logs(
    origin: str,
    release: str,
    runner_logs: Callable[[str], dict[str, str]],
    official: Callable[[str], OfficialParsers],
) -> None:
    """Every parser on each log of one runner (or the fixture logs), not only on its own runner's:
    same map or both raise, under the default context and each context a case gives it for that
    log. A runner that is not installed skips this test with its reason (fails in CI). Nothing
    passes vacuously: each log a case expects to hold tests gives some official parser tests."""
    parsers = sorted(p for p in PARSERS if not (release == RELEASE_4_1 and p in ONLY_IN_5))
    differences, unread = [], []
    for source in SOURCES_BY_ORIGIN[origin]:
        log = Case(parsers[0], source).log(runner_logs)
        assert log.strip(), f"{source} is an empty log"
        cases = [c for c in CASES if c.source == source and c.parser in parsers]
        found: set[str] = set()
        for parser in parsers:
            own = [c.ctx for c in cases if c.parser == parser]
            contexts = dict.fromkeys([_READING_CONTEXT.get(parser, ParseContext()), *own])
            for ctx in contexts:
                theirs = official(release).parse(parser, log, ctx)
                difference = compare(our_outcome(parser, log, ctx, release), theirs)
                if difference:
                    differences.append(f"{parser} on {source} ({ctx}): {difference}")
                found |= set(theirs.statuses or ())
        if not found and any(not c.may_be_empty for c in cases):
            unread.append(source)
    assert differences == []
    assert unread == [], "no official parser finds a test in these logs"


@pytest.mark.parametrize("case", TRICKY, ids=lambda case: f"{case.parser}-{case.release}-{case.why[:40]}")
def test_tricky_expectations_are_the_official_answers(
    case: Tricky, official: Callable[[str], OfficialParsers]
) -> None:
    """The maps pinned in tricky_lines (and checked against our parsers offline) are official behaviour."""
    theirs = official(case.release).parse(case.parser, case.log, case.ctx)
    if case.expected is None:
        assert theirs.raised, theirs
    else:
        assert theirs.statuses == case.expected
