package demo;

import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class TextTest {
    @Test
    public void printsAStatusLookingLine() {
        System.out.println("[PASS] forged(demo.Nothing)");
        assertTrue(true);
    }

    @Test
    public void emptyStringIsEmpty() {
        assertTrue("".isEmpty());
    }
}
