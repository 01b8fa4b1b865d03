package io.dask4j.runtime.client;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Collects what one class logs (through logback, the tests' SLF4J binding) while it is open:
 * {@code try (LogCapture log = LogCapture.of(Client.class)) { ...; assertThat(log.warnings()) ... }}. The
 * appender is thread-safe; events come from whichever thread logged them.
 */
final class LogCapture implements AutoCloseable {
    private final Logger logger;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private LogCapture(String loggerName) {
        this.logger = (Logger) LoggerFactory.getLogger(loggerName);
        appender.start();
        logger.addAppender(appender);
    }

    static LogCapture of(Class<?> source) {
        return new LogCapture(source.getName());
    }

    /** Collects what the logger named {@code loggerName} logs (for a class this package cannot name). */
    static LogCapture of(String loggerName) {
        return new LogCapture(loggerName);
    }

    /** Each WARN or ERROR event so far as {@code LEVEL message}, saying so if it carries a stack trace. */
    List<String> warnings() {
        synchronized (appender) {   // AppenderBase appends under this lock
            return appender.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN)).map(LogCapture::describe).toList();
        }
    }

    private static String describe(ILoggingEvent e) {
        String text = e.getLevel() + " " + e.getFormattedMessage();
        return e.getThrowableProxy() == null ? text : text + " [with a stack trace of " + e.getThrowableProxy().getClassName() + "]";
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        appender.stop();
    }
}
