package io.dask4j.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/troubleshooting.md's "Known gaps" lists exactly the gaps of docs/status.md's "Known gaps", by their bold
 * titles, each with its symptom and what to do: a gap added to (or renamed in) status.md without an entry for users
 * who meet it fails here.
 */
class KnownGapsTest {

    private static final Pattern TITLE = Pattern.compile("^- \\*\\*(.+?)\\*\\*");

    /** The list items of the {@code ## Known gaps} section of {@code doc}, each as its lines joined. */
    static List<String> gaps(String doc) {
        List<String> items = new ArrayList<>();
        boolean inSection = false;
        for (String line : doc.lines().toList()) {
            if (line.startsWith("## ")) {
                inSection = line.strip().equals("## Known gaps");
                continue;
            }
            if (!inSection) {
                continue;
            }
            if (line.startsWith("- ")) {
                items.add(line);
            } else if (line.startsWith("  ") && !items.isEmpty()) {
                items.set(items.size() - 1, items.getLast() + " " + line.strip());
            }
        }
        return items;
    }

    static List<String> titles(List<String> gaps) {
        List<String> titles = new ArrayList<>();
        for (String gap : gaps) {
            Matcher m = TITLE.matcher(gap);
            titles.add(m.find() ? m.group(1).strip() : "(no bold title) " + gap);
        }
        return titles;
    }

    @Test
    void troubleshootingHasAnEntryForEveryKnownGapOfStatus() throws IOException {
        Path root = DocSnippets.repositoryRoot();
        List<String> status = gaps(Files.readString(root.resolve("docs/status.md"), StandardCharsets.UTF_8));
        List<String> troubleshooting = gaps(Files.readString(root.resolve("docs/troubleshooting.md"),
                StandardCharsets.UTF_8));
        assertThat(status).as("docs/status.md's known gaps").isNotEmpty();
        assertThat(titles(troubleshooting))
                .as("docs/troubleshooting.md's Known gaps, by bold title, against docs/status.md's: a gap there needs "
                        + "an entry here with its symptom and what to do")
                .containsExactlyElementsOf(titles(status));
        for (String entry : troubleshooting) {
            assertThat(entry).as("a troubleshooting entry for a known gap").contains("*Symptom:*", "*What to do:*");
        }
    }

    @Test
    void aSectionsItemsAndTitlesAreRead() {
        String doc = "# T\n\n## Known gaps\n\n- **One.** first\n  line two\n- **Two** second\n\n## Next\n\n- **Three**\n";
        List<String> gaps = gaps(doc);
        assertThat(gaps).containsExactly("- **One.** first line two", "- **Two** second");
        assertThat(titles(gaps)).containsExactly("One.", "Two");
    }
}
