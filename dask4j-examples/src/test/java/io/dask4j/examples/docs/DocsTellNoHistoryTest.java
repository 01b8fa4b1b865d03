package io.dask4j.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The user docs (README.md, docs/*.md and every other README.md of the repository) describe the product as it is, not
 * the history of their writing: no numbered work sessions, dated runs, commit hashes or bisections. What changed
 * belongs in the commit messages.
 */
class DocsTellNoHistoryTest {

    /** Each with what it catches; case-insensitive. */
    static final List<Pattern> HISTORY = List.of(
            Pattern.compile("\\bsessions? \\d+", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\bthis session\\b", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\b20\\d\\d-[01]\\d-[0-3]\\d\\b"),
            // a commit hash: 7-40 hex digits with both letters and digits, not part of a key such as map-1a2b3c4d-17
            Pattern.compile("(?<![-\\w])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![-\\w])"),
            Pattern.compile("\\bbisect", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\b(previously|formerly)\\b", Pattern.CASE_INSENSITIVE));

    /** README.md files of the sources (not of build output or hidden directories), and docs/*.md. */
    static List<Path> userDocs(Path root) throws IOException {
        List<Path> docs = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                String name = dir.getFileName().toString();
                boolean skip = !dir.equals(root) && (name.startsWith(".") || name.equals("target")
                        || name.equals("node_modules"));
                return skip ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (file.getFileName().toString().equals("README.md")) {
                    docs.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        try (Stream<Path> files = Files.list(root.resolve("docs"))) {
            files.filter(p -> p.toString().endsWith(".md")).forEach(docs::add);
        }
        return docs.stream().sorted().toList();
    }

    /** Where {@code text} tells history: {@code name:line: the match}. */
    static List<String> historyIn(String name, String text) {
        List<String> found = new ArrayList<>();
        List<String> lines = text.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            for (Pattern p : HISTORY) {
                Matcher m = p.matcher(lines.get(i));
                while (m.find()) {
                    found.add(name + ":" + (i + 1) + ": " + m.group());
                }
            }
        }
        return found;
    }

    @Test
    void noUserDocTellsTheHistoryOfItsWriting() throws IOException {
        Path root = DocSnippets.repositoryRoot();
        List<Path> docs = userDocs(root);
        assertThat(docs).contains(root.resolve("README.md"), root.resolve("docs/user-guide.md"),
                root.resolve("dask4j-examples/README.md"));
        List<String> found = new ArrayList<>();
        for (Path doc : docs) {
            found.addAll(historyIn(root.relativize(doc).toString(), Files.readString(doc, StandardCharsets.UTF_8)));
        }
        assertThat(found).as("history in the user docs: say it in the present tense, and put what changed in the "
                + "commit message").isEmpty();
    }

    @Test
    void theChecksCatchHistoryAndLeaveKeysAndNumbersAlone() {
        assertThat(historyIn("d.md", "Since session 12 the engine parks.\nMeasured 2026-11-30 at 3e4f5a6.\n"
                + "A bisection found it; previously it spun.")).hasSize(5);
        assertThat(historyIn("d.md", "keys such as `map-1a2b3c4d-17`; 500001000555 tasks; 0x54000001; "
                + "the session's secret")).isEmpty();
    }
}
