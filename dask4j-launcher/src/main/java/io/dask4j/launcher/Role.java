package io.dask4j.launcher;

import java.util.Locale;

/** What a rank of an MPI-launched cluster does. A rank may have several roles (see {@link RankLayout}). */
public enum Role {
    SCHEDULER, CLIENT, WORKER;

    /** Lower-case name, as written in logs. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
