package io.dask4j.mpi.launch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MpiLaunchersTest {

    @TempDir
    Path dir;

    /** A fake launcher in {@code dir} that prints {@code version} for --version. */
    private Path fake(Path dir, String name, String version) throws IOException {
        return fakeScript(dir, name, "printf '%s\\n' '" + version + "'");
    }

    private Path fakeScript(Path dir, String name, String body) throws IOException {
        Files.createDirectories(dir);
        Path program = dir.resolve(name);
        Files.writeString(program, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(program, PosixFilePermissions.fromString("rwxr-xr-x"));
        return program;
    }

    @Test
    void aPlainMpirunIsTakenForTheMpiItsVersionNames() throws Exception {
        Path open = fake(dir.resolve("ompi/bin"), "mpirun", "mpirun (Open MPI) 5.0.3");
        Path hydra = fake(dir.resolve("mpich/bin"), "mpiexec", "HYDRA build details:\n    Version: 4.1.2");

        assertThat(MpiLaunchers.find("openmpi", open.getParent().toString())).isEqualTo(open.toString());
        assertThat(MpiLaunchers.find("mpich", open.getParent().toString())).isNull();
        assertThat(MpiLaunchers.find("mpich", hydra.getParent().toString())).isEqualTo(hydra.toString());
        String both = open.getParent() + File.pathSeparator + hydra.getParent();
        assertThat(MpiLaunchers.find("openmpi", both)).isEqualTo(open.toString());
        assertThat(MpiLaunchers.find("mpich", both)).isEqualTo(hydra.toString());
    }

    @Test
    void debiansNamedLauncherComesBeforeAPlainOne() throws Exception {
        fake(dir, "mpirun", "mpirun (Open MPI) 4.1.4");
        fake(dir, "mpirun.openmpi", "mpirun (Open MPI) 4.1.4");
        assertThat(MpiLaunchers.find("openmpi", dir.toString())).isEqualTo("mpirun.openmpi");
    }

    @Test
    void aLauncherOfAnotherMpiOrNoneAtAllIsNotFound() throws Exception {
        Path other = fake(dir.resolve("lam"), "mpirun", "LAM/MPI 7.1.4");
        assertThat(MpiLaunchers.find("openmpi", other.getParent().toString())).isNull();
        Files.createDirectories(dir.resolve("odd/mpirun")); // a directory of that name is no program
        assertThat(MpiLaunchers.find("openmpi", dir.resolve("odd") + File.pathSeparator + dir.resolve("none"))).isNull();
    }

    @Test
    void anAnswerOnStandardErrorCountsAndAFailingProgramIsNoLauncher() throws Exception {
        Path stderr = fakeScript(dir.resolve("e"), "mpiexec", "echo 'mpiexec (OpenRTE) 4.1.4' >&2");
        assertThat(MpiLaunchers.find("openmpi", stderr.getParent().toString())).isEqualTo(stderr.toString());
        Path failing = fakeScript(dir.resolve("f"), "mpirun", "exit 1");
        assertThat(MpiLaunchers.find("openmpi", failing.getParent().toString())).isNull();
    }

    @Test
    void theLibraryBesideAPlainLauncherIsNamedByItsAbsolutePath() throws IOException {
        Path launcher = fake(dir.resolve("ompi/bin"), "mpirun", "mpirun (Open MPI) 5.0.3");
        assertThat(MpiLaunchers.libraryBeside("openmpi", launcher.toString())).isNull();
        Path library = Files.createDirectories(dir.resolve("ompi/lib64")).resolve("libmpi.so.40");
        Files.writeString(library, "");
        assertThat(MpiLaunchers.libraryBeside("openmpi", launcher.toString())).isEqualTo(library.toString());
        assertThat(MpiLaunchers.libraryBeside("mpich", launcher.toString())).isNull();
    }

    @Test
    void versionTextsOfTheKnownLaunchers() {
        assertThat(MpiLaunchers.kindOf("mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/")).isEqualTo("openmpi");
        assertThat(MpiLaunchers.kindOf("mpiexec (OpenRTE) 4.1.4")).isEqualTo("openmpi");
        assertThat(MpiLaunchers.kindOf("HYDRA build details:\n    Version: 4.0.2")).isEqualTo("mpich");
        assertThat(MpiLaunchers.kindOf("Intel(R) MPI Library for Linux* OS, Version 2021.10")).isEqualTo("mpich");
        assertThat(MpiLaunchers.kindOf("")).isNull();
    }

    @Test
    void anUnknownMpiIsRefusedWithTheChoices() {
        assertThatThrownBy(() -> MpiLaunchers.find("lam")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("openmpi or mpich");
        assertThat(MpiLaunchers.kind("OpenMPI")).isEqualTo("openmpi");
    }
}
