package io.dask4j.comm.tcp;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tcp backend's one timer thread, shared by the deadlines of lingering closes ({@link LingeringClose}) and the
 * write-stall checks ({@link WriteStallChecker}). Its tasks only close sockets and read counters, which is quick,
 * so one thread serves every comm of the process. The thread is a daemon (it never keeps the JVM alive) and
 * exists only while some task is pending. Stateless apart from the timer; any thread.
 */
final class TcpTimer {
    /** Longer than any period scheduled here, so that a periodic task does not make the thread exit and restart. */
    private static final long IDLE_THREAD_SECONDS = 5;

    private static final ScheduledThreadPoolExecutor TIMER = timer();
    private static final Logger LOG = LoggerFactory.getLogger(TcpTimer.class);

    private TcpTimer() {
    }

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().daemon().name("dask4j-tcp-timer").factory());
        timer.setRemoveOnCancelPolicy(true);   // a cancelled task must not keep its comm's buffers alive
        timer.setKeepAliveTime(IDLE_THREAD_SECONDS, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true);    // no thread at all while nothing is pending
        return timer;
    }

    /** Runs {@code task} once after {@code delay}. */
    static ScheduledFuture<?> after(long delay, TimeUnit unit, Runnable task) {
        return TIMER.schedule(task, delay, unit);
    }

    /**
     * Runs {@code task} every {@code period} until cancelled. Whatever the task throws is logged and the series goes
     * on (an exception would otherwise end it silently): an allocation failure during one check must not end the
     * checks for good.
     */
    static ScheduledFuture<?> every(long period, TimeUnit unit, Runnable task) {
        return TIMER.scheduleWithFixedDelay(() -> {
            try {
                task.run();
            } catch (RuntimeException | OutOfMemoryError e) {
                LOG.error("a periodic tcp check failed; it runs again in {} {}", period, unit, e);
            }
        }, period, period, unit);
    }
}
