package io.dask4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's quick start must run and print what its comments promise. */
class QuickstartTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void quickstartRunsAndPrintsTheResultsItsCommentsPromise() {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        try {
            Quickstart.main(new String[0]);
        } finally {
            System.setOut(original);
        }
        String out = buffer.toString(StandardCharsets.UTF_8);
        assertThat(out).contains("b = 84", "squares = [1, 4, 9, 16]", "z = 40");
        // Each element of x is in [0, 1), so the sum of x + x.T over 2000 x 2000 is near 2 * 0.5 * 4e6.
        String sumLine = out.lines().filter(l -> l.startsWith("sum of")).findFirst().orElseThrow();
        double sum = Double.parseDouble(sumLine.replaceAll("^sum of \\(x \\+ x\\.T\\)\\.T = ([0-9.]+) .*$", "$1"));
        assertThat(sum).isBetween(3.98e6, 4.02e6);
    }
}
