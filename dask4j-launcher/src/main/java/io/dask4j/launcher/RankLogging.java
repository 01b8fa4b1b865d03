package io.dask4j.launcher;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.comm.config.Settings;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.filter.ThresholdFilter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.FileAppender;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.List;

/**
 * Per-rank logging, configured in code so that a user's jar needs no logback.xml: everything at {@code
 * INFO} (or {@code DASK4J_LOG_LEVEL}) goes to {@code <dir>/rank-<r>.log}, rewritten at each run, and only
 * warnings and errors reach the console (stderr), prefixed with the rank, so that the console of an
 * {@code mpirun} job shows the client's own output and what went wrong, not N ranks of chatter.
 *
 * <p>Replaces whatever logback configuration was loaded before. Call from one thread at start-up; if the
 * logging backend is not logback, nothing is changed and logs go where that backend sends them.
 */
public final class RankLogging {
    private static final String FILE_PATTERN = "%d{HH:mm:ss.SSS} %-5level [%thread] %logger{30} - %msg%n%ex";
    private static final Logger LOG = LoggerFactory.getLogger(RankLogging.class);

    private RankLogging() {
    }

    /** The log file of {@code rank} in {@code directory}. */
    public static Path file(Path directory, int rank) {
        return directory.resolve("rank-" + rank + ".log");
    }

    /**
     * Sends this process's logs to {@code rank}'s file in {@code directory} (console only when null) and
     * warnings to the console. Returns the file, or null.
     */
    public static Path configure(Path directory, int rank) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return null;
        }
        context.reset();
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.toLevel(Settings.LOG_LEVEL.stringValue(ConfigSource.system(), "INFO"), Level.INFO));

        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(context);
        console.setName("console");
        console.setTarget("System.err");
        console.setEncoder(encoder(context, "[rank " + rank + "] %-5level %logger{0}: %msg%n%ex{short}"));
        ThresholdFilter warnings = new ThresholdFilter();
        warnings.setLevel("WARN");
        warnings.setContext(context);
        warnings.start();
        console.addFilter(warnings);
        console.start();
        root.addAppender(console);

        if (directory == null) {
            return null;
        }
        Path file = file(directory, rank).toAbsolutePath();
        FileAppender<ILoggingEvent> appender = new FileAppender<>();
        appender.setContext(context);
        appender.setName("rank-file");
        appender.setFile(file.toString());
        appender.setAppend(false);
        appender.setEncoder(encoder(context, FILE_PATTERN));
        appender.start();
        if (!appender.isStarted()) {
            LOG.warn("cannot write the log file {}; logging warnings to the console only", file);
            return null;
        }
        root.addAppender(appender);
        return file;
    }

    /** Writes the header lines that open every rank's log. */
    public static void header(List<String> lines) {
        for (String line : lines) {
            LOG.info(line);
        }
    }

    /** Flushes and closes the appenders (before the process exits without running shutdown hooks). */
    public static void stop() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.stop();
        }
    }

    private static PatternLayoutEncoder encoder(LoggerContext context, String pattern) {
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(pattern);
        encoder.start();
        return encoder;
    }
}
