package io.dask4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.comm.CommOptions;
import io.dask4j.comm.JvmFlags;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.cluster.LocalCluster;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./dask4j} launcher script itself, run from a copy in a temporary "project" whose build looks
 * current (a stamp, a jar, and this test's class path as the dependencies), so that no test ever starts the
 * script's Maven build.
 */
class LauncherScriptTest {

    /** A task whose lambda lives in a class only the user's class path has, as an outside client's would. */
    private static final String USER_CLASS = """
            package com.example;

            import io.dask4j.comm.JvmFlags;
import io.dask4j.runtime.client.Client;

            public final class Ext {
                public static Object answer(Client client) throws Exception {
                    return client.submit(() -> 6 * 7).result();
                }
            }
            """;

    /** The project the launcher runs in; without sources, so that its build looks current. */
    @TempDir
    Path root;

    /** The user's application, outside the project. */
    @TempDir
    Path app;

    @BeforeEach
    void copyTheLauncherIntoABuiltProject() throws IOException {
        Path script = Path.of(System.getProperty("user.dir")).getParent().resolve("dask4j");
        Files.copy(script, root.resolve("dask4j"));
        root.resolve("dask4j").toFile().setExecutable(true);
        Path target = Files.createDirectories(root.resolve("dask4j-cli/target"));
        try (OutputStream jar = new JarOutputStream(Files.newOutputStream(target.resolve("dask4j-cli-test.jar")), new Manifest())) {
            jar.flush();
        }
        Files.writeString(target.resolve("classpath.txt"), System.getProperty("java.class.path"));
        Files.writeString(target.resolve(".dask4j-build-stamp"), "");
    }

    private ProcessBuilder launcher(Map<String, String> env, String... args) {
        ProcessBuilder pb = new ProcessBuilder(command(args));
        pb.environment().remove("CLASSPATH");
        pb.environment().remove("DASK4J_JAVA_OPTS");
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().putAll(env);
        return pb;
    }

    private List<String> command(String... args) {
        List<String> line = new ArrayList<>(List.of(root.resolve("dask4j").toString()));
        line.addAll(List.of(args));
        return line;
    }

    private static String output(Process p) throws Exception {
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    @Test
    void theScriptStartsJavaWithTheRequiredJvmFlags() throws IOException {
        String script = Files.readString(root.resolve("dask4j"));
        assertThat(script).contains("exec \"$java\" " + String.join(" ", JvmFlags.REQUIRED) + " ");
    }

    @Test
    @Timeout(60)
    void classpathHelpPrintsUsageInsteadOfTheClassPath() throws Exception {
        Process p = launcher(Map.of(), "classpath", "--help").redirectErrorStream(true).start();
        String out = output(p);
        assertThat(p.exitValue()).isZero();
        assertThat(out).startsWith("Usage: dask4j classpath").doesNotContain("dask4j-cli-test.jar");
    }

    @Test
    @Timeout(60)
    void classpathRefusesAnUnknownArgumentWithUsageAndExitCode2() throws Exception {
        Process p = launcher(Map.of(), "classpath", "--bogus").redirectErrorStream(true).start();
        String out = output(p);
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(out).contains("--bogus", "Usage: dask4j classpath");
    }

    /**
     * {@code CLASSPATH=app.jar ./dask4j worker ...}: the worker loads the classes of an outside client's task
     * lambdas from CLASSPATH. Before, the script's --class-path hid CLASSPATH from java and the task failed
     * with a ClassNotFoundException for com.example.Ext. The worker's main class is the CLI's, so the user's
     * package is declared with --allow-classes, as docs/security.md tells users to.
     */
    @Test
    @Timeout(120)
    void aWorkerStartedByTheLauncherRunsTasksWhoseClassesAreOnTheUsersClasspath() throws Exception {
        Path userClasses = compileUserClass();
        Path workerLog = app.resolve("worker.log");
        try (LocalCluster cluster = LocalCluster.builder().workers(0).transport("tcp").start();
             Client client = cluster.client()) {
            Process worker = launcher(Map.of("CLASSPATH", userClasses.toString(), CommOptions.SECRET_ENV, cluster.options().secretText()),
                    "worker", cluster.schedulerAddress().toString(), "--name", "launched", "--allow-classes", "com.example.*")
                    .redirectErrorStream(true).redirectOutput(workerLog.toFile()).start();
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (cluster.scheduler().snapshot().workers().isEmpty()) {
                    assertThat(worker.isAlive()).as(() -> "the worker exited: " + read(workerLog)).isTrue();
                    assertThat(System.nanoTime() - deadline).as("the worker registered within 60 s").isNegative();
                    Thread.sleep(20);
                }
                try (URLClassLoader loader = new URLClassLoader(new URL[]{userClasses.toUri().toURL()}, getClass().getClassLoader())) {
                    Object answer = loader.loadClass("com.example.Ext").getMethod("answer", Client.class).invoke(null, client);
                    assertThat(answer).isEqualTo(42);
                }
            } finally {
                worker.destroy();
                if (!worker.waitFor(20, TimeUnit.SECONDS)) {
                    worker.destroyForcibly();
                }
            }
        }
    }

    private Path compileUserClass() throws IOException {
        Path src = Files.createDirectories(app.resolve("src/com/example")).resolve("Ext.java");
        Files.writeString(src, USER_CLASS);
        Path classes = Files.createDirectories(app.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int code = javac.run(null, null, null, "-d", classes.toString(),
                "--class-path", System.getProperty("java.class.path"), src.toString());
        assertThat(code).as("javac exit code").isZero();
        assertThat(classes.resolve("com/example/Ext.class")).exists();
        return classes;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
