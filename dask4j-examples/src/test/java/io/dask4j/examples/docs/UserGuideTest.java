package io.dask4j.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.examples.UserGuide;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/user-guide.md's examples run: every Java block of the guide is a copy of text in {@link UserGuide}, and
 * running {@code UserGuide} prints what the blocks' comments promise.
 */
class UserGuideTest {

    /** The text without indentation and blank lines, so that a block matches however deep it is nested. */
    static String normalized(String text) {
        return text.lines().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.joining("\n"));
    }

    @Test
    void everyJavaBlockOfTheGuideIsACopyOfTheExamplesThatRun() throws IOException {
        Path root = DocSnippets.repositoryRoot();
        Path guide = root.resolve("docs/user-guide.md");
        String source = normalized(Files.readString(
                root.resolve("dask4j-examples/src/main/java/io/dask4j/examples/UserGuide.java")));
        List<DocSnippets.Snippet> blocks = DocSnippets.of(root).snippets().stream()
                .filter(s -> s.doc().equals(guide)).toList();
        assertThat(blocks).as("java blocks of docs/user-guide.md").hasSizeGreaterThanOrEqualTo(6);
        for (DocSnippets.Snippet block : blocks) {
            assertThat(source).as("%s is not a copy of UserGuide.java's text: change both together", block.where(root))
                    .contains(normalized(block.code()));
        }
    }

    @Test
    void aBlockThatDiffersFromTheExamplesIsFound() {
        String source = normalized("class A {\n    void f() {\n        int x = 1;\n        int y = 2;\n    }\n}\n");
        assertThat(source).contains(normalized("int x = 1;\n\nint y = 2;\n"));
        assertThat(source).doesNotContain(normalized("int x = 1;\nint y = 3;\n"));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theGuidesExamplesRunAndPrintWhatTheirCommentsPromise() throws Exception {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        try {
            UserGuide.main(new String[0]);
        } finally {
            System.setOut(original);
        }
        List<String> out = buffer.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(out).containsSubsequence(
                // releasing
                "1000000", "1", "0",
                // futures
                "b = 84", "squares = [1, 4, 9, 16]", "scores = [1.0, 1.5, 2.0]", "b is 84",
                // waiting
                "total = 500001000555", "first done: true",
                // graphs
                "{sum=42, mean=33.333333333333336}", "twice = 84",
                // arrays
                "mean 0.50, 1000 column maxima, symmetric: true",
                // errors
                "java.lang.ArithmeticException", "/ by zero", "true", "ERROR", "RemoteTaskException", "true", "true");
        assertThat(out).anySatisfy(l -> assertThat(l).startsWith("released: future ").contains("was released"));
    }
}
