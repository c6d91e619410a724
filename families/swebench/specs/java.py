"""SWE-bench Multilingual: the Java repositories.

Facts read from the official ``swebench`` package at 4.1.0 (``harness/constants/java.py``).
A version here is the pull-request number of the instance, so most specs belong to a single
instance. Fields shared by every version of a repository are written once under ``shared``.
"""

from __future__ import annotations

from typing import Any

from pytest_swe.families.swebench.specs._build import repo
from pytest_swe.families.swebench.specs.model import RepoSpec

ORIGIN = "swebench 4.1.0 harness/constants/java.py"


def _java_repo(by_version: dict[str, Any], *, shared: dict[str, Any] | None = None) -> dict[str, RepoSpec]:
    return repo("java", by_version, shared=shared, origin=ORIGIN)


SPECS: dict[str, dict[str, RepoSpec]] = {
    "google/gson": _java_repo(
        {
            "1014": {
                "test_cmd": (
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.internal.bind.JsonTreeReaderTest#testSkipValue_emptyJsonObject",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.internal.bind.JsonTreeReaderTest#testSkipValue_filledJsonObject",
                )
            },
            "1093": {
                "test_cmd": (
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.stream.JsonWriterTest#testNonFiniteDoublesWhenLenient",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.stream.JsonWriterTest#testNonFiniteBoxedDoublesWhenLenient",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.stream.JsonWriterTest#testNonFiniteDoubles",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.stream.JsonWriterTest#testNonFiniteBoxedDoubles",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.stream.JsonWriterTest#testDoubles",
                )
            },
            "1100": {
                "test_cmd": (
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.DefaultDateTypeAdapterTest#testNullValue",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.DefaultDateTypeAdapterTest#testDatePattern",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.DefaultDateTypeAdapterTest#testInvalidDatePattern",
                )
            },
            "2024": {
                "test_cmd": (
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.FieldNamingTest#testUpperCaseWithUnderscores",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.NamingPolicyTest#testGsonWithUpperCaseUnderscorePolicySerialization",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.NamingPolicyTest#testGsonWithUpperCaseUnderscorePolicyDeserialiation",
                )
            },
            "2061": {
                "test_cmd": (
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.stream.JsonReaderTest#testHasNextEndOfDocument",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.internal.bind.JsonTreeReaderTest#testHasNext_endOfDocument",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.stream.JsonReaderTest#testReadEmptyObject",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.stream.JsonReaderTest#testReadEmptyArray",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.internal.bind.JsonTreeReaderTest#testSkipValue_emptyJsonObject",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.internal.bind.JsonTreeReaderTest#testSkipValue_filledJsonObject",
                )
            },
            "2134": {
                "test_cmd": (
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.internal.bind.util.ISO8601UtilsTest#testDateParseInvalidDay",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.internal.bind.util.ISO8601UtilsTest#testDateParseInvalidMonth",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.internal.bind.util.ISO8601UtilsTest#testDateParseWithDefaultTimezone",
                )
            },
            "2158": {
                "test_cmd": (
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testByteSerialization",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testShortSerialization",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testIntSerialization",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testLongSerialization",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testFloatSerialization",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testDoubleSerialization",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testPrimitiveIntegerAutoboxedSerialization",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testPrimitiveIntegerAutoboxedInASingleElementArraySerialization",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testReallyLongValuesSerialization",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.functional.PrimitiveTest#testPrimitiveLongAutoboxedSerialization",
                )
            },
            "2311": {
                "test_cmd": (
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.JsonPrimitiveTest#testEqualsIntegerAndBigInteger",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.JsonPrimitiveTest#testLongEqualsBigInteger",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.JsonPrimitiveTest#testEqualsAcrossTypes",
                )
            },
            "2479": {
                "test_cmd": (
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.GsonBuilderTest#testRegisterTypeAdapterForObjectAndJsonElements",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.GsonBuilderTest#testRegisterTypeHierarchyAdapterJsonElements",
                    "mvnd test -B -T 1C -pl gson -Dtest=com.google.gson.GsonBuilderTest#testModificationAfterCreate",
                )
            },
        },
        shared={
            "install": ("mvn clean install -B -pl gson -DskipTests -am",),
            "docker_specs": {"java_version": "11"},
        },
    ),
    "apache/druid": _java_repo(
        {
            "13704": {
                "test_cmd": (
                    "mvnd test -B -pl processing -Dtest=org.apache.druid.query.aggregation.post.ArithmeticPostAggregatorTest#testPow",
                    "mvnd test -B -pl processing -Dtest=org.apache.druid.query.aggregation.post.ArithmeticPostAggregatorTest#testDiv",
                    "mvnd test -B -pl processing -Dtest=org.apache.druid.query.aggregation.post.ArithmeticPostAggregatorTest#testQuotient",
                ),
                "install": (
                    "sed -i 's/<resourceBundle>org.apache.apache.resources:apache-jar-resource-bundle:1.5-SNAPSHOT<\\/resourceBundle>/<resourceBundle>org.apache.apache.resources:apache-jar-resource-bundle:1.5<\\/resourceBundle>/' pom.xml",
                    "mvn clean install -B -pl processing -DskipTests -am",
                ),
            },
            "14092": {
                "test_cmd": (
                    "mvnd test -B -T 1C -pl server -Dtest=org.apache.druid.discovery.DruidLeaderClientTest#test503ResponseFromServerAndCacheRefresh",
                    "mvnd test -B -T 1C -pl server -Dtest=org.apache.druid.discovery.DruidLeaderClientTest#testServerFailureAndRedirect",
                ),
                "install": (
                    "mvn clean install -B -pl processing,cloud/aws-common,cloud/gcp-common -DskipTests -am",
                ),
            },
            "14136": {
                "test_cmd": (
                    "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.timeline.VersionedIntervalTimelineTest#testOverlapSecondContainsFirstZeroLengthInterval",
                    "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.timeline.VersionedIntervalTimelineTest#testOverlapSecondContainsFirstZeroLengthInterval2",
                    "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.timeline.VersionedIntervalTimelineTest#testOverlapSecondContainsFirstZeroLengthInterval3",
                    "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.timeline.VersionedIntervalTimelineTest#testOverlapSecondContainsFirstZeroLengthInterval4",
                    "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.timeline.VersionedIntervalTimelineTest#testOverlapFirstContainsSecond",
                    "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.timeline.VersionedIntervalTimelineTest#testOverlapSecondContainsFirst",
                ),
                "install": ("mvn clean install -B -pl processing -DskipTests -am",),
            },
            "15402": {
                "test_cmd": (
                    "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.query.groupby.GroupByQueryQueryToolChestTest#testCacheStrategy",
                    "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.query.groupby.GroupByQueryQueryToolChestTest#testResultLevelCacheKeyWithSubTotalsSpec",
                    "mvnd test -B -T 1C -pl processing -Dtest=org.apache.druid.query.groupby.GroupByQueryQueryToolChestTest#testMultiColumnCacheStrategy",
                ),
                "install": ("mvn clean install -B -pl processing -DskipTests -am",),
            },
            "16875": {
                "test_cmd": (
                    "mvnd test -B -pl server -Dtest=org.apache.druid.server.metrics.WorkerTaskCountStatsMonitorTest#testMonitorWithPeon",
                    "mvnd test -B -pl server -Dtest=org.apache.druid.server.metrics.WorkerTaskCountStatsMonitorTest#testMonitorWithNulls",
                    "mvnd test -B -pl server -Dtest=org.apache.druid.server.metrics.WorkerTaskCountStatsMonitorTest#testMonitorIndexer",
                ),
                "install": ("mvn clean install -B -pl server -DskipTests -am",),
            },
        },
        shared={"docker_specs": {"java_version": "11"}},
    ),
    "javaparser/javaparser": _java_repo(
        {
            "4538": {
                "test_cmd": (
                    "./mvnw test -B -pl javaparser-core-testing -Dtest=NodeTest",
                    "./mvnw test -B -pl javaparser-core-testing -Dtest=NodePositionTest",
                ),
                "build": ("./mvnw clean install -B -pl javaparser-core-testing -DskipTests -am",),
            },
            "4561": {
                "test_cmd": (
                    "./mvnw test -B -pl javaparser-symbol-solver-testing -Dtest=Issue4560Test",
                    "./mvnw test -B -pl javaparser-symbol-solver-testing -Dtest=JavaSymbolSolverTest",
                ),
                "build": ("./mvnw clean install -B -pl javaparser-symbol-solver-testing -DskipTests -am",),
            },
        },
        shared={"docker_specs": {"java_version": "17"}},
    ),
    "projectlombok/lombok": _java_repo(
        {
            "2792 3042 3052 3215 3312 3326 3422 3486 3594 3674 3697": {
                "pre_install": (
                    '{ head -n -1 buildScripts/tests.ant.xml; echo \'<target name="test.instance" depends="test.compile, test.formatter.compile" description="Runs test cases for the swe-bench instance">\n      <junit printsummary="yes" fork="true" forkmode="once" haltonfailure="no">\n        <formatter classname="lombok.ant.SimpleTestFormatter" usefile="false" unless="tests.quiet" />\n        <classpath location="build/ant" />\n        <classpath refid="cp.test" />\n        <classpath refid="cp.stripe" />\n        <classpath refid="packing.basedirs.path" />\n        <classpath location="build/tests" />\n        <classpath location="build/teststubs" />\n        <test name="lombok.transform.TestWithDelombok" />\n      </junit>\n    </target>\'; tail -n 1 buildScripts/tests.ant.xml; } > temp_file && mv temp_file buildScripts/tests.ant.xml',
                ),
                "docker_specs": {"java_version": "11"},
            },
            "3009 3350 3371 3479 3571": {
                "pre_install": (
                    '{ head -n -1 buildScripts/tests.ant.xml; echo \'<target name="test.instance" depends="test.compile, test.formatter.compile" description="Runs test cases for the swe-bench instance">\n      <junit printsummary="yes" fork="true" forkmode="once" haltonfailure="no">\n        <formatter classname="lombok.ant.SimpleTestFormatter" usefile="false" unless="tests.quiet" />\n        <classpath location="build/ant" />\n        <classpath refid="cp.test" />\n        <classpath refid="cp.stripe" />\n        <classpath refid="packing.basedirs.path" />\n        <classpath location="build/tests" />\n        <classpath location="build/teststubs" />\n        <test name="lombok.transform.TestWithDelombok" />\n      </junit>\n    </target>\'; tail -n 1 buildScripts/tests.ant.xml; } > temp_file && mv temp_file buildScripts/tests.ant.xml',
                ),
                "docker_specs": {"java_version": "17"},
            },
            "3602": {
                "pre_install": (
                    '{ head -n -1 buildScripts/tests.ant.xml; echo \'<target name="test.instance" depends="test.compile, test.formatter.compile" description="Runs test cases for the swe-bench instance">\n      <junit printsummary="yes" fork="true" forkmode="once" haltonfailure="no">\n        <formatter classname="lombok.ant.SimpleTestFormatter" usefile="false" unless="tests.quiet" />\n        <classpath location="build/ant" />\n        <classpath refid="cp.test" />\n        <classpath refid="cp.stripe" />\n        <classpath refid="packing.basedirs.path" />\n        <classpath location="build/tests" />\n        <classpath location="build/teststubs" />\n        <test name="lombok.bytecode.TestPostCompiler" />\n      </junit>\n    </target>\'; tail -n 1 buildScripts/tests.ant.xml; } > temp_file && mv temp_file buildScripts/tests.ant.xml',
                ),
                "docker_specs": {"java_version": "11"},
            },
        },
        shared={"test_cmd": ("ant test.instance",), "build": ("ant test.compile",)},
    ),
    "apache/lucene": _java_repo(
        {
            "11760": {
                "test_cmd": (
                    "./gradlew test --tests org.apache.lucene.queries.intervals.TestIntervalBuilder",
                ),
                "docker_specs": {"java_version": "17"},
            },
            "12022": {
                "test_cmd": ("./gradlew test --tests org.apache.lucene.document.TestLatLonShape",),
                "docker_specs": {"java_version": "17"},
            },
            "12196": {
                "test_cmd": (
                    "./gradlew test --tests org.apache.lucene.queryparser.classic.TestMultiFieldQueryParser",
                ),
                "docker_specs": {"java_version": "17"},
            },
            "12212": {
                "test_cmd": ("./gradlew test --tests org.apache.lucene.facet.TestDrillSideways",),
                "docker_specs": {"java_version": "17"},
            },
            "12626": {
                "test_cmd": ("./gradlew test --tests org.apache.lucene.index.TestIndexWriter",),
                "docker_specs": {"java_version": "21"},
            },
            "13170": {
                "test_cmd": (
                    "./gradlew test --tests org.apache.lucene.analysis.opennlp.TestOpenNLPSentenceBreakIterator",
                ),
                "docker_specs": {"java_version": "21"},
            },
            "13301": {
                "test_cmd": (
                    "./gradlew test --tests TestXYPoint.testEqualsAndHashCode -Dtests.seed=3ABEFE4D876DD310 -Dtests.nightly=true -Dtests.locale=es-419 -Dtests.timezone=Asia/Ulaanbaatar -Dtests.asserts=true -Dtests.file.encoding=UTF-8",
                ),
                "docker_specs": {"java_version": "21"},
            },
            "13494": {
                "test_cmd": ("./gradlew test --tests org.apache.lucene.facet.TestStringValueFacetCounts",),
                "docker_specs": {"java_version": "21"},
            },
            "13704": {
                "test_cmd": ("./gradlew test --tests org.apache.lucene.search.TestLatLonDocValuesQueries",),
                "docker_specs": {"java_version": "21"},
            },
        },
        shared={
            "pre_install": (
                "sed -i '\n/testLogging {/,/}/{\n  /testLogging {/r /dev/stdin\n  d\n}\n' gradle/testing/defaults-tests.gradle << 'EOF'\ntestLogging {\n  showStandardStreams = true\n  // set options for log level LIFECYCLE\n  events TestLogEvent.FAILED,\n         TestLogEvent.PASSED,\n         TestLogEvent.SKIPPED,\n         TestLogEvent.STANDARD_OUT\n  exceptionFormat TestExceptionFormat.FULL\n  showExceptions true\n  showCauses true\n  showStackTraces true\n\n  // set options for log level DEBUG and INFO\n  debug {\n      events TestLogEvent.STARTED,\n             TestLogEvent.FAILED,\n             TestLogEvent.PASSED,\n             TestLogEvent.SKIPPED,\n             TestLogEvent.STANDARD_ERROR,\n             TestLogEvent.STANDARD_OUT\n      exceptionFormat TestExceptionFormat.FULL\n  }\n  info.events = debug.events\n  info.exceptionFormat = debug.exceptionFormat\n\n  afterSuite { desc, result ->\n      if (!desc.parent) { // will match the outermost suite\n          def output = \"Results: ${result.resultType} (${result.testCount} tests, ${result.successfulTestCount} passed, ${result.failedTestCount} failed, ${result.skippedTestCount} skipped)\"\n          def startItem = '|  ', endItem = '  |'\n          def repeatLength = startItem.length() + output.length() + endItem.length()\n          println('\\n' + ('-' * repeatLength) + '\\n' + startItem + output + endItem + '\\n' + ('-' * repeatLength))\n      }\n  }\n}\nEOF",
            )
        },
    ),
    "reactivex/rxjava": _java_repo(
        {
            "7597": {},
        },
        shared={
            "test_cmd": (
                "./gradlew test --tests io.reactivex.rxjava3.internal.operators.observable.ObservableSwitchTest",
            ),
            "pre_install": (
                "sed -i '\n/testLogging {/,/}/{\n  /testLogging {/r /dev/stdin\n  d\n}\n' build.gradle << 'EOF'\ntestLogging {\n    outputs.upToDateWhen { false }\n    showStandardStreams = true\n    showStackTraces = true\n\n    // Show output for all logging levels\n    events = ['passed', 'skipped', 'failed', 'standardOut', 'standardError']\n\n    // set options for log level LIFECYCLE\n    events org.gradle.api.tasks.testing.logging.TestLogEvent.FAILED,\n           org.gradle.api.tasks.testing.logging.TestLogEvent.PASSED,\n           org.gradle.api.tasks.testing.logging.TestLogEvent.SKIPPED,\n           org.gradle.api.tasks.testing.logging.TestLogEvent.STANDARD_OUT,\n           org.gradle.api.tasks.testing.logging.TestLogEvent.STANDARD_ERROR\n    exceptionFormat org.gradle.api.tasks.testing.logging.TestExceptionFormat.FULL\n    showExceptions true\n    showCauses true\n    showStackTraces true\n\n    // set options for log level DEBUG and INFO\n    debug {\n        events org.gradle.api.tasks.testing.logging.TestLogEvent.STARTED,\n               org.gradle.api.tasks.testing.logging.TestLogEvent.FAILED,\n               org.gradle.api.tasks.testing.logging.TestLogEvent.PASSED,\n               org.gradle.api.tasks.testing.logging.TestLogEvent.SKIPPED,\n               org.gradle.api.tasks.testing.logging.TestLogEvent.STANDARD_ERROR,\n               org.gradle.api.tasks.testing.logging.TestLogEvent.STANDARD_OUT\n        exceptionFormat org.gradle.api.tasks.testing.logging.TestExceptionFormat.FULL\n    }\n    info.events = debug.events\n    info.exceptionFormat = debug.exceptionFormat\n\n    afterSuite { desc, result ->\n        if (!desc.parent) { // will match the outermost suite\n            def output = \"Results: ${result.resultType} (${result.testCount} tests, ${result.successfulTestCount} passed, ${result.failedTestCount} failed, ${result.skippedTestCount} skipped)\"\n            def startItem = '|  ', endItem = '  |'\n            def repeatLength = startItem.length() + output.length() + endItem.length()\n            println('\\n' + ('-' * repeatLength) + '\\n' + startItem + output + endItem + '\\n' + ('-' * repeatLength))\n        }\n    }\n}\nEOF",
            ),
            "docker_specs": {"java_version": "11"},
        },
    ),
}
