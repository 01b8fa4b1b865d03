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
 * The docs' blocks other than Java (which {@link DocSnippetsTest} compiles) and {@code ./dask4j} commands (which the
 * CLI's DocCommandsTest parses) name what exists: a Maven dependency block names a module of this build at its
 * version; the {@code logback.xml} to copy is the CLI's; a shell recipe's main class is a class of the build and its
 * jar is the one its module builds.
 */
class DocBlocksTest {

    /** A fenced block: its doc, first line, language (the text after the fence) and text. */
    record Block(Path doc, int firstLine, String language, String text) {
    }

    private static final Pattern MAIN_CLASS = Pattern.compile("\\bio\\.dask4j(\\.[a-z]\\w*)+\\.[A-Z]\\w*");
    private static final Pattern JAR = Pattern.compile("\\b(dask4j-[a-z]+)/target/([\\w.-]+\\.jar)");
    private static final Pattern TAG = Pattern.compile("<(groupId|artifactId|version)>([^<]*)</\\1>");

    static List<Block> blocks(Path root) throws IOException {
        List<Block> out = new ArrayList<>();
        for (Path doc : DocSnippets.docs(root)) {
            List<String> lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                String fence = lines.get(i).strip();
                if (!fence.startsWith("```")) {
                    continue;
                }
                int start = i + 1;
                StringBuilder text = new StringBuilder();
                for (i = start; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
                    text.append(lines.get(i)).append('\n');
                }
                out.add(new Block(doc, start + 1, fence.substring(3).strip(), text.toString()));
            }
        }
        return out;
    }

    private static String projectVersion(Path root) throws IOException {
        Matcher m = Pattern.compile("<artifactId>dask4j-parent</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(Files.readString(root.resolve("pom.xml")));
        assertThat(m.find()).as("the project's version in pom.xml").isTrue();
        return m.group(1);
    }

    private static String where(Path root, Block b) {
        return root.relativize(b.doc()) + ":" + b.firstLine();
    }

    /** The text without XML comments and blank space between tags, for comparing two copies of one file. */
    static String xmlContent(String xml) {
        return xml.replaceAll("(?s)<!--.*?-->", "").replaceAll(">\\s+<", "><").strip();
    }

    @Test
    void dependencyBlocksNameAModuleOfThisBuildAtItsVersion() throws IOException {
        Path root = DocSnippets.repositoryRoot();
        String version = projectVersion(root);
        String modules = Files.readString(root.resolve("pom.xml"));
        int seen = 0;
        for (Block b : blocks(root)) {
            if (!b.language().equals("xml") || !b.text().contains("<dependency>")) {
                continue;
            }
            seen++;
            Matcher m = TAG.matcher(b.text());
            while (m.find()) {
                switch (m.group(1)) {
                    case "groupId" -> assertThat(m.group(2)).as(where(root, b)).isEqualTo("io.dask4j");
                    case "artifactId" -> assertThat(modules).as(where(root, b) + ": a module of pom.xml")
                            .contains("<module>" + m.group(2) + "</module>");
                    default -> assertThat(m.group(2)).as(where(root, b) + ": the project's version").isEqualTo(version);
                }
            }
        }
        assertThat(seen).as("dependency blocks in the docs").isGreaterThanOrEqualTo(2);
    }

    @Test
    void theLogbackXmlToCopyIsTheClis() throws IOException {
        Path root = DocSnippets.repositoryRoot();
        String cli = xmlContent(Files.readString(root.resolve("dask4j-cli/src/main/resources/logback.xml")));
        List<Block> copies = blocks(root).stream()
                .filter(b -> b.language().equals("xml") && b.text().contains("<configuration>")).toList();
        assertThat(copies).as("logback.xml blocks in the docs").isNotEmpty();
        for (Block b : copies) {
            assertThat(xmlContent(b.text())).as(where(root, b) + " is a copy of dask4j-cli's logback.xml").isEqualTo(cli);
        }
    }

    @Test
    void shellRecipesStartClassesAndJarsThatTheBuildMakes() throws IOException, ClassNotFoundException {
        Path root = DocSnippets.repositoryRoot();
        String version = projectVersion(root);
        int classes = 0;
        for (Block b : blocks(root)) {
            if (b.language().equals("java") || b.language().equals("xml")) {
                continue;
            }
            Matcher c = MAIN_CLASS.matcher(b.text());
            while (c.find()) {
                Class<?> type = Class.forName(c.group(), false, getClass().getClassLoader());
                assertThat(type.getMethods()).as(where(root, b) + ": " + c.group() + " has a main method")
                        .anyMatch(method -> method.getName().equals("main"));
                classes++;
            }
            Matcher j = JAR.matcher(b.text());
            while (j.find()) {
                assertThat(j.group(2)).as(where(root, b) + ": the jar " + j.group(1) + " builds")
                        .isEqualTo(j.group(1) + "-" + version + ".jar");
                assertThat(root.resolve(j.group(1)).resolve("pom.xml")).as(where(root, b)).isRegularFile();
            }
        }
        assertThat(classes).as("main classes started by the docs' recipes").isGreaterThanOrEqualTo(3);
    }

    @Test
    void theChecksSeeADifferentCopy() {
        String cli = "<configuration>\n  <!-- why -->\n  <root level=\"WARN\"/>\n</configuration>\n";
        assertThat(xmlContent("<configuration><root level=\"WARN\"/></configuration>")).isEqualTo(xmlContent(cli));
        assertThat(xmlContent("<configuration><root level=\"INFO\"/></configuration>")).isNotEqualTo(xmlContent(cli));
        assertThat(MAIN_CLASS.matcher("java ... io.dask4j.TaskRun").find()).as("a JFR event name is no class").isFalse();
        assertThat(MAIN_CLASS.matcher("java ... io.dask4j.examples.MonteCarloPi").find()).isTrue();
    }
}
