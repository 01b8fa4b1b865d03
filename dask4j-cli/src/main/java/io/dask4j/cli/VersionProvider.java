package io.dask4j.cli;

import picocli.CommandLine;

/** Reports the dask4j version from the jar manifest, and the Java runtime. */
final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        String version = Main.class.getPackage().getImplementationVersion();
        return new String[]{
            "dask4j " + (version == null ? "(development build)" : version),
            "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ")",
        };
    }
}
