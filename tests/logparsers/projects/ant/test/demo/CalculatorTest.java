package demo;

import static org.junit.Assert.assertEquals;

import org.junit.Ignore;
import org.junit.Test;

public class CalculatorTest {
    @Test
    public void addsNumbers() {
        assertEquals(3, Calculator.add(1, 2));
    }

    @Test
    public void failsWithMultilineMessage() {
        assertEquals("line one\nline two", "line one\nline 2");
    }

    @Test
    public void divisionByZeroErrors() {
        Calculator.divide(1, 0);
    }

    @Ignore("not ready")
    @Test
    public void ignoredTest() {}
}
