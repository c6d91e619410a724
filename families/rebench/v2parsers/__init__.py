"""SWE-rebench V2's own log readers, for rows of the ``swe-rebench-v2`` family only.

V2 rows name their parser in ``install_config.log_parser``. About half of the names exist only in
V2 (Elixir, Haskell, Dart, OCaml, Julia, R, Scala, Swift, C#, ...); a few share a name with an
official SWE-bench parser but read the log differently in V2 (pytest's skip-count lines, Maven's
selector pairing, Gradle and react-pdf timing suffixes, PHPUnit timing, Jest title whitespace).
Both kinds are here, keyed by V2's name. Names V2 reads exactly as SWE-bench 5.0.2 does are left
to :mod:`pytest_swe.families.logparsers`.

Each reader reproduces V2's status map for a whole eval log (V2 logs have no markers): the same
test names, the same status words (``PASSED``, ``FAILED``, ``SKIPPED``, ``ERROR``, and whatever
word a pytest summary line starts with), the same precedence when a test is reported twice.
Where V2's reader stops with an exception on a log, these raise
:class:`~pytest_swe.families.logparsers.LogParseError`, so the row is graded as unresolved, as V2
grades a row whose parser fails. Line-oriented readers are tables of :class:`Rule` run by one
:class:`LineReader`; JUnit XML, Maven summaries, mocha-style titles and pytest lines each have one
shared scanner.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .base import V2Parser
from .c import parse_log_cpp_v2
from .c import parse_log_cpp_v3
from .c import parse_log_cpp_v4
from .dart import parse_log_dart
from .dart import parse_log_dart_v2
from .dart import parse_log_dart_v3
from .dotnet_swift import parse_log_csharp
from .dotnet_swift import parse_log_swift
from .haskell import parse_log_haskell
from .haskell import parse_log_haskell_v2
from .javascript import parse_log_jest
from .javascript import parse_log_js
from .javascript import parse_log_js_2
from .javascript import parse_log_js_3
from .javascript import parse_log_js_4
from .javascript import parse_log_npx
from .javascript import parse_log_react_pdf
from .javascript import strip_js_duration
from .julia import parse_log_julia
from .junit import parse_combined_test_reports
from .junit import parse_log_gradlew_v1
from .junit import parse_log_junit
from .junit import parse_logs_r_junit
from .jvm import MAVEN_NO_TEST_YET
from .jvm import parse_java_mvn
from .jvm import parse_java_mvn_v2
from .jvm import parse_log_gradle_custom
from .jvm import parse_log_lein
from .jvm import parse_log_maven
from .jvm import parse_log_scala
from .jvm import parse_log_scala_v2
from .jvm import parse_log_scala_v3
from .jvm import parse_logs_kotlin_junit
from .lua import parse_lue_nvim
from .ocaml import parse_log_ocaml
from .ocaml import parse_log_ocaml_v2
from .ocaml import parse_log_ocaml_v3
from .ocaml import parse_log_ocaml_v4
from .php import parse_log_php_v1
from .php import parse_log_phpunit
from .python import parse_log_cpp
from .python import parse_log_pytest
from .python import parse_log_pytest_nebo
from .python import parse_log_pytest_options
from .python import parse_log_pytest_v2
from .r import parse_log_r
from .r import parse_log_r_v2
from .ruby import parse_log_elixir
from .ruby import parse_log_ruby_v1
from .ruby import parse_log_ruby_v2

__all__ = [
    "MAVEN_NO_TEST_YET",
    "V2_ONLY_NAMES",
    "V2_PARSERS",
    "V2_VARIANT_NAMES",
    "V2Parser",
    "parse_combined_test_reports",
    "parse_log_junit",
    "strip_js_duration",
    "v2_parser",
]


# --- the table ------------------------------------------------------------------------------------

_OWN: dict[str, V2Parser] = {
    "parse_log_pytest_nebo": parse_log_pytest_nebo,
    "parse_combined_test_reports": parse_combined_test_reports,
    "parse_log_elixir": parse_log_elixir,
    "parse_log_ruby_v1": parse_log_ruby_v1,
    "parse_log_ruby_v2": parse_log_ruby_v2,
    "parse_log_cpp": parse_log_cpp,
    "parse_log_cpp_v2": parse_log_cpp_v2,
    "parse_log_cpp_v3": parse_log_cpp_v3,
    "parse_log_cpp_v4": parse_log_cpp_v4,
    "parse_lue_nvim": parse_lue_nvim,
    "parse_lua_nvim": parse_lue_nvim,
    "parse_log_lua_nvim": parse_lue_nvim,
    "parse_java_mvn": parse_java_mvn,
    "parse_log_java_mvn": parse_java_mvn,
    "parse_java_mvn_v2": parse_java_mvn_v2,
    "parse_log_java_mvn_v2": parse_java_mvn_v2,
    "parse_log_php_v1": parse_log_php_v1,
    "parse_log_haskell": parse_log_haskell,
    "parse_log_haskell_v2": parse_log_haskell_v2,
    "parse_log_js": parse_log_js,
    "parse_log_js_2": parse_log_js_2,
    "parse_log_js_3": parse_log_js_3,
    "parse_log_js_4": parse_log_js_4,
    "parse_log_gradlew_v1": parse_log_gradlew_v1,
    "parse_log_julia": parse_log_julia,
    "parse_log_npx": parse_log_npx,
    "parse_log_r": parse_log_r,
    "parse_log_r_v2": parse_log_r_v2,
    "parse_log_lein": parse_log_lein,
    "parse_log_dart": parse_log_dart,
    "parse_log_dart_v2": parse_log_dart_v2,
    "parse_log_dart_v3": parse_log_dart_v3,
    "parse_log_scala": parse_log_scala,
    "parse_log_scala_v2": parse_log_scala_v2,
    "parse_log_scala_v3": parse_log_scala_v3,
    "parse_log_ocaml": parse_log_ocaml,
    "parse_log_ocaml_v2": parse_log_ocaml_v2,
    "parse_log_ocaml_v3": parse_log_ocaml_v3,
    "parse_log_ocaml_v4": parse_log_ocaml_v4,
    "parse_log_ocaml_v5": parse_log_ocaml_v4,
    "parse_log_sbt": parse_log_junit,
    "parse_log_junit": parse_log_junit,
    "parse_logs_r_junit": parse_logs_r_junit,
    "parse_log_r_junit": parse_logs_r_junit,
    "parse_logs_kotlin_junit": parse_logs_kotlin_junit,
    "parse_log_kotlin_junit": parse_logs_kotlin_junit,
    "parse_log_swift": parse_log_swift,
    "parse_log_csharp": parse_log_csharp,
}

_SHARED_NAME_VARIANTS: dict[str, V2Parser] = {
    "parse_log_pytest": parse_log_pytest,
    "parse_log_pytest_options": parse_log_pytest_options,
    "parse_log_pytest_v2": parse_log_pytest_v2,
    "parse_log_maven": parse_log_maven,
    "parse_log_gradle_custom": parse_log_gradle_custom,
    "parse_log_jest": parse_log_jest,
    "parse_log_phpunit": parse_log_phpunit,
    "parse_log_react_pdf": parse_log_react_pdf,
}

V2_ONLY_NAMES = frozenset(_OWN)
"""Names only SWE-rebench V2 registers."""

V2_VARIANT_NAMES = frozenset(_SHARED_NAME_VARIANTS)
"""Names SWE-bench also registers, which V2 reads differently from SWE-bench 5.0.2."""

V2_PARSERS: Mapping[str, V2Parser] = MappingProxyType({**_OWN, **_SHARED_NAME_VARIANTS})
"""Every V2 parser name whose V2 reading this module provides."""


def v2_parser(name: str) -> V2Parser | None:
    """V2's own reader for ``name``, or None when V2 reads that name as SWE-bench does (or not at all)."""
    return V2_PARSERS.get(name)
