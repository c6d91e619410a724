"""SWE-rebench V2's own log readers: exact status maps for real runner output and documented formats.

Logs under ``data/rebench_v2_logs`` are unedited output of real runners (see its README for each
runner, version and command). Runners not packaged for this machine are covered by logs written
in that runner's documented output format; each such case says so in its id (``documented-...``).
Expected maps follow V2's readings, quirks included: V2 grades its rows by them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.verdict import Verdict
from pytest_swe.families.logparsers import PARSERS as SHARED_PARSERS
from pytest_swe.families.logparsers import LogParseError
from pytest_swe.families.logparsers import ParseContext
from pytest_swe.families.rebench import v2 as rebench_v2
from pytest_swe.families.rebench import v2parsers as v2

from conftest import benchmark_settings

LOGS = Path(__file__).parent / "data" / "rebench_v2_logs"
P, F, S, E, X = "PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL"


def log(name: str) -> str:
    return (LOGS / name).read_text(encoding="utf-8")


# --- real runner output ---------------------------------------------------------------------------

PYTEST_SUMMARY = {
    "is": P,  # a captured "PASSED is a word ..." line reads as a result line
    "test_sample.py::test_adds": P,
    "test_sample.py::test_words[a": P,  # the id is one word: "[a b]" is cut at its space
    "test_sample.py::test_words[x[1]]": P,
    "test_sample.py::test_words[/tmp/data/file.txt]": P,
    "[1]": S,  # "SKIPPED [1] file:12: reason" is kept (SWE-bench 5.0.2 drops it)
    "test_sample.py::test_known_bug": X,
    "test_sample.py::test_uses_broken": E,
    "test_sample.py::test_fails": F,
    "test_sample.py::TestGroup::test_method_with_a_longish_nm": F,
    "test_sample.py::test_exactly_24_chars_nm": F,
}

# parse_log_pytest_options keeps only the last component of a path parameter.
PYTEST_OPTIONS = {
    key.replace("[/tmp/data/file.txt]", "[/file.txt]"): status for key, status in PYTEST_SUMMARY.items()
}

PYTEST_NEBO = {
    "test_sample.py::test_adds": P,
    "test_sample.py::test_skipped": S,
    "test_sample.py::test_known_bug": X,
    "test_sample.py::test_words[a b]": P,
    "test_sample.py::test_words[/tmp/data/file.txt]": P,
    "test_sample.py::test_uses_broken": E,
    "test_sample.py::TestGroup::test_method_with_a_longish_nm": F,
    "test_sample.py::test_exactly_24_chars_nm": F,
    "test_sample.py::test_fails": F,
    "test_sample.py::test_words[x[1]]": P,
    # summary lines: the id runs to the first " in ", so messages stay part of it
    "is a word": P,
    "[1] test_sample.py:12: not on this platform": S,
    "test_sample.py::test_known_bug - known bug": X,
    "test_sample.py::test_uses_broken - RuntimeError: fixture broke": E,
    "test_sample.py::TestGroup::test_method_with_a_longish_nm - assert 0": F,
    "test_sample.py::test_exactly_24_chars_nm - AssertionError: assert 'val...": F,
    "test_sample.py::test_fails - AssertionError: arithmetic is broken": F,
}

PYTEST_JUNIT_CASES = ["test_adds", "test_fails", "test_skipped", "test_known_bug", "test_words[a b]"]

REAL: list[tuple[str, str, dict[str, str]]] = [
    ("parse_log_pytest", "pytest_rA.log", PYTEST_SUMMARY),
    ("parse_log_pytest_options", "pytest_rA.log", PYTEST_OPTIONS),
    ("parse_log_pytest_v2", "pytest_rA.log", PYTEST_SUMMARY),
    ("parse_log_pytest_v2", "pytest_v_color.log", PYTEST_SUMMARY),
    ("parse_log_pytest_nebo", "pytest_xdist.log", PYTEST_NEBO),
    (
        "parse_log_cpp",
        "pytest_v.log",
        {
            "test_adds": P,
            "test_fails": F,
            "test_skipped": S,
            "test_words[a b]": P,
            "test_words[x[1]]": P,
            "test_words[/tmp/data/file.txt]": P,
            "test_uses_broken": E,
            "test_method_with_a_longish_nm": F,
            "test_exactly_24_chars_nm": F,  # the only FAILURES heading with 27 underscores a side
            "=" * 36: E,  # the "==== ERRORS ====" banner
            "_" * 22: E,  # the "____ ERROR at setup of ... ____" heading
        },
    ),
    (
        "parse_combined_test_reports",
        "pytest_junit.log",
        {
            "test_sample::test_adds": P,
            "test_sample::test_fails": F,
            "test_sample::test_skipped": S,
            "test_sample::test_known_bug": S,
            "test_sample::test_words[a b]": P,
            "test_sample::test_words[x[1]]": P,
            "test_sample::test_words[/tmp/data/file.txt]": P,
            "test_sample::test_uses_broken": E,
            "test_sample.TestGroup::test_method_with_a_longish_nm": F,
            "test_sample::test_exactly_24_chars_nm": F,
        },
    ),
    (
        "parse_log_junit",
        "pytest_junit.log",
        {
            "test_sample test_adds": P,
            "test_sample test_fails": F,
            "test_sample test_skipped": S,
            "test_sample test_known_bug": S,
            "test_sample test_words[a b]": P,
            "test_sample test_words[x[1]]": P,
            "test_sample test_words[/tmp/data/file.txt]": P,
            "test_sample test_uses_broken": E,
            "test_sample.TestGroup test_method_with_a_longish_nm": F,
            "test_sample test_exactly_24_chars_nm": F,
        },
    ),
    (
        "parse_log_js",
        "mocha_spec.log",
        {
            "adds numbers": P,
            "handles [brackets] and spaces": P,
            "is slow enough to show timing": P,
            "divides by zero": S,
            "multiplies": P,
            "top level failure": F,  # "1) Calculator" + "subtracts numbers:" on two lines is not read
        },
    ),
    (
        "parse_log_js_2",
        "mocha_spec.log",
        {
            "top level failure": F,
            "adds numbers": P,
            "handles [brackets] and spaces": P,
            "is slow enough to show timing": P,
            "subtracts numbers": F,
            "divides by zero": S,
            "multiplies": P,
            "top level failure:": F,
            "Calculator": F,
        },
    ),
    (
        "parse_log_npx",
        "mocha_spec.log",
        {
            "top level failure": F,
            "adds numbers": P,
            "handles [brackets] and spaces": P,
            "is slow enough to show timing": P,
            "subtracts numbers": F,
            "multiplies": P,
            "top level failure:": F,
            "Calculator": F,
        },
    ),
    (
        "parse_log_js_4",
        "mocha_spec.log",
        {
            "adds numbers": P,
            "handles [brackets] and spaces": P,
            "is slow enough to show timing": P,
            "multiplies": P,
        },
    ),
    ("parse_log_js_3", "mocha_tap.log", {}),  # mocha's TAP lines have no " - " after the number
    (
        "parse_log_js_3",
        "node_test_tap.log",
        {
            "top level passes": P,
            "top level fails": F,
            "skipped one": P,  # "# SKIP" after a blank is dropped as a comment
            "todo one": P,
            "inner ok": P,
            "inner fails": F,
            "suite A": F,
        },
    ),
    (
        "parse_log_jest",
        "jest_verbose.log",
        {
            "adds [1, 2]": P,
            "waits a little": P,
            "skipped skipped case": S,
            "multiplies numbers": P,
            "fails with a message": F,
            "passes in a failing file": P,
        },
    ),
    ("parse_log_react_pdf", "jest_verbose.log", {"jt/math.test.js": P, "jt/broken.test.js": F}),
    (
        "parse_log_js_4",
        "jest_verbose.log",
        {
            "adds [1, 2]": P,
            "waits a little": P,
            "skipped skipped case": S,
            "multiplies numbers": P,
            "passes in a failing file": P,
        },
    ),
    # ctest prints "***Failed"/"***Timeout" with no blank before the word: only passes are read.
    ("parse_log_cpp_v4", "ctest.log", {"arith_adds": P, "name with spaces": P}),
    (
        "parse_log_cpp_v3",
        "ctest.log",
        {
            "1/6 Test #1: arith_adds .......................   Passed    0.01 sec": P,
            "2/6 Test #2: name with spaces .................   Passed    0.00 sec": P,
            "3/6 Test #3: arith_fails ......................***Failed    0.00 sec": F,
            "4/6 Test #4: needs_network ....................***Skipped   0.00 sec": S,
            "50% tests passed, 3 tests failed out of 6": F,
            "4 - needs_network (Skipped)": S,
            "The following tests FAILED:": F,
            "3 - arith_fails (Failed)": F,
            'Use "--rerun-failed --output-on-failure" to re-run the failed cases verbosely.': F,
        },
    ),
    (
        "parse_log_elixir",
        "exunit_trace.log",
        {
            "skipped for now": S,
            "adds numbers": P,
            "name with [brackets] and (parens)": P,
            "fails on purpose": F,
            "nested group slow case": P,
        },
    ),
    ("parse_log_elixir", "exunit_trace_color.log", {"fails on purpose": F}),  # coloured lines are not read
    (
        "parse_log_ruby_v2",
        "minitest_verbose.log",
        {
            "CalculatorTest#test_raises": F,
            "CalculatorTest#test_fails": F,
            "CalculatorTest#test_with_question?": P,
            "CalculatorTest#test_adds": P,
            "CalculatorTest#test_skipped": S,
        },
    ),
    (
        "parse_log_ruby_v1",
        "minitest_reporters_spec.log",
        {
            "UnitTestStorageXMLCollections::test_put_url_path_is_properly_escaped": P,
            "CalculatorTest::test_raises": E,
            "CalculatorTest::test_fails": F,
            "CalculatorTest::test_with_question?": P,
            "CalculatorTest::test_adds": P,
            "CalculatorTest::test_skipped": S,
        },
    ),
    (
        "parse_log_phpunit",  # PHPUnit 9's headings have no "(Class)", so tests sit under None
        "phpunit_testdox.log",
        {
            "None > Adds two numbers": P,
            "None > Fails on purpose": F,
            "None > Is skipped": S,
            "None > Throws": F,
            'None > Handles words with data set "with space"': P,
            'None > Handles words with data set "brackets"': P,
        },
    ),
    ("parse_log_r", "testthat_progress.log", {"Context": P, "arith": F, "strings": F}),
    ("parse_log_r", "r_cmd_check.log", {}),  # "══ Failed tests ══" is not the "── Failed tests ──" it reads
    (
        "parse_logs_r_junit",
        "testthat_junit.log",
        {
            "arith::addition_works": P,
            "arith::addition_with_brackets_fails": F,
            "strings::shout_upper_cases": P,
            "strings::skipped_on_purpose": S,
            "strings::errors_out": E,
        },
    ),
    (
        "parse_log_r_v2",
        "r_cmd_check.log",
        {
            "for file \u2018sample/DESCRIPTION\u2019": P,
            "package namespace information": P,
            "if this is a source package": P,
            "if there is a namespace": P,
            "for executable files": P,
            "for hidden files and directories": P,
            "for portable file names": P,
            "for sufficient/correct file permissions": P,
            "whether package \u2018sample\u2019 can be installed": P,
            "installed package size": P,
            "package directory": P,
            "DESCRIPTION meta-information": P,
            "top-level files": P,
            "for left-over files": P,
            "index information": P,
            "package subdirectories": P,
            "R files for non-ASCII characters": P,
            "R files for syntax errors": P,
            "whether the package can be loaded": P,
            "whether the package can be loaded with stated dependencies": P,
            "whether the package can be unloaded cleanly": P,
            "whether the namespace can be loaded with stated dependencies": P,
            "whether the namespace can be unloaded cleanly": P,
            "loading without being on the library search path": P,
            "dependencies in R code": P,
            "S3 generic/method consistency": P,
            "replacement functions": P,
            "foreign function calls": P,
            "R code for possible problems": P,
            "for missing documentation entries": F,
            "examples": P,  # NONE is not a status word: passed
            "for unstated dependencies in \u2018tests\u2019": P,
            "tests": E,  # "...", then "Running 'testthat.R'", then " ERROR"
        },
    ),
    (
        "parse_log_ocaml",  # the "> [FAIL]" line and the boxed repeat are not read
        "alcotest_quick.log",
        {
            "arith 0 adds numbers.": P,
            "misc 0 skipped when quick.": S,
            "misc 1 raises.": F,
            "misc 2 slow one.": S,
        },
    ),
    (
        "parse_log_ocaml_v3",
        "alcotest_quick.log",
        {
            "arith 0 adds numbers.": P,
            "misc 0 skipped when quick.": S,
            "misc 1 raises.": F,
            "misc 2 slow one.": S,
        },
    ),
    ("parse_log_ocaml", "alcotest_quick_color.log", {}),
    ("parse_log_ocaml_v4", "alcotest_quick_color.log", {}),
    ("parse_log_ocaml_v2", "dune_verbose.log", {}),  # dune 2 prints no Output[N]: blocks
]


@pytest.mark.parametrize(("name", "file", "expected"), REAL, ids=[f"{n}-{f}" for n, f, _ in REAL])
def test_real_runner_output(name: str, file: str, expected: dict[str, str]) -> None:
    assert v2.V2_PARSERS[name](log(file)) == expected


def test_the_junit_readers_agree_on_statuses_but_not_on_names() -> None:
    combined = v2.parse_combined_test_reports(log("pytest_junit.log"))
    textual = v2.parse_log_junit(log("pytest_junit.log"))
    assert sorted(combined.values()) == sorted(textual.values())
    assert all(f"test_sample::{case}" in combined for case in PYTEST_JUNIT_CASES)
    assert all(f"test_sample {case}" in textual for case in PYTEST_JUNIT_CASES)


# --- documented output formats --------------------------------------------------------------------

MAVEN_SUREFIRE = """\
[INFO] -------------------------------------------------------
[INFO]  T E S T S
[INFO] -------------------------------------------------------
[INFO] Running com.example.CalculatorTest
[ERROR] Tests run: 3, Failures: 1, Errors: 1, Skipped: 0, Time elapsed: 0.05 s <<< FAILURE! - in com.example.CalculatorTest
[ERROR] com.example.CalculatorTest.testDivide  Time elapsed: 0.01 s  <<< ERROR!
java.lang.ArithmeticException: / by zero
[ERROR] com.example.CalculatorTest.testSubtract  Time elapsed: 0.002 s  <<< FAILURE!
org.opentest4j.AssertionFailedError: expected: <1> but was: <2>
[INFO] Running com.example.StringsTest
[WARNING] Tests run: 2, Failures: 0, Errors: 0, Skipped: 1, Time elapsed: 0.01 s - in com.example.StringsTest
[INFO] Running com.example.ParserTest
[INFO] Tests run: 4, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.2 s - in com.example.ParserTest
[INFO]
[INFO] Results:
[INFO]
[ERROR] Failures:
[ERROR]   CalculatorTest.testSubtract:14 expected: <1> but was: <2>
[ERROR] Errors:
[ERROR]   CalculatorTest.testDivide:20 java.lang.ArithmeticException: / by zero
[INFO]
[ERROR] Tests run: 9, Failures: 1, Errors: 1, Skipped: 1
[INFO]
[INFO] BUILD FAILURE
"""

MAVEN_REACTOR = """\
[INFO] Tests run: 5, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.4 s - in org.demo.CoreTest
[INFO] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0
[INFO] Reactor Summary for Piranha 1.0.0:
[INFO]
[INFO] Piranha ............................................ SUCCESS [  0.512 s]
[INFO] Piranha - HTTP - Implementation .................... FAILURE [  1.241 s]
[INFO] Piranha - Server ................................... SKIPPED
[INFO] ------------------------------------------------------------------------
[INFO] BUILD FAILURE
"""

SUREFIRE_PLAIN = """\
-------------------------------------------------------
 T E S T S
-------------------------------------------------------
Running com.example.KotlinSpec
Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.12 sec
Running com.example.BrokenSpec
Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.05 sec <<< FAILURE!
Running com.example.PendingSpec
Tests run: 1, Failures: 0, Errors: 0, Skipped: 1, Time elapsed: 0 sec
[INFO] Running com.example.Prefixed
[INFO] Tests run: 1, Failures: 0, Errors: 0, Skipped: 0

Results :

Tests run: 6, Failures: 1, Errors: 0, Skipped: 1
"""

PLENARY = (
    "Testing: \t/repo/tests/plugin_spec.lua\n"
    "\x1b[32mSuccess\x1b[0m\t||\tplugin setup works\n"
    "\x1b[31mFail\x1b[0m\t||\tplugin [config] merges\n"
    "\x1b[32mSuccess\x1b[0m\t||\tplugin [config] merges\n"
    "\x1b[33mSkip\x1b[0m\t||\tplugin pending thing\n"
    "SKIPPED || loud skip   \n"
    "\t\n"
    "\x1b[32mSuccess: \x1b[0m\t2\n"
    "\x1b[31mFailed : \x1b[0m\t1\n"
    "\x1b[31mErrors : \x1b[0m\t0\n"
)

PEST = """\
   PASS  Tests\\Unit\\ExampleTest
  ✓ that true is true                                                    0.01s
  ✓ it handles [brackets] and spaces

   FAIL  Tests\\Feature\\ApiTest
  \u2a2f it returns a 200 response                                            0.12s
  - it is skipped for now → needs a database                             0.00s
  ✓ it returns a 200 response                                            0.02s
  ✓ it retries  1.5s
  ~ it is pending (skipped)
  x = 5 (debug output)

  ────────────────────────────────────────────────────────────────────────────
   FAILED  Tests\\Feature\\ApiTest > it returns a 200 response
  Expected response status code [200] but received 500.

  Tests:    1 failed, 1 skipped, 3 passed (4 assertions)
  Duration: 0.31s
"""

HASKELL = """\
Building test suite 'spec' for demo-0.1.0..
Running 1 test suites...
Test suite spec: RUNNING...
Tasty style
  arith
    adds:        OK (0.01s)
    subtracts:   FAIL (0.02s)
      expected 1 but got 2
    divides:     ERROR
    later:       SKIP
\x1b[32m    multiplies:  OK\x1b[0m
Hspec
  ✔ parses numbers
  ✘ parses words
  parses brackets [✔]
  parses spaces [✘]
  1) Parser, parses words
### Failure in: Legacy:1:assertion
### Error in: Legacy:2:crash
Test suite spec: FAIL
"""

HSPEC_TREE = """\
Preprocessing test suite 'spec' for demo-0.1.0..
Running 1 test suites...
Test suite spec: RUNNING...

Data.Parser
  parse
    reads numbers
    reads words FAILED [1]
    reads dates PENDING
  render
    prints lists
Golden and Actual output didn't change
    prints maps

Failures:

  test/ParserSpec.hs:12:
  1) Data.Parser, parse, reads words
       expected: "a"
        but got: "b"

Randomized with seed 42

Finished in 0.0031 seconds
5 examples, 1 failure, 1 pending
Test suite spec: FAIL
"""

HSPEC_TREE_PASSING = """\
Test suite spec: RUNNING...
Math
  adds
Finished in 0.0010 seconds
1 example, 0 failures
Test suite spec: PASS
"""

MOCHA_WRAPPED = """\
  Slack notifier
    ✔ should send results to beats (53ms)
    - test-summary for single suite - teams
    [W] 1) should mention group name in slack
  1) Slack notifier
       should mention group name in slack:
  2) reports timing errors:
"""

TAP_BUFFERED = """\
TAP version 14
not ok 1 - parser {
    ok 1 - reads numbers # time=1.2ms
    not ok 2 - reads words (12ms)
    ok 3 - reads dates# SKIP no locale
    1..3
}
not ok 2 - cli {
    ok 1 - prints help
    ok 2 - nested {
        ok 1 - deep one
}}
ok 3 - parser
not ok 4 - top # TODO later
1..4
"""

SYMBOLS = """\
✓ [unit]: adds numbers (5ms)
✔ renders  the page
✖ breaks on null
\u00d7 throws (2 ms)
✘ [e2e]:: double colon tag
○ skipped test
◌ todo test
◦ pending one
⚪ maybe later
\u2139 info line
checkout flow [skipped]
Checkout Flow [SKIPPED]
✖ adds numbers
"""

GRADLE_XML = """\
> Task :test FAILED
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="com.example.CalcTest" tests="5" skipped="1" failures="1" errors="1" hostname="ci" time="0.05">
  <properties/>
  <testcase name="adds()" classname="com.example.CalcTest" time="0.001"/>
  <testcase name="divides [by zero]()" classname="com.example.CalcTest" time="0.002">
    <failure message="expected: &lt;1&gt;" type="org.opentest4j.AssertionFailedError">trace</failure>
  </testcase>
  <testcase name="crashes()" classname="com.example.CalcTest" time="0.0">
    <error message="boom" type="java.lang.IllegalStateException">trace</error>
  </testcase>
  <testcase name="ignored()" classname="com.example.CalcTest" time="0.0">
    <skipped/>
  </testcase>
  <testcase name="flaky()" classname="com.example.CalcTest"><skipped/><failure message="x"/></testcase>
  <system-out><![CDATA[]]></system-out>
  <system-err><![CDATA[]]></system-err>
</testsuite>
  <?xml version="1.0" encoding="UTF-8"?>
<testsuite name="com.example.Indented" tests="1">
  <testcase name="never()" classname="com.example.Indented"/>
</testsuite>
<?xml version="1.0"?>
<testsuite name="broken">
  <testcase name="x" classname="y">
</testsuite>
"""

JULIA = """\
Test Summary: | Pass  Total  Time
Parser        |    4      4  0.3s
     Testing Demo tests passed
Test Summary: | Pass  Fail  Error  Total  Time
Demo          |   10     1      1     12  2.1s
  arithmetic  |    5                  5  0.1s
  strings     |    3     1            4  0.4s
  io          |    2            1     3  0.2s
Test Summary: | Pass  Fail  Total  Time
Other         |    2     1      3  0.1s
  flaky       |          1      1  0.0s
Test Summary: | Pass  Error  Total
Third         |    1      1      2
ERROR: LoadError: Some tests did not pass: 10 passed, 1 failed, 1 errored, 0 broken.
"""

TESTTHAT_FAILED_SECTION = """\
✔ |   2       | arith [0.1s]
✖ | 1     1   | strings [0.2 s]
── Failed tests ──────────────────────────────────
Failure ('test-strings.R:3:3'): pastes [twice]
Error ('test-io.R:5:1'): reads files
[ FAIL 1 | WARN 0 | SKIP 0 | PASS 3 ]
Failure ('test-after.R:1:1'): after the summary
"""

LEIN = """\
lein test demo.core-test

lein test :only demo.core-test/test-parse

FAIL in (test-parse) (core_test.clj:9)
expected: 1
  actual: 2

lein test demo.io-test

ERROR in (test-read) (io_test.clj:12)

lein test demo.ok-test demo.other-test

Ran 5 tests containing 7 assertions.
1 failures, 1 errors.
"""

DART_JSON = """\
{"protocolVersion":"0.1.1","runnerVersion":"1.24.0","pid":1,"type":"start","time":0}
{"suite":{"id":0,"platform":"vm","path":"test/calc_test.dart"},"type":"suite","time":0}
{"test":{"id":1,"name":"loading test/calc_test.dart","suiteID":0,"groupIDs":[]},"type":"testStart","time":1}
{"testID":1,"result":"success","skipped":false,"hidden":true,"type":"testDone","time":200}
{"test":{"id":3,"name":"Calculator adds [1, 2]","suiteID":0,"groupIDs":[2]},"type":"testStart","time":210}
{"testID":3,"result":"success","skipped":false,"hidden":false,"type":"testDone","time":215}
{"test":{"id":4,"name":"Calculator divides","suiteID":0,"groupIDs":[2]},"type":"testStart","time":216}
{"testID":4,"messageType":"print","message":"dividing","type":"print","time":217}
{"testID":4,"error":"Expected: <1>","stackTrace":"","isFailure":true,"type":"error","time":218}
{"testID":4,"result":"failure","skipped":false,"hidden":false,"type":"testDone","time":219}
{"test":{"id":5,"name":"Calculator throws","suiteID":0},"type":"testStart","time":220}
{"testID":5,"result":"error","skipped":false,"hidden":false,"type":"testDone","time":221}
{"test":{"id":6,"name":"Calculator skipped one","suiteID":0},"type":"testStart","time":222}
{"testID":6,"result":"success","skipped":true,"hidden":false,"type":"testDone","time":223}
{"test":{"id":8,"name":"only skipped","suiteID":0},"type":"testStart","time":224}
{"testID":8,"skipped":true,"type":"testDone","time":225}
{"testID":99,"result":"success","skipped":false,"hidden":false,"type":"testDone","time":226}
[{"test":{"id":7,"name":"batched","suiteID":0},"type":"testStart"},{"testID":7,"result":"success","type":"testDone"}]
not json at all
{"success":false,"type":"done","time":300}
"""

DART_PACKAGES = """\
[demo_core]: 00:00 +0: loading /work/pkg/test/a_test.dart
[demo_core]: 00:01 +0: /work/pkg/test/a_test.dart: parses numbers
[demo_core]: 00:01 +1: /work/pkg/test/a_test.dart: parses numbers
[demo_core]: 00:01 +1: /work/pkg/test/a_test.dart: parses [brackets] and spaces
[demo_core]: 00:02 +2: /work/pkg/test/a_test.dart: parses [brackets] and spaces
[demo_core]: 00:02 +2: /work/pkg/test/a_test.dart: breaks
[demo_core]: 00:02 +2 -1: /work/pkg/test/a_test.dart: breaks [E]
[demo_core]: 00:03 +2 -1: Some tests failed.
"""

DART_COMPACT = """\
00:00 +0: loading /app/test/widget_test.dart
00:01 +0: /app/test/widget_test.dart: renders title
00:01 +1: /app/test/widget_test.dart: renders title
00:02 +1: /app/test/widget_test.dart: taps [button]
00:02 +1 -1: /app/test/widget_test.dart: taps [button] [E]
00:03 +1 -1: /app/test/widget_test.dart: still counting
00:04 +1 -2: loading /app/test/broken_test.dart [E]
00:05 +1 -2: Some tests failed.
"""

SCALATEST = """\
[info] CalculatorSpec:
[info] - should add numbers (12 milliseconds)
[info] - should handle [edge] cases *** FAILED *** (5 milliseconds)
[info]   3 did not equal 4 (CalculatorSpec.scala:12)
[info] - should talk to the network !!! CANCELED !!! (1 millisecond)
[info] - should be ignored !!! IGNORED !!!
[info] - is pending (pending)
[info] - should add numbers (3 milliseconds)
[info] - has no timing
[info] Run completed in 215 milliseconds.
"""

PLUS_CROSS = (
    "\x1b[32m+\x1b[0m \x1b[32mparses numbers\x1b[0m \x1b[90m12ms\x1b[0m\n"
    "\x1b[31mx\x1b[0m \x1b[31mparses [brackets]\x1b[0m \x1b[90m3ms\x1b[0m\n"
    "  + [0m[32mbare codes pass[0m [90m0.5s[0m\n"
    "  x [0m[31mbare codes fail[0m [90m7μs[0m\n"
    "+ plain pass 1.2s\n"
    "X upper-case failure 2ms\n"
    "+ no timing\n"
)

SCALATEST_SUITES = """\
[info] welcome to sbt 1.9.7 (Eclipse Adoptium Java 17)
[info] loading settings for project root from build.sbt ...
[info] Loading settings for project demo
[info] StackSpec:
[info] A Stack
[info] - should pop values in last-in-first-out order
[info] - should throw if empty (3 milliseconds)
[info] - should fail here *** FAILED ***
[info] - should fail with timing *** FAILED *** (5 milliseconds)
[info] - should be cancelled *** CANCELED ***
[info] - should be odd *** WEIRD ***
[info] Run completed in 120 milliseconds.
[info] Tests: succeeded 2, failed 2, canceled 1, ignored 0, pending 0
[error] Failed tests:
[info] - outside info prefix
"""

DUNE3_VERBOSE = """\
Running[1]: (cd _build/default/test && ./test_parser.exe)
Output[1]:
Testing `Parser'.
  [OK]          parse          0   numbers.
  [FAIL]        parse          1   words.
Running[2]: (cd _build/default/test && exec ./test_io.exe --verbose)
Output[2]:
  [SKIP]        io             0   network.
Running[3]: (cd _build/default/lib && /usr/bin/ocamlfind ocamlopt -c x.ml)
Output[3]:
compiled fine
Running[4]: (cd _build/default/test && ./test_ok.exe)
Output[4]:
OK
Running[5]: (cd _build/default/test && ./test_errors.exe)
Output[5]:
Fatal error: exception Not_found
  [SKIP] later skip
"""

BRACKET_WORDS = """\
[PASS] parser   reads   numbers
[FAIL] parser reads words
[PASS] parser reads words
[skip] io network
[ERROR] io crash
[TODO] later
[INFO] not a status
[ok]
  [Ko] ocaml cli
"""

STATUS_FIRST = (
    "PASSED test_parse   0.01s\n"
    "\x1b[31mFAILED\x1b[0m test_io  0.20s\n"
    "FAILED test_parse  0.02s\n"
    "PASSED test_parse  0.01s\n"
    "SKIPPED test_net\n"
    "XFAIL test_known   0.0s\n"
    "PASSED test_known\n"
    "XFAIL  test_only_xfail\n"
    "ERROR  test_setup\n"
    "PASSED\n"
)

SBT_JUNIT = """\
[info] Test run finished
<testsuite hostname="ci" name="demo.CalcSpec" tests="5" errors="1" failures="1" skipped="1" time="0.1">
  <testcase classname="demo.CalcSpec" name="adds &amp; subtracts" time="0.01"></testcase>
  <testcase name="divides" classname="demo.CalcSpec" time="0.02">
    <failure message="3 did not equal 4" type="org.scalatest.exceptions.TestFailedException">trace</failure>
  </testcase>
  <testcase classname="demo.CalcSpec" name="crashes" time="0"><error message="boom"></error></testcase>
  <testcase classname="demo.CalcSpec" name="later" time="0"><skipped/></testcase>
  <testcase name="no class" time="0"/>
  <testcase classname='single.Quoted' name='quoted' time="0"/>
</testsuite>
<testcase classname="demo.Tail" name="unclosed">
<failure message="cut off"
"""

XCTEST = """\
Test Suite 'All tests' started at 2024-01-01 10:00:00.000
Test Suite 'CalcTests' started at 2024-01-01 10:00:00.001
Test Case 'CalcTests.testAdd' started at 2024-01-01 10:00:00.002
Test Case 'CalcTests.testAdd' passed (0.001 seconds)
Test Case 'CalcTests.testDivide' started at 2024-01-01 10:00:00.003
/app/Tests/CalcTests.swift:12: error: CalcTests.testDivide : XCTAssertEqual failed: ("1") is not equal to ("2")
Test Case 'CalcTests.testDivide' failed (0.002 seconds)
Test Case 'CalcTests.testSkip' skipped (0.000 seconds)
Test Case '-[CalcTests testMac]' passed (0.003 seconds).
Test Suite 'CalcTests' failed at 2024-01-01 10:00:00.010
\t Executed 3 tests, with 1 failure (0 unexpected) in 0.003 (0.003) seconds
"""

DOTNET = """\
  Determining projects to restore...
[xUnit.net 00:00:00.50]   Starting:    Demo.Tests
[xUnit.net 00:00:01.23]     Demo.Tests.CalcTests.Divides [FAIL]
  Passed Demo.Tests.CalcTests.Adds [3 ms]
  Passed Demo.Tests.CalcTests.Divides [1 ms]
  Failed Demo.Tests.CalcTests.Subtracts [12 ms]
  Error Message:
   Assert.Equal() Failure
  Skipped Demo.Tests.CalcTests.Later [1 ms]
  Skipped Demo.Tests.CalcTests.NoTiming
  Passed Demo.Tests.CalcTests.Theory(value: [1, 2]) [2 ms]
Passed Demo.Tests.CalcTests.NotIndented [1 ms]
Passed!  - Failed:     1, Passed:     3, Skipped:     2, Total:     6
"""

CPP_TEST_LINES = """\
Test arith_add                      passed
Test arith [edge case]              failed
Test arith [edge case]              passed
Test network_probe                  skipped
Test flaky_one                      passed
Test flaky_one                      failed
Build finished
"""

CPP_COUNTED = """\
[1/5] File: Save and load black gray-scale jpeg image... OK
[2/5] image_function::GetThreshold (form 1)... OK
[3/5] image_function::Flip... FAILED
[4/5] SomeTest::Disabled... SKIPPED
[5/5] SomeTest::Crashed... ABORT
AES-128 ran 17370 tests in 34.33 msec all ok
ChaCha ran 2048 tests in 12.1 msec 3 tests failed
Build OK
"""

NEBO_TRAILING = """\
tests/test_a.py::test_one PASSED [ 50%] in 0.12s
tests/test_a.py::test two FAILED [100%] in 1s
[gw3] [ 75%] WEIRD tests/test_a.py::test_odd
"""

GRADLE_EVENTS = """\
> Task :test
com.example.FooTest > adds() PASSED
com.example.FooTest > divides() FAILED (0.2s)
com.example.FooTest > slow() PASSED (12.5s)
com.example.FooTest > interrupted()
    PASSED
com.example.FooTest > skipped() SKIPPED
"""

MAVEN_TRACED = """\
+ mvn test -Dtest=FooTest#testA
[INFO] BUILD SUCCESS
+ mvn test -Dtest=FooTest#testB
+ mvn test -Dtest=FooTest#testC
[INFO] BUILD FAILURE
[INFO] BUILD SUCCESS
"""

TESTDOX_10 = """\
PHPUnit 10.5.0 by Sebastian Bergmann and contributors.

Calculator (Tests\\Calculator)
 ✔ Adds two numbers [1.34 ms]
 ✘ Divides by zero [0.12 ms]
   │
   │ Failed asserting that false is true.
 ↩ Skipped one
"""

JEST_FILES = """\
PASS src/renderer.test.js (12 ms)
FAIL src/layout.test.js (5.2 s)
PASS src/fonts.test.js
"""

JEST_PADDED = "  ✓ renders  (5 ms)\n  ✕ breaks (1 ms)\n"

CPP_FAILURES_ONLY = (
    "=" * 35
    + " FAILURES "
    + "=" * 35
    + "\n"
    + "_" * 27
    + " test_exactly_24_chars_nm "
    + "_" * 27
    + "\n"
    + "_" * 34
    + " test_fails "
    + "_" * 34
    + "\ntests/test_x.py::test_after_banner PASSED\n"
)

SPEC_REPORTER = """\
SuiteA
  test_one                                  PASS (0.01s)
  Details
  test_two                                  FAIL (0.02s)
  test_two                                  PASS (0.03s)
  test_Three                                PASS (0.00s)
test_bare   SKIP
"""

DOCUMENTED: list[tuple[str, str, str, dict[str, str]]] = [
    (
        "minitest-reporters-spec-precedence",
        "parse_log_ruby_v1",
        SPEC_REPORTER,
        {"SuiteA::test_one": P, "SuiteA::test_two": F, "SuiteA::test_bare": S},
    ),
    (
        "pytest-failures-section",
        "parse_log_cpp",
        CPP_FAILURES_ONLY,
        {"test_exactly_24_chars_nm": F},
    ),
    (
        "pytest-xdist-and-timer-lines",
        "parse_log_pytest_nebo",
        NEBO_TRAILING,
        {"tests/test_a.py::test_one": P, "tests/test_a.py::test two": F},
    ),
    (
        "pytest-v-with-captured-output",
        "parse_log_pytest_v2",
        "tests/test_a.py::test_x PASSED\nFAILED tests/test_a.py::test_y - boom\n",
        {"tests/test_a.py::test_x": P, "tests/test_a.py::test_y": F},
    ),
    ("maven-traced-runs", "parse_log_maven", MAVEN_TRACED, {"FooTest#testA": P, "FooTest#testC": P}),
    (
        "maven-result-before-any-selector",
        "parse_log_maven",
        "[INFO] BUILD SUCCESS\n",
        {v2.MAVEN_NO_TEST_YET: P},
    ),
    (
        "gradle-test-events",
        "parse_log_gradle_custom",
        GRADLE_EVENTS,
        {
            "com.example.FooTest > adds()": P,
            "com.example.FooTest > divides()": F,
            "com.example.FooTest > slow()": P,
        },
    ),
    ("jest-verbose-padded-title", "parse_log_jest", JEST_PADDED, {"renders ": P, "breaks": F}),
    (
        "phpunit-10-testdox",
        "parse_log_phpunit",
        TESTDOX_10,
        {
            "Calculator > Adds two numbers": P,
            "Calculator > Divides by zero": F,
            "Calculator > Skipped one": S,
        },
    ),
    (
        "jest-file-lines",
        "parse_log_react_pdf",
        JEST_FILES,
        {"src/renderer.test.js": P, "src/layout.test.js": F, "src/fonts.test.js": P},
    ),
    (
        "test-name-status-lines",
        "parse_log_cpp_v2",
        CPP_TEST_LINES,
        {"arith_add": P, "arith [edge case]": F, "network_probe": S, "flaky_one": F},
    ),
    (
        "counted-ellipsis-and-botan",
        "parse_log_cpp_v3",
        CPP_COUNTED,
        {
            "File: Save and load black gray-scale jpeg image": P,
            "image_function::GetThreshold (form 1)": P,
            "image_function::Flip": F,
            "SomeTest::Disabled": S,
            "SomeTest::Crashed": E,
            "AES-128 ran 17370 tests all ok": P,
            "ChaCha ran 2048 tests 3 tests failed": F,
            "Build OK": P,
        },
    ),
    *(
        (
            f"plenary-busted-{name}",
            name,
            PLENARY,
            {"plugin setup works": P, "plugin [config] merges": F, "plugin pending thing": S, "loud skip": S},
        )
        for name in ("parse_lue_nvim", "parse_lua_nvim", "parse_log_lua_nvim")
    ),
    *(
        (
            f"surefire-{name}",
            name,
            MAVEN_SUREFIRE,
            {
                "com.example.CalculatorTest": F,
                "com.example.CalculatorTest.testDivide": F,
                "com.example.CalculatorTest.testSubtract": F,
                "com.example.StringsTest": S,
                "com.example.ParserTest": P,
                "CalculatorTest.testSubtract": F,
                "CalculatorTest": F,
                "CalculatorTest.testDivide": E,
                v2.MAVEN_NO_TEST_YET: F,
            },
        )
        for name in ("parse_java_mvn", "parse_log_java_mvn")
    ),
    (
        "surefire-running-only",
        "parse_java_mvn",
        "[INFO] Running com.example.A\nRunning com.example.B\n",
        {"com.example.A": P, "com.example.B": P},
    ),
    (
        "surefire-junit-tags",
        "parse_java_mvn",
        '[INFO] Running a.B\n<testcase name="t1" classname="a.B"><failure/></testcase>\n',
        {"a.B t1": F},
    ),
    *(
        (
            f"maven-reactor-{name}",
            name,
            MAVEN_REACTOR,
            {"__suite__": P, "Piranha": P, "Piranha - HTTP - Implementation": F, "Piranha - Server": S},
        )
        for name in ("parse_java_mvn_v2", "parse_log_java_mvn_v2")
    ),
    (
        "maven-reactor-empty-run",
        "parse_java_mvn_v2",
        "Tests run: 0, Failures: 0, Errors: 0, Skipped: 0\n",
        {"__suite__": S},
    ),
    *(
        (
            f"surefire-plain-{name}",
            name,
            SUREFIRE_PLAIN,
            {"com.example.KotlinSpec": P, "com.example.BrokenSpec": F, "com.example.PendingSpec": S},
        )
        for name in ("parse_logs_kotlin_junit", "parse_log_kotlin_junit")
    ),
    (
        "pest-collision",
        "parse_log_php_v1",
        PEST,
        {
            "that true is true": P,
            "it handles [brackets] and spaces": P,
            "Tests\\Feature\\ApiTest": F,
            "it returns a 200 response": F,
            "it is skipped for now → needs a database": S,
            "it retries": P,
            "~ it is pending (skipped)": S,
            "= 5 (debug output)": F,
            "Tests\\Feature\\ApiTest > it returns a 200 response": F,
        },
    ),
    (
        "tasty-hspec-hunit",
        "parse_log_haskell",
        HASKELL,
        {
            "adds": P,
            "subtracts": F,
            "divides": E,
            "later": S,
            "multiplies": P,
            "parses numbers": P,
            "parses words": F,
            "parses brackets": P,
            "parses spaces": F,
            "Parser, parses words": F,
            "Legacy:1:assertion": F,
            "Legacy:2:crash": E,
        },
    ),
    (
        "hspec-tree",
        "parse_log_haskell_v2",
        HSPEC_TREE,
        {
            "Data.Parser.parse.reads numbers": P,
            "Data.Parser.parse.reads words": F,
            "Data.Parser.parse.reads dates": S,
            "Data.Parser.render.prints lists": P,
            "Data.Parser.render.prints maps": P,
        },
    ),
    (
        "hspec-tree-passing-run",
        "parse_log_haskell_v2",
        HSPEC_TREE_PASSING,
        {
            "Math.adds": P,
            "Finished in 0.0010 seconds": P,
            "1 example, 0 failures": P,
            "Test suite spec: PASS": P,
        },
    ),
    (
        "mocha-wrapped-failures",
        "parse_log_js",
        MOCHA_WRAPPED,
        {
            "should send results to beats": P,
            "test-summary for single suite - teams": S,
            "should mention group name in slack": F,
            "reports timing errors": F,
        },
    ),
    (
        "tap14-buffered-subtests",
        "parse_log_js_3",
        TAP_BUFFERED,
        {
            "parser": F,
            "parser :: reads numbers": P,
            "parser :: reads words": F,
            "parser :: reads dates# SKIP no locale": S,
            "cli": F,
            "cli :: prints help": P,
            "cli :: nested": P,
            "cli :: nested :: deep one": P,
            "top": F,
        },
    ),
    (
        "symbol-reporters",
        "parse_log_js_4",
        SYMBOLS,
        {
            "adds numbers": F,
            "renders  the page": P,
            "breaks on null": F,
            "throws": F,
            "double colon tag": F,
            "skipped test": S,
            "todo test": S,
            "pending one": S,
            "maybe later": S,
            "checkout flow": S,
            "Checkout Flow [SKIPPED]": S,
        },
    ),
    (
        "gradle-junit-xml",
        "parse_log_gradlew_v1",
        GRADLE_XML,
        {
            "adds() (com.example.CalcTest)": P,
            "divides [by zero]() (com.example.CalcTest)": F,
            "crashes() (com.example.CalcTest)": E,
            "ignored() (com.example.CalcTest)": S,
            "flaky() (com.example.CalcTest)": S,
        },
    ),
    (
        "julia-test-summaries",
        "parse_log_julia",
        JULIA,
        {"Parser": P, "Demo": E, "arithmetic": P, "strings": E, "io": E, "Other": F, "flaky": E, "Third": E},
    ),
    (
        "testthat-failed-tests-section",
        "parse_log_r",
        TESTTHAT_FAILED_SECTION,
        {"arith": P, "strings": F, "pastes [twice]": F, "reads files": E},
    ),
    (
        "lein-test",
        "parse_log_lein",
        LEIN,
        {"demo.core-test": F, "demo.io-test": E, "demo.ok-test": P, "demo.other-test": P},
    ),
    (
        "dart-json-reporter",
        "parse_log_dart",
        DART_JSON,
        {
            "Calculator adds [1, 2]": P,
            "Calculator divides": F,
            "Calculator throws": E,
            "Calculator skipped one": P,
            "only skipped": S,
            "batched": P,
        },
    ),
    (
        "melos-prefixed-compact",
        "parse_log_dart_v2",
        DART_PACKAGES,
        {
            "/work/pkg/test/a_test.dart: parses numbers": P,
            "/work/pkg/test/a_test.dart: parses [brackets] and spaces": P,
            "/work/pkg/test/a_test.dart: breaks": E,
        },
    ),
    (
        "dart-compact",
        "parse_log_dart_v3",
        DART_COMPACT,
        {
            "/app/test/widget_test.dart: renders title": P,
            "/app/test/widget_test.dart: taps [button]": F,
            "/app/test/widget_test.dart: still counting": P,
            "/app/test/broken_test.dart": E,
        },
    ),
    (
        "scalatest-sbt",
        "parse_log_scala",
        SCALATEST,
        {
            "should add numbers": P,
            "should handle [edge] cases": F,
            "should talk to the network": S,
            "should be ignored": S,
            "is pending": P,
        },
    ),
    (
        "plus-cross-lines",
        "parse_log_scala_v2",
        PLUS_CROSS,
        {
            "parses numbers": P,
            "parses [brackets]": F,
            "bare codes pass": P,
            "bare codes fail": F,
            "plain pass": P,
        },
    ),
    (
        "scalatest-suites",
        "parse_log_scala_v3",
        SCALATEST_SUITES,
        {
            "A Stack: should pop values in last-in-first-out order": P,
            "A Stack: should throw if empty": P,
            "A Stack: should fail here": F,
            "A Stack: should fail with timing *** FAILED ***": P,
            "A Stack: should be cancelled": S,
            "A Stack: should be odd": "WEIRD",
            "A Stack: outside info prefix": P,
        },
    ),
    (
        "dune-3-verbose",
        "parse_log_ocaml_v2",
        DUNE3_VERBOSE,
        {"test_parser.exe": F, "test_io.exe": S, "ocamlfind": P, "test_ok.exe": P, "test_errors.exe": F},
    ),
    (
        "bracketed-status-words",
        "parse_log_ocaml_v3",
        BRACKET_WORDS,
        {
            "parser reads numbers": P,
            "parser reads words": F,
            "io network": S,
            "io crash": F,
            "later": S,
            "ocaml cli": F,
        },
    ),
    *(
        (
            f"status-first-{name}",
            name,
            STATUS_FIRST,
            {
                "test_parse": F,
                "test_io": F,
                "test_net": S,
                "test_known": P,
                "test_only_xfail": X,
                "test_setup": E,
            },
        )
        for name in ("parse_log_ocaml_v4", "parse_log_ocaml_v5")
    ),
    *(
        (
            f"junit-tags-{name}",
            name,
            SBT_JUNIT,
            {
                "demo.CalcSpec adds &amp; subtracts": P,
                "demo.CalcSpec divides": F,
                "demo.CalcSpec crashes": E,
                "demo.CalcSpec later": S,
                "no class": P,
                "demo.Tail unclosed": F,
            },
        )
        for name in ("parse_log_sbt", "parse_log_junit")
    ),
    (
        "testthat-junit-alias",
        "parse_log_r_junit",
        log("testthat_junit.log"),
        {
            "arith::addition_works": P,
            "arith::addition_with_brackets_fails": F,
            "strings::shout_upper_cases": P,
            "strings::skipped_on_purpose": S,
            "strings::errors_out": E,
        },
    ),
    (
        "junit-root-testsuite-only",
        "parse_logs_r_junit",
        '<?xml version="1.0"?><testsuite name="s"><testcase name="t" classname="c"/></testsuite>',
        {},
    ),
    (
        "junit-reports-bad-one-skipped",
        "parse_combined_test_reports",
        "<?xml version='1.0'?><testsuites><oops></testsuites>\n"
        "<?xml version='1.0'?><testsuites><testsuite><testcase name='a'/></testsuite></testsuites>\n"
        "<?xml version='1.0'?><testsuites>never closed",
        {"None::a": P},
    ),
    ("xctest-linux", "parse_log_swift", XCTEST, {"CalcTests.testAdd": P, "CalcTests.testDivide": F}),
    (
        "dotnet-test-detailed",
        "parse_log_csharp",
        DOTNET,
        {
            "Demo.Tests.CalcTests.Divides": F,
            "Demo.Tests.CalcTests.Adds": P,
            "Demo.Tests.CalcTests.Subtracts": F,
            "Demo.Tests.CalcTests.Later": S,
            "Demo.Tests.CalcTests.NoTiming": S,
            "Demo.Tests.CalcTests.Theory(value:": P,
        },
    ),
    (
        "exunit-failure-heading-first",
        "parse_log_elixir",
        "  1) test breaks (DemoTest)\n  * test breaks [L#3]\n  * test breaks (1.0ms) [L#3]\n",
        {"breaks": F},
    ),
    (
        "ctest-lowercase-and-timeout",
        "parse_log_cpp_v4",
        " 1/2 Test #1: quick ..........   passed    0.01 sec\n 2/2 Test #2: slow ...   Timeout  1.0 sec\n",
        {"quick": P, "slow": F},
    ),
    (
        "npx-mocha-timing",
        "parse_log_npx",
        "  ✔ loads (12ms)\n  ✔ waits (1.5s)\n  1) breaks (Module)\n",
        {"loads": P, "waits (1.5s)": P, "breaks": F},
    ),
]


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [case[1:] for case in DOCUMENTED],
    ids=[f"documented-{case[0]}" for case in DOCUMENTED],
)
def test_documented_output_format(name: str, text: str, expected: dict[str, str]) -> None:
    assert v2.V2_PARSERS[name](text) == expected


# --- where V2's reader gives up, the row is unresolved -------------------------------------------

FAILING_LOGS = [
    ("parse_log_pytest_v2", "tests/test_a.py::test_x printed this\nPASSED\n", "names no test"),
    ("parse_log_r_v2", "* checking tests ...\n...\n", "has no word"),
    ("parse_log_julia", "Test Summary: | Pass  Total\nDemo | \u00b2  3\n", "unreadable count"),
    ("parse_log_dart", '{"type":"testStart","test":{"id":1,"name":5}}\n', "not text"),
    ("parse_log_dart", '{"type":"testStart","test":{"id":[1],"name":"x"}}\n', "unusable test id"),
]


@pytest.mark.parametrize(
    ("name", "text", "words"), FAILING_LOGS, ids=[f"{n}-{w}" for n, _, w in FAILING_LOGS]
)
def test_logs_v2_cannot_read_raise(name: str, text: str, words: str) -> None:
    with pytest.raises(LogParseError, match=words):
        v2.V2_PARSERS[name](text)


# --- the table ------------------------------------------------------------------------------------


def test_every_v2_name_is_read_here_or_by_the_shared_parsers() -> None:
    assert rebench_v2.V2_PARSER_NAMES.issuperset(v2.V2_PARSERS)
    assert len(rebench_v2.V2_PARSER_NAMES) == 76
    shared_unchanged = rebench_v2.V2_PARSER_NAMES - set(v2.V2_PARSERS)
    assert shared_unchanged.issubset(SHARED_PARSERS)
    assert v2.V2_VARIANT_NAMES.issubset(SHARED_PARSERS)
    assert not v2.V2_ONLY_NAMES & set(SHARED_PARSERS)
    assert len(v2.V2_ONLY_NAMES) == 48
    assert all(rebench_v2.v2_parser_available(name) for name in rebench_v2.V2_PARSER_NAMES)
    assert v2.v2_parser("parse_log_gotest") is None and v2.v2_parser("parse_log_nonexistent") is None


def test_every_name_of_this_module_has_a_log_case() -> None:
    covered = {name for name, _, _ in REAL} | {case[1] for case in DOCUMENTED}
    assert covered == set(v2.V2_PARSERS)


VARIANT_LOGS = {
    "parse_log_pytest": log("pytest_rA.log"),
    "parse_log_pytest_options": log("pytest_rA.log"),
    "parse_log_pytest_v2": log("pytest_rA.log"),
    "parse_log_maven": MAVEN_TRACED,
    "parse_log_gradle_custom": GRADLE_EVENTS,
    "parse_log_jest": JEST_PADDED,
    "parse_log_phpunit": TESTDOX_10,
    "parse_log_react_pdf": JEST_FILES,
}


@pytest.mark.parametrize("name", sorted(VARIANT_LOGS))
def test_v2_reads_these_shared_names_differently_from_swe_bench(name: str) -> None:
    assert name in v2.V2_VARIANT_NAMES
    ours = v2.V2_PARSERS[name](VARIANT_LOGS[name])
    official = SHARED_PARSERS[name](VARIANT_LOGS[name], ParseContext())
    assert ours != official


def test_strip_js_duration() -> None:
    assert v2.strip_js_duration("adds (53ms)") == "adds"
    assert v2.strip_js_duration("waits 2s") == "waits"
    assert v2.strip_js_duration("returns 10 items") == "returns 10 items"


# --- the family grades V2 rows with these readers -------------------------------------------------


def settings() -> BenchmarkSettings:
    return benchmark_settings("swe-rebench-v2")


def v2_task(parser: str, fail_to_pass: list[str], pass_to_pass: list[str]) -> Any:
    row = {
        "instance_id": "demo__calc-7",
        "repo": "demo/calc",
        "base_commit": "0" * 40,
        "patch": "diff --git a/x b/x\n",
        "test_patch": "diff --git a/t b/t\n",
        "problem_statement": "Division is wrong.",
        "FAIL_TO_PASS": fail_to_pass,
        "PASS_TO_PASS": pass_to_pass,
        "image_name": "docker.io/swerebenchv2/demo-calc:7-0000000",
        "install_config": {"test_cmd": ["make test"], "log_parser": parser},
    }
    return rebench_v2.V2_FAMILY.normalize(row, settings())


def test_a_v2_only_parser_grades_its_row() -> None:
    task = v2_task("parse_log_julia", ["arithmetic"], ["Parser"])
    verdict = rebench_v2.grade_v2_log(task, JULIA, Verdict(resolved=False, patch_exists=True))
    assert verdict.resolved and verdict.log_valid
    failing = v2_task("parse_log_julia", ["strings"], ["Parser"])
    assert not rebench_v2.grade_v2_log(failing, JULIA, Verdict(resolved=False, patch_exists=True)).resolved


def test_a_shared_name_is_graded_by_v2s_reading() -> None:
    task = v2_task(
        "parse_log_gradle_custom", ["com.example.FooTest > slow()"], ["com.example.FooTest > adds()"]
    )
    verdict = rebench_v2.grade_v2_log(task, GRADLE_EVENTS, Verdict(resolved=False, patch_exists=True))
    assert verdict.resolved  # SWE-bench 5.0.2's reading does not see "slow() PASSED (12.5s)"


def test_a_log_v2_cannot_read_leaves_the_row_unresolved() -> None:
    task = v2_task("parse_log_pytest_v2", ["tests/test_a.py::test_x"], [])
    text = "PASSED tests/test_a.py::test_x\nPASSED\n"
    verdict = rebench_v2.grade_v2_log(task, text, Verdict(resolved=False, patch_exists=True))
    assert not verdict.resolved and not verdict.log_valid
    assert any("parse_log_pytest_v2" in reason for reason in verdict.reasons)
