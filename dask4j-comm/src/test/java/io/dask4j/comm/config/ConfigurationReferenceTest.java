package io.dask4j.comm.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** docs/configuration.md and the sources against the declarations of {@link Settings}. */
class ConfigurationReferenceTest {

    /** Names of settings as they appear in code, scripts and docs. */
    private static final Pattern VARIABLE = Pattern.compile("\\bDASK4J_[A-Z0-9_]*[A-Z0-9]\\b");
    private static final Pattern PROPERTY = Pattern.compile(
            "(?:-D|setProperty\\(\")(dask4j\\.[A-Za-z0-9.]*[A-Za-z0-9])|(?<![\\w.])(dask4j\\.(?:mpi|test)\\.[A-Za-z0-9]+)\\b");
    /** A read that bypasses the registry: a getter of the JDK called with a dask4j name. */
    private static final Pattern DIRECT_READ = Pattern.compile(
            "(?:getProperty|getInteger|getLong|getBoolean|getenv|getOrDefault)\\(\\s*\"(?:dask4j\\.|DASK4J_)");

    /** Names that look like settings but are not: a marker that a test's gadget class sets when it is initialised. */
    private static final Set<String> NOT_SETTINGS = Set.of("dask4j.test.gadget.initialized", "dask4j.test.gadget");

    private static final Path ROOT = repositoryRoot();

    private static Path repositoryRoot() {
        Path module = Path.of("").toAbsolutePath();
        Path root = module.getParent();
        if (!Files.isRegularFile(root.resolve("dask4j"))) {
            throw new IllegalStateException("not a module of the dask4j repository: " + module);
        }
        return root;
    }

    @Test
    void theCheckedInReferenceIsWhatTheDeclarationsProduce() throws IOException {
        String checkedIn = Files.readString(ROOT.resolve("docs/configuration.md"), StandardCharsets.UTF_8);
        assertThat(checkedIn)
                .as("docs/configuration.md differs from the declarations in io.dask4j.comm.config.Settings; "
                        + "regenerate it from the repository root with: " + ConfigurationReference.REGENERATE)
                .isEqualTo(ConfigurationReference.render());
    }

    @Test
    void theReferenceListsEverySettingWithItsDefault() {
        String reference = ConfigurationReference.render();
        for (Setting s : Settings.ALL) {
            assertThat(reference).contains("| `" + s.usage() + "` | ").contains(s.defaultText());
        }
    }

    @Test
    void everySettingNamedInTheRepositoryIsDeclared() throws IOException {
        Set<String> declared = Settings.ALL.stream().map(Setting::name).collect(Collectors.toSet());
        Set<String> undeclared = new TreeSet<>();
        for (Path file : scannedFiles()) {
            String text = read(file);
            Matcher v = VARIABLE.matcher(text);
            while (v.find()) {
                if (!declared.contains(v.group())) {
                    undeclared.add(v.group() + " in " + ROOT.relativize(file));
                }
            }
            Matcher p = PROPERTY.matcher(text);
            while (p.find()) {
                String name = p.group(1) != null ? p.group(1) : p.group(2);
                if (!declared.contains(name) && !NOT_SETTINGS.contains(name)) {
                    undeclared.add(name + " in " + ROOT.relativize(file));
                }
            }
        }
        assertThat(undeclared).as("settings named in the repository but not declared in io.dask4j.comm.config.Settings")
                .isEmpty();
    }

    @Test
    void productCodeReadsSettingsOnlyThroughTheRegistry() throws IOException {
        List<String> direct = new ArrayList<>();
        for (Path file : javaFiles("src/main/java")) {
            String[] lines = read(file).split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                if (DIRECT_READ.matcher(lines[i]).find()) {
                    direct.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + lines[i].strip());
                }
            }
        }
        assertThat(direct).as("reads of dask4j settings that bypass io.dask4j.comm.config.Settings").isEmpty();
    }

    /** Java sources and tests of every module, the launcher script, CI scripts, the READMEs and docs. */
    private static List<Path> scannedFiles() throws IOException {
        List<Path> files = new ArrayList<>(javaFiles("src"));
        // This package's tests name misspelt settings on purpose.
        files.removeIf(f -> f.toString().contains("/src/test/java/io/dask4j/comm/config/"));
        files.add(ROOT.resolve("dask4j"));
        files.add(ROOT.resolve("README.md"));
        try (Stream<Path> modules = Files.list(ROOT)) {
            modules.map(m -> m.resolve("README.md")).filter(Files::isRegularFile).forEach(files::add);
        }
        for (String dir : List.of("docs", ".ci")) {
            try (Stream<Path> s = Files.list(ROOT.resolve(dir))) {
                s.filter(Files::isRegularFile).forEach(files::add);
            }
        }
        return files;
    }

    private static List<Path> javaFiles(String under) throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path module : modules.filter(m -> Files.isDirectory(m.resolve(under))).toList()) {
                try (Stream<Path> s = Files.walk(module.resolve(under))) {
                    s.filter(f -> f.toString().endsWith(".java") || f.toString().endsWith(".sh")
                            || f.toString().endsWith(".py")).forEach(files::add);
                }
            }
        }
        return files;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
