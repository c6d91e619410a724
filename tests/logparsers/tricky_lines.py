"""Hand-written logs that pin each parser's behaviour on lines where readers tend to differ.

The expected maps are the official parsers' answers (``test_differential`` checks every entry
against them when the official venvs exist); ``test_parsers_unit`` checks our parsers against
them with no official package around.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field

from pytest_swe.families.logparsers import ParseContext

P, F, S, E, X = "PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL"


@dataclass(frozen=True)
class Tricky:
    parser: str
    why: str
    log: str
    expected: dict[str, str] | None
    """None: the parser raises (as the official one does)."""
    ctx: ParseContext = field(default_factory=ParseContext)
    release: str = "5.0.2"


TRICKY: list[Tricky] = [
    # --- pytest family ---------------------------------------------------------------------------
    Tricky(
        "parse_log_pytest",
        "status-first lines; a FAILED line's message is dropped; XPASS is not a status word",
        "PASSED a.py::t\nFAILED a.py::u - AssertionError: x - y\nXPASS a.py::v - why\nXFAIL a.py::w - bug\n",
        {"a.py::t": P, "a.py::u": F, "a.py::w": X},
    ),
    Tricky(
        "parse_log_pytest",
        "ids stop at the first space; SKIPPED [N] summary lines name no test (5.0.2)",
        "PASSED a.py::t[a b]\nSKIPPED [2] a.py:10: reason\nERROR a.py - ImportError: no module\n",
        {"a.py::t[a": P, "a.py": E},
    ),
    Tricky(
        "parse_log_pytest",
        "4.1.0 records the skip count as if it were a test id",
        "SKIPPED [2] a.py:10: reason\nPASSED a.py::t\n",
        {"[2]": S, "a.py::t": P},
        release="4.1.0",
    ),
    Tricky(
        "parse_log_pytest",
        "the status is the first word as printed, and indented or coloured lines are not read",
        "ERRORS here\n  PASSED a.py::indented\n\x1b[32mPASSED\x1b[0m a.py::coloured\nPASSED\n",
        {"here": "ERRORS"},
    ),
    Tricky(
        "parse_log_pytest_options",
        "an absolute-path parameter keeps only its last component; '//' and globs stay",
        "PASSED t.py::f[/tmp/x/y.txt]\nPASSED t.py::g[//srv/share]\nPASSED t.py::h[/tmp/*.py]\n"
        "PASSED t.py::k[a]b[c]\nPASSED t.py::m[p]q\n",
        {
            "t.py::f[/y.txt]": P,
            "t.py::g[//srv/share]": P,
            "t.py::h[/tmp/*.py]": P,
            "t.py::k[a]b[c]": P,
            "t.py::m[p]": P,
        },
    ),
    Tricky(
        "parse_log_pytest_v2",
        "colour codes and control bytes go; ids keep spaces; a FAILED id is cut at its first ' - '",
        "\x1b[32mPASSED\x1b[0m t.py::f[a b]\nFAILED t.py::g[x - y] - AssertionError\n"
        "PASSED t.py::tab\there\n",
        {"t.py::f[a b]": P, "t.py::g[x": F, "t.py::tabhere": P},
    ),
    Tricky(
        "parse_log_pytest_v2",
        "the older 'id STATUS' form, with spaces in the id",
        "t.py::f[a b] PASSED\nt.py::g XFAIL\nsummary: 1 FAILED\n",
        {"t.py::f[a b]": P, "t.py::g": X, "summary: 1": F},
    ),
    Tricky(
        "parse_log_pytest_v2",
        "4.1.0 keys the older form by its first word and takes the second word as the status",
        "t.py::f[a b] PASSED\nFAILED t.py::g[x - y] - boom\n",
        {"t.py::f[a": "b]", "t.py::g[x": F},
        release="4.1.0",
    ),
    Tricky(
        "parse_log_matplotlib",
        "MouseButton parameters are spelt by value",
        "PASSED t.py::click[MouseButton.LEFT]\nFAILED t.py::click[MouseButton.RIGHT] - x\n",
        {"t.py::click[1]": P, "t.py::click[3]": F},
    ),
    Tricky(
        "parse_log_seaborn",
        "verbose 'id PASSED [ 5%]' lines and summary lines; skips are not read",
        "t.py::a PASSED [ 50%]\nt.py::b FAILED [100%]\nFAILED t.py::b - x\nSKIPPED [1] t.py:3: r\nPASSED\n",
        {"t.py::a": P, "t.py::b": F},
    ),
    Tricky(
        "parse_log_seaborn",
        "4.1.0 fails on a FAILED line that names no test",
        "FAILED\n",
        None,
        release="4.1.0",
    ),
    # --- Django, SymPy ----------------------------------------------------------------------------
    Tricky(
        "parse_log_django",
        "unittest verbosity 2, a docstring line, failure headers keyed by their first word",
        "test_a (app.tests.T.test_a) ... ok\n"
        "test_b (app.tests.T.test_b) ... FAIL\n"
        "test_c (app.tests.T.test_c) ... skipped 'no db'\n"
        "test_d (app.tests.T.test_d)\nDoes a thing. ... ok\n"
        "test_e (app.tests.T.test_e) ... ERROR\n"
        "FAIL: test_b (app.tests.T.test_b)\n"
        "ERROR: test_e (app.tests.T.test_e)\n",
        {
            "test_a (app.tests.T.test_a)": P,
            "test_b (app.tests.T.test_b)": F,
            "test_c (app.tests.T.test_c)": S,
            "Does a thing.": P,
            "test_e (app.tests.T.test_e)": E,
            "test_b": F,
            "test_e": E,
        },
    ),
    Tricky(
        "parse_log_django",
        "a result pushed to the next line belongs to the last started test",
        "test_x (app.tests.T.test_x) ... Internal Server Error: /boom/\nok\n"
        "test_y (app.tests.T.test_y) ... System check identified no issues (0 silenced)\nok\n",
        {"test_x (app.tests.T.test_x)": P, "test_y (app.tests.T.test_y)": P},
    ),
    Tricky("parse_log_django", "a bare failure header names no test", "FAIL:\n", None),
    Tricky(
        "parse_log_sympy",
        "verbose result lines and the failure report's headers",
        "test_a ok\ntest_b F\ntest_c E\ntest_d f\n___ sympy/core/tests/test_x.py:test_b ___\n",
        {"test_a": P, "test_b": F, "test_c": E, "sympy/core/tests/test_x.py:test_b": F},
    ),
    # --- Go, Rust, Java, PHP ----------------------------------------------------------------------
    Tricky(
        "parse_log_gotest",
        "subtests are indented; the name runs to the last ' ('",
        "--- PASS: TestA (0.00s)\n    --- FAIL: TestA/with_(parens) (0.01s)\n"
        "        --- SKIP: TestA/x/y (0.00s)\n=== RUN   TestB\nok  \texample.com/x\t0.1s\n",
        {"TestA": P, "TestA/with_(parens)": F, "TestA/x/y": S},
    ),
    Tricky(
        "parse_log_cargo",
        "ignored tests and doc tests (ids with spaces) are not recorded",
        "test a::b ... ok\ntest a::c ... FAILED\ntest a::d ... ignored\ntest src/lib.rs - f (line 3) ... ok\n",
        {"a::b": P, "a::c": F},
    ),
    Tricky(
        "parse_log_maven",
        "selectors and results pair first in, first out",
        "+ mvn test -Dtest=A#one\n+ mvn test -Dtest=A#two\n[INFO] BUILD SUCCESS\n[INFO] BUILD FAILURE\n",
        {"A#one": P, "A#two": F},
    ),
    Tricky(
        "parse_log_maven",
        "4.1.0 gives every result to the latest selector",
        "[INFO] BUILD SUCCESS\n+ mvn test -Dtest=A#one\n+ mvn test -Dtest=A#two\n[INFO] BUILD FAILURE\n",
        {"---NO TEST NAME FOUND YET---": P, "A#two": F},
        release="4.1.0",
    ),
    Tricky(
        "parse_log_ant",
        "an error counts as a failure",
        "    [junit] [PASS] a(demo.T)\n    [junit] [FAIL] b(demo.T)\n    [junit] [ERR] c(demo.T)\n",
        {"a(demo.T)": P, "b(demo.T)": F, "c(demo.T)": F},
    ),
    Tricky(
        "parse_log_gradle_custom",
        "a status on its own line completes the test named before it; '>' lines are Gradle's",
        "org.x.T > a PASSED\norg.x.T > b\nWARNING: something\nFAILED\n> Task :test FAILED\norg.x.T > c SKIPPED\n",
        {"org.x.T > a": P, "org.x.T > b": F},
    ),
    Tricky(
        "parse_log_gradle_custom",
        "4.1.0 reads only name and status on one line",
        "org.x.T > a PASSED\norg.x.T > b\nFAILED\n",
        {"org.x.T > a": P},
        release="4.1.0",
    ),
    Tricky(
        "parse_log_phpunit",
        "testdox marks under class headings; a test before any heading is keyed by None",
        " ✔ Orphan\nCalculator (Demo\\Calculator)\n ✔ Adds\n ✘ Fails\n ↩ Skipped\n ∅ Incomplete\n",
        {"None > Orphan": P, "Calculator > Adds": P, "Calculator > Fails": F, "Calculator > Skipped": S},
    ),
    # --- Ruby -------------------------------------------------------------------------------------
    Tricky(
        "parse_log_minitest",
        "ids run to the last '. '; a skip reads as the dot of its timing",
        "Site#test_0001_copies. = 0.00 s = .\nSite#test_0002_fails. = 0.00 s = F\n"
        "Site#test_0003_skips. = 0.00 s = S\nPlain#test_plain = 0.00 s = .\n",
        {"Site#test_0001_copies": P, "Site#test_0002_fails": F, "Site#test_0003_skips": P},
    ),
    Tricky(
        "parse_log_ruby_unit",
        "test-unit verbose lines; omissions are skips, pendings are not read",
        "  test_a:\t\t.: (0.0001)\n  test_b:\t\tF\n  test: block name:\t\tE\n  test_c:\t\tO\n  test_d:\t\tP\n",
        {"test_a": P, "test_b": F, "block name": F, "test_c": S},
    ),
    Tricky(
        "parse_log_rspec_transformed_json",
        "pending examples are not read; the id runs to the last ' - passed|failed'",
        "adds - ./s.rb[1:1] - passed\nbreaks - failed\nlater - pending\n",
        {"adds - ./s.rb[1:1]": P, "breaks": F},
    ),
    Tricky(
        "parse_log_cucumber",
        "scenario names followed by step characters",
        "  Scenario: a ....\n  Scenario: b ..F--\n",
        {"Scenario: a": P, "Scenario: b": F},
    ),
    Tricky(
        "parse_log_jekyll",
        "PR 8761 ran cucumber",
        "  Scenario: a ....\n",
        {"Scenario: a": P},
        ctx=ParseContext(instance_id="jekyll__jekyll-8761"),
    ),
    Tricky(
        "parse_log_jekyll",
        "an instance without a known runner",
        "x\n",
        None,
        ctx=ParseContext(instance_id="jekyll__jekyll-1"),
    ),
    # --- C and C++ --------------------------------------------------------------------------------
    Tricky(
        "parse_log_redis",
        "durations are not part of ids, nor a failure's file",
        "[ok]: SET works (1 ms)\n[err]: GET (with spaces) in tests/unit/x.tcl\n[skip]: Z\n[ignore]: Y: why\n"
        "*** [err]: GET in tests/unit/x.tcl\n",
        {"SET works": P, "GET (with spaces)": F, "Z": S, "Y: why": S},
    ),
    Tricky(
        "parse_log_jq",
        "automake results; XFAIL, SKIP, ERROR and the summary counts are not read",
        "PASS: tests/a\nFAIL: tests/b\nXFAIL: tests/c\nERROR: tests/d\n# PASS:  1\n",
        {"tests/a": P, "tests/b": F},
    ),
    Tricky(
        "parse_log_doctest",
        "one entry per subcase; nested subcases count on their own",
        '<doctest><TestSuite><TestCase name="t"><SubCase name="a"><Expression success="true"/></SubCase>'
        '<SubCase name="b"><SubCase name="c"><Expression success="false"/></SubCase></SubCase>'
        '</TestCase><TestCase name="plain"><Expression success="true"/></TestCase></TestSuite></doctest>',
        {"t > a": P, "t > b": F, "t > c": F},
    ),
    Tricky("parse_log_doctest", "an unclosed report", "<doctest><TestSuite>", None),
    Tricky(
        "parse_log_micropython_test",
        "run-tests.py lines; unittest notes stay in the id",
        "pass  basics/a.py \nFAIL  basics/b.py \nskip  basics/c.py\nlrge  d.py\npass  e.py (unittest: 3 ran)\n",
        {"basics/a.py": P, "basics/b.py": F, "basics/c.py": S, "e.py (unittest: 3 ran)": P},
    ),
    Tricky(
        "parse_log_googletest",
        "ctest prefixes, parameter notes, and the untimed failure recap",
        "1: [       OK ] A.b (0 ms)\n1: [  FAILED  ] W/P.c/2, where GetParam() = 3 (1 ms)\n"
        "[  FAILED  ] A.d\n[  SKIPPED ] A.e\n",
        {"A.b": P, "W/P.c/2, where GetParam() = 3": F},
    ),
    # --- JavaScript --------------------------------------------------------------------------------
    Tricky(
        "parse_log_jest",
        "one trailing duration is dropped; skipped tests are read",
        "  ✓ adds (5 ms) (3 ms)\n  ✕ breaks (1 ms)\n  ○ skipped later\n  ✎ todo soon\n",
        {"adds (5 ms)": P, "breaks": F, "skipped later": S},
    ),
    Tricky(
        "parse_log_jest",
        "4.1.0 keeps whitespace left before a duration",
        "  ✓ adds  (5 ms)\n",
        {"adds ": P},
        release="4.1.0",
    ),
    Tricky(
        "parse_log_vitest",
        "a trailing number reads as a duration even without a unit",
        " ✓ t.test.ts > adds 1 + 2 3ms\n ✓ t.test.ts > adds 1 + 2\n \u00d7 t.test.ts > fails\n"
        " ↓ t.test.ts > skips [skipped]\n",
        {
            "t.test.ts > adds 1 + 2": P,
            "t.test.ts > adds 1 +": P,
            "t.test.ts > fails": F,
            "t.test.ts > skips": S,
        },
    ),
    Tricky(
        "parse_log_karma",
        "only between 'Starting browser' and 'SUMMARY:'; a dedent closes one suite",
        "✔ before start\nINFO [launcher]: Starting browser jsdom\n  suite\n    ✔ a\n    inner\n      ✖ b\n"
        "  other\n    ✔ c\nSUMMARY:\n✔ after\n",
        {"suite > a": P, "suite > inner > b": F, "suite > c": P},
    ),
    Tricky(
        "parse_log_tap",
        "directives stay in the name",
        "ok 1 a > b\nnot ok 2 c\nok 3 d # SKIP\n    ok 1 - nested\n",
        {"a > b": P, "c": F, "d # SKIP": P, "- nested": P},
    ),
    Tricky(
        "parse_log_immutable_js",
        "an instance without a known runner",
        "  ✓ a\n",
        None,
        ctx=ParseContext(instance_id="immutable-js__immutable-js-1"),
    ),
    Tricky(
        "parse_log_jest_json",
        "jq-flattened lines keep the describe path; pending and todo are not read",
        "[PASSED] outer > inner > adds\n[FAILED] top level\n[PENDING] later\n  [PASSED] indented\n",
        {"outer > inner > adds": P, "top level": F, "indented": P},
    ),
    Tricky(
        "parse_log_marked",
        "jasmine's numbered failures at the start of a line",
        "1) Marked renders emphasis\n  Message:\n  2) indented is not read\n10) Lexer  keeps tabs  \n",
        {"Marked renders emphasis": F, "Lexer  keeps tabs": F},
    ),
    Tricky(
        "parse_log_p5js",
        "a failure's suite path must indent deeper on each line; logged JSON is dropped first",
        "  1) Core\n       p5.prototype\n         draws:\n     Error: x\n"
        '{\n  "a": 1\n}\n  2) Flat\nnot nested:\n',
        {"Core:p5.prototype:draws": F},
    ),
    Tricky(
        "parse_log_eslint",
        "mocha's failure list up to the first line naming an Error",
        "  1) RuleTester\n       rejects bad input:\n     AssertionError: expected 1\n  passing\n",
        {"RuleTester rejects bad input:": F},
    ),
    Tricky(
        "parse_log_highlightjs",
        "ids are '<innermost suite>.<title>'; the report after 'N passing' is not read",
        "  javascript\n    ✓ keywords (12ms)\n    1) regex\n  css\n    ✔ colors\n\n  2 passing\n  1) late\n",
        {"javascript.keywords": P, "javascript.regex": F, "css.colors": P},
    ),
    Tricky(
        "parse_log_bpmn_js",
        "PhantomJS behind a cursor erase, and both headless Chrome namings",
        "\x1b[2KPhantomJS 2.1.1 (Linux 0.0.0) Modeling works FAILED\n"
        "Chrome Headless 119.0 (Linux x86_64) Draw renders FAILED\n"
        "HeadlessChrome 79.0 (Linux 0.0.0) Import imports FAILED\n",
        {"Modeling works ": F, "Draw renders ": F, "Import imports ": F},
    ),
    Tricky(
        "parse_log_openlayers",
        "karma (Chrome), mocha's failure list and the rendering tests' mismatches",
        "Chrome Headless 120.0 (Linux x86_64) ol/Map renders FAILED\n"
        "  1) ol/View\n       fits:\n     Error: nope\ncase circle-style: mismatch 0.3\n",
        {"ol/Map renders": F, "ol/View fits:": F, "circle-style": F},
    ),
    Tricky(
        "parse_log_next",
        "karma's spec reporter after 'xvfb-run' and 'Starting browser Chrome'; ids join the suite path",
        "+ xvfb-run -a karma start\nStarting browser Chrome\n  Balloon\n    ✓ renders\n    ✗ closes\n"
        "  WARN something\nTOTAL: 1 FAILED\n    ✓ after total\n",
        {"Balloon - renders": P, "Balloon - closes": F},
        ctx=ParseContext(version="1.0"),
    ),
    Tricky(
        "parse_log_next",
        "version 1.27 reads cypress's spec banners",
        "  Running:  a.spec.js                (1 of 1)\n\n\n  Balloon\n    ✓ renders (12ms)\n    1) closes\n",
        {"Balloon: renders": P, "Balloon: closes": F},
        ctx=ParseContext(version="1.27"),
    ),
    Tricky(
        "parse_log_calypso",
        "ids join the indented suite path; an empty path leaves a leading '- '",
        "+ ./node_modules/.bin/jest client\n  ✓ top (1ms)\n  suite\n    ✓ a (3ms)\n    ✕ b\n",
        {"- top": P, "suite - a": P, "suite - b": F},
    ),
    Tricky(
        "parse_log_chart_js",
        "only failures, keyed with the space before FAILED",
        "Chrome 120.0.0.0 (Linux x86_64) Suite does a FAILED\nChrome 120.0.0.0 (Linux x86_64): Executed 2 of 2\n",
        {"Suite does a ": F},
    ),
    Tricky(
        "parse_log_react_pdf",
        "per-file lines with their durations dropped",
        "PASS tests/a.test.js (5.2 s)\nFAIL tests/b.test.js (12ms)\nPASS tests/c.test.js (1.5s)\n",
        {"tests/a.test.js": P, "tests/b.test.js": F, "tests/c.test.js": P},
    ),
    Tricky(
        "parse_log_grommet",
        "a file listed as failed and passed ends up passed",
        "FAIL src/a.test.js (1.2 s)\nPASS src/a.test.js\n",
        {"src/a.test.js": P},
    ),
    Tricky(
        "parse_log_lighthouse",
        "version 3 and later read Jest's per-file lines",
        "PASS core/a.test.js\n",
        {"core/a.test.js": P},
        ctx=ParseContext(version="11.0"),
    ),
    Tricky(
        "parse_log_lighthouse",
        "a version that is not a number",
        "PASS x\n",
        None,
        ctx=ParseContext(version="next"),
    ),
    Tricky(
        "parse_log_prismjs",
        "a JSON report after the traced command",
        '+ ./node_modules/.bin/mocha tests/run.js --reporter json\n{"failures": [{"fullTitle": "a b"}], '
        '"passes": [{"fullTitle": "c"}]}\n',
        {"a b": F, "c": P},
    ),
    Tricky(
        "parse_log_prismjs",
        "a report that does not decode",
        "+ ./node_modules/.bin/mocha tests/run.js --reporter json\n{oops}\n",
        None,
    ),
    Tricky(
        "parse_log_quarto_cli",
        "coloured deno results; a temporary directory becomes its number (slash and all)",
        "[unit] a ... \x1b[32mok\x1b[0m\n[smoke] render /tmp/abc/x.qmd ... \x1b[31mFAILED\x1b[0m\n"
        "[smoke] render /tmp/def/y.qmd ...\n ERRORS \n[unit] late ... \x1b[32mok\x1b[0m\n",
        {"[unit] a": P, "[smoke] render /tmp/0x.qmd": F, "[smoke] render /tmp/1y.qmd": F},
    ),
]
