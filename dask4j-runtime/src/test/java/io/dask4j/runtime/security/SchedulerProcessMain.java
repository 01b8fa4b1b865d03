package io.dask4j.runtime.security;

import io.dask4j.comm.Address;
import io.dask4j.runtime.protocol.SchedulerFile;
import io.dask4j.runtime.scheduler.Scheduler;
import io.dask4j.runtime.scheduler.SchedulerConfig;
import java.nio.file.Path;

/** A scheduler process with the default security, for tests that kill it: writes its scheduler file, then waits. */
public final class SchedulerProcessMain {
    private SchedulerProcessMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        Scheduler scheduler = Scheduler.start(SchedulerConfig.listeningOn(Address.tcp("127.0.0.1", 0)));
        SchedulerFile.write(Path.of(args[0]), scheduler.addresses(), scheduler.config().options());
        Thread.sleep(Long.MAX_VALUE);
    }
}
