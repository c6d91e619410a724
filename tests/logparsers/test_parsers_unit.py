"""Our parsers alone: behaviour on tricky lines, the registry, and repository selection.

The expected maps in :mod:`tricky_lines` are what the official parsers answer (checked in
``test_differential`` when the official venvs exist), so these tests pin official behaviour
even on a machine without the official package.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from pytest_swe.api.verdict import TestStatus
from pytest_swe.families.logparsers import DEFAULT_HARNESS_VERSION
from pytest_swe.families.logparsers import HARNESS_VERSIONS
from pytest_swe.families.logparsers import PARSERS
from pytest_swe.families.logparsers import LogParseError
from pytest_swe.families.logparsers import ParseContext
from pytest_swe.families.logparsers import UnknownParserError
from pytest_swe.families.logparsers import check_parser
from pytest_swe.families.logparsers import get_parser
from pytest_swe.families.logparsers import parse_log
from pytest_swe.families.logparsers import parser_name_for_repo
from pytest_swe.families.logparsers import parsers_for
from pytest_swe.families.logparsers import strip_ansi

from .tricky_lines import TRICKY
from .tricky_lines import Tricky


@pytest.mark.parametrize("case", TRICKY, ids=lambda case: f"{case.parser}-{case.release}-{case.why[:40]}")
def test_tricky_lines(case: Tricky) -> None:
    parser = get_parser(case.parser, harness_version=case.release)
    if case.expected is None:
        with pytest.raises(LogParseError):
            parser(case.log, case.ctx)
    else:
        assert parser(case.log, case.ctx) == case.expected


def test_every_parser_has_a_tricky_case() -> None:
    pinned = {case.parser for case in TRICKY}
    aliases = {name for name, parser in PARSERS.items() if any(PARSERS[other] is parser for other in pinned)}
    assert sorted(set(PARSERS) - pinned - aliases) == []


def test_statuses_are_test_status_values() -> None:
    log = "PASSED a\nFAILED b - x\nSKIPPED c\nERROR d\nXFAIL e - y\n"
    assert set(parse_log("parse_log_pytest", log).values()) == {status.value for status in TestStatus}


# --- registry ---------------------------------------------------------------------------------------


def test_registry_has_the_57_official_names() -> None:
    assert len(PARSERS) == 57
    assert all(name.startswith("parse_log_") for name in PARSERS)
    assert {"parse_log_pytest", "parse_log_pytest_options", "parse_log_pytest_v2"} <= set(PARSERS)


def test_registry_is_read_only() -> None:
    with pytest.raises(TypeError):
        PARSERS["parse_log_mine"] = PARSERS["parse_log_pytest"]  # type: ignore[index]


def test_per_repo_names_share_their_reader() -> None:
    assert PARSERS["parse_log_flask"] is PARSERS["parse_log_pytest"]
    assert PARSERS["parse_log_requests"] is PARSERS["parse_log_pytest_options"]
    assert PARSERS["parse_log_sphinx"] is PARSERS["parse_log_pytest_v2"]


def test_unknown_parser_names_itself_and_close_names() -> None:
    with pytest.raises(UnknownParserError) as raised:
        get_parser("parse_log_pytst")
    assert isinstance(raised.value, KeyError)
    message = str(raised.value)
    assert "'parse_log_pytst'" in message
    assert "parse_log_pytest" in raised.value.suggestions
    assert "did you mean" in message


def test_unknown_parser_suggests_the_prefixed_name() -> None:
    with pytest.raises(UnknownParserError) as raised:
        get_parser("gotest")
    assert raised.value.suggestions[0] == "parse_log_gotest"


def test_unknown_parser_without_close_names() -> None:
    with pytest.raises(UnknownParserError) as raised:
        get_parser("zzzzzzzz")
    assert raised.value.suggestions == []
    assert "did you mean" not in str(raised.value)


def test_check_parser_knows_every_registered_name_and_only_those() -> None:
    for name in PARSERS:
        check_parser(name)
    with pytest.raises(UnknownParserError) as raised:
        check_parser("parse_log_gotst")
    assert raised.value.suggestions[0] == "parse_log_gotest"


def test_a_python_parser_name_is_checked_without_the_other_languages() -> None:
    code = (
        "import sys\n"
        "from pytest_swe.families.logparsers import check_parser\n"
        "check_parser('parse_log_pytest')\n"
        "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('pytest_swe.families.logparsers.')))\n"
        "check_parser('parse_log_gotest')\n"
        "print('pytest_swe.families.logparsers.go' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[:2] == ["['base', 'python', 'repos']", "True"]


def test_parse_log_defaults_the_context() -> None:
    assert parse_log("parse_log_gotest", "--- PASS: TestA (0.00s)") == {"TestA": "PASSED"}


def test_harness_versions() -> None:
    assert DEFAULT_HARNESS_VERSION == HARNESS_VERSIONS[0] == "5.0.2"
    assert set(parsers_for("4.1.0")) == set(PARSERS)
    assert parsers_for("5.0.2") is PARSERS
    with pytest.raises(ValueError, match=r"4\.1\.0"):
        parsers_for("3.0")


def test_releases_differ_only_where_the_official_readers_changed() -> None:
    changed = {name for name in PARSERS if parsers_for("4.1.0")[name] is not PARSERS[name]}
    assert changed == {
        "parse_log_pytest",
        "parse_log_astroid",
        "parse_log_flask",
        "parse_log_marshmallow",
        "parse_log_pvlib",
        "parse_log_pyvista",
        "parse_log_sqlfluff",
        "parse_log_xarray",
        "parse_log_pytest_options",
        "parse_log_pydicom",
        "parse_log_requests",
        "parse_log_pylint",
        "parse_log_pytest_v2",
        "parse_log_astropy",
        "parse_log_scikit",
        "parse_log_sphinx",
        "parse_log_matplotlib",
        "parse_log_seaborn",
        "parse_log_maven",
        "parse_log_gradle_custom",
        "parse_log_jest",
        "parse_log_immutable_js",
    }


def test_strip_ansi_removes_colour_and_cursor_sequences() -> None:
    assert strip_ansi("\x1b[1A\x1b[2K\x1b[32mok\x1b[0m\x1bM") == "ok"
    # a character-set designation is neither CSI nor a one-byte escape: the official pattern keeps it
    assert strip_ansi("\x1b(Bok") == "\x1b(Bok"


# --- repository selection ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("repo", "parser"),
    [
        ("django/django", "parse_log_django"),
        ("sympy/sympy", "parse_log_sympy"),
        ("pylint-dev/astroid", "parse_log_pytest"),
        ("astropy/astropy", "parse_log_pytest_v2"),
        ("psf/requests", "parse_log_pytest_options"),
        ("valkey-io/valkey", "parse_log_redis"),
        ("projectlombok/lombok", "parse_log_ant"),
        ("immutable-js/immutable-js", "parse_log_immutable_js"),
        ("prettier/prettier", "parse_log_carbon"),
        ("alibaba-fusion/next", "parse_log_next"),
    ],
)
def test_parser_for_repo(repo: str, parser: str) -> None:
    assert parser_name_for_repo(repo) == parser
    assert parser in PARSERS


def test_parser_for_repo_ignores_case_and_knows_no_other_repo() -> None:
    assert parser_name_for_repo("Django/Django") == "parse_log_django"
    assert parser_name_for_repo("automattic/WP-Calypso") == "parse_log_calypso"
    assert parser_name_for_repo("nobody/nothing") is None
    assert parser_name_for_repo("cypress-io/cypress") is None  # 5.x keeps its parser unregistered


def test_context_is_immutable() -> None:
    ctx = ParseContext(instance_id="a__b-1")
    with pytest.raises(AttributeError):
        ctx.instance_id = "other"  # type: ignore[misc]
