package io.dask4j.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code ```java} block of README.md, dask4j-examples/README.md and docs/*.md compiles against dask4j's modules (this module's test
 * class path: the launcher, the runtime, arrays, MPI, comm), with dask4j's packages and the JDK's common ones
 * imported ({@link DocSnippets} says how a block becomes a class). The examples these blocks point to run in
 * their own tests (QuickstartTest, MonteCarloPiTest).
 */
class DocSnippetsTest {

    private static final List<String> JDK_PACKAGES = List.of("java.util", "java.util.concurrent", "java.util.stream",
            "java.nio.file", "java.time", "java.io", "java.lang.foreign");

    @Test
    void everyJavaBlockOfTheDocsCompiles(@TempDir Path out) throws IOException {
        Path root = DocSnippets.repositoryRoot();
        DocSnippets docs = DocSnippets.of(root);
        assertThat(docs.snippets()).as("java blocks in README.md and docs/").hasSizeGreaterThanOrEqualTo(5);
        List<String> imports = new ArrayList<>(JDK_PACKAGES);
        imports.addAll(dask4jPackages());
        List<DocSnippets.Unit> units = new ArrayList<>();
        for (int i = 0; i < docs.snippets().size(); i++) {
            units.add(DocSnippets.unit(docs.snippets().get(i), i, imports));
        }
        List<String> errors = compile(units, out, root);
        assertThat(errors).as("java blocks of the docs that do not compile").isEmpty();
    }

    @Test
    void aBlockThatDoesNotCompileIsReportedAtItsLineInItsDoc(@TempDir Path out) {
        Path root = DocSnippets.repositoryRoot();
        DocSnippets.Snippet bad = new DocSnippets.Snippet(root.resolve("docs/tuning.md"), 10,
                "int x = 1;\nString y = x;\n", "");
        List<String> errors = compile(List.of(DocSnippets.unit(bad, 0, JDK_PACKAGES)), out, root);
        assertThat(errors).singleElement().asString().startsWith("docs/tuning.md:11: ").contains("incompatible types");
    }

    @Test
    void blocksBecomeFilesClassesOrMethodsByTheirShape() {
        assertThat(DocSnippets.shape("import java.util.List;\npublic class Hello {}\n")).isEqualTo(DocSnippets.Shape.WHOLE_FILE);
        assertThat(DocSnippets.shape("public static void main(String[] args) {\n}\n")).isEqualTo(DocSnippets.Shape.MEMBERS);
        assertThat(DocSnippets.shape("var x = 1;\n")).isEqualTo(DocSnippets.Shape.STATEMENTS);
    }

    private static List<String> compile(List<DocSnippets.Unit> units, Path out, Path root) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<Source> sources = units.stream().map(Source::new).toList();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            List<String> options = List.of("-classpath", System.getProperty("java.class.path"), "-d", out.toString(),
                    "-proc:none", "-Xlint:none", "-nowarn");
            javac.getTask(null, files, diagnostics, options, null, sources).call();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        List<String> errors = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR && d.getSource() instanceof Source s) {
                long line = d.getLineNumber() - s.unit.linesBefore();
                errors.add(s.unit.snippet().where(root).replaceAll(":\\d+$", "") + ":"
                        + (s.unit.snippet().firstLine() + line - 1) + ": " + d.getMessage(Locale.ROOT));
            } else if (d.getKind() == Diagnostic.Kind.ERROR) {
                errors.add(d.getMessage(Locale.ROOT));
            }
        }
        return errors;
    }

    /** The packages of dask4j's main classes on this test's class path (not the tests' own). */
    private static List<String> dask4jPackages() throws IOException {
        TreeSet<String> packages = new TreeSet<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry);
            if (entry.contains("test-classes") || entry.endsWith("-tests.jar")) {
                continue;
            }
            if (Files.isDirectory(path)) {
                try (Stream<Path> s = Files.walk(path)) {
                    s.filter(f -> f.toString().endsWith(".class"))
                            .map(f -> path.relativize(f.getParent()).toString().replace(File.separatorChar, '.'))
                            .filter(p -> p.startsWith("io.dask4j")).forEach(packages::add);
                }
            } else if (entry.endsWith(".jar") && Files.isRegularFile(path)) {
                try (ZipFile jar = new ZipFile(path.toFile())) {
                    jar.stream().map(e -> e.getName())
                            .filter(n -> n.startsWith("io/dask4j/") && n.endsWith(".class") && n.lastIndexOf('/') > 0)
                            .map(n -> n.substring(0, n.lastIndexOf('/')).replace('/', '.')).forEach(packages::add);
                }
            }
        }
        return List.copyOf(packages);
    }

    /** A unit's source as javac reads it. */
    private static final class Source extends SimpleJavaFileObject {
        final DocSnippets.Unit unit;

        Source(DocSnippets.Unit unit) {
            super(URI.create("string:///" + unit.className().replace('.', '/') + Kind.SOURCE.extension), Kind.SOURCE);
            this.unit = unit;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return unit.source();
        }
    }
}
