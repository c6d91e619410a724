package demo;

import java.io.OutputStream;
import java.io.PrintStream;
import junit.framework.AssertionFailedError;
import junit.framework.Test;
import org.apache.tools.ant.taskdefs.optional.junit.JUnitResultFormatter;
import org.apache.tools.ant.taskdefs.optional.junit.JUnitTest;

/** Prints "[PASS] test", "[FAIL] test" or "[ERR] test" per test, then any failure message. */
public class ResultLineFormatter implements JUnitResultFormatter {
    private PrintStream out = System.out;
    private Test reported;

    @Override
    public void setOutput(OutputStream stream) {
        out = new PrintStream(stream, true);
    }

    @Override
    public void startTestSuite(JUnitTest suite) {}

    @Override
    public void endTestSuite(JUnitTest suite) {}

    @Override
    public void setSystemOutput(String text) {
        if (!text.isBlank()) {
            out.println(text);
        }
    }

    @Override
    public void setSystemError(String text) {
        setSystemOutput(text);
    }

    @Override
    public void startTest(Test test) {}

    @Override
    public void addFailure(Test test, AssertionFailedError failure) {
        report(test, "FAIL");
        out.println(failure.getMessage());
    }

    @Override
    public void addError(Test test, Throwable error) {
        report(test, "ERR");
        out.println("  " + error);
    }

    @Override
    public void endTest(Test test) {
        if (test != reported) {
            report(test, "PASS");
        }
    }

    private void report(Test test, String result) {
        reported = test;
        out.println("[" + result + "] " + test);
    }
}
