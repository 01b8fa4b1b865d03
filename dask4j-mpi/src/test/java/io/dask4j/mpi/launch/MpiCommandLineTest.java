package io.dask4j.mpi.launch;

import io.dask4j.mpi.launch.MpiCommandLine.SingleCopy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MpiCommandLineTest {

    /** The launcher this machine's jobs use: whatever MpiLaunchers finds, else the Debian name. */
    private static String launcher(String kind) {
        return Objects.requireNonNullElse(MpiLaunchers.find(kind), "mpirun." + kind);
    }

    private static MpiCommandLine on(String kind, String launcher, int cores) {
        return new MpiCommandLine(kind, launcher, SingleCopy.AUTO, true, cores);
    }

    @Test
    void eachMpiGetsItsLauncher() {
        List<String> open = MpiCommandLine.mpirun("OpenMPI").ranks(4);
        assertThat(open.getFirst()).isEqualTo(launcher("openmpi"));
        assertThat(open).contains("--allow-run-as-root", "--oversubscribe");
        assertThat(open.get(open.indexOf("-np") + 1)).isEqualTo("4");
        assertThat(open.getLast()).isEqualTo("4");
        assertThat(MpiCommandLine.mpirun("mpich").ranks(3)).startsWith(launcher("mpich")).containsSequence("-np", "3");
        assertThatThrownBy(() -> MpiCommandLine.mpirun("lam")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("openmpi or mpich");
    }

    @Test
    void debiansLaunchersNameTheirLibrary() {
        assertThat(on("openmpi", "mpirun.openmpi", 2).launcherOptions(5))
                .containsExactly("mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-x", "DASK4J_MPI_LIB=libmpi.so.40");
        assertThat(on("mpich", "mpirun.mpich", 2).launcherOptions(5))
                .containsExactly("mpirun.mpich", "-genv", "DASK4J_MPI_LIB", "libmpich.so.12");
    }

    @Test
    void openMpiKeepsSingleCopyOnlyWhenRanksOutnumberCores() {
        assertThat(on("openmpi", "mpirun.openmpi", 2).launcherOptions(2))
                .containsSequence("--mca", "btl_vader_single_copy_mechanism", "none");
        assertThat(on("openmpi", "mpirun.openmpi", 2).launcherOptions(5)).doesNotContain("btl_vader_single_copy_mechanism");
        assertThat(on("mpich", "mpirun.mpich", 2).launcherOptions(2)).doesNotContain("btl_vader_single_copy_mechanism");
    }

    @Test
    void aPlainLauncherLeavesTheRanksToFindTheirLibrary() {
        assertThat(on("openmpi", "/opt/ompi/bin/mpirun", 2).launcherOptions(5))
                .containsExactly("/opt/ompi/bin/mpirun", "--allow-run-as-root", "--oversubscribe");
        assertThat(on("mpich", "/opt/mpich/bin/mpiexec", 2).launcherOptions(5)).containsExactly("/opt/mpich/bin/mpiexec");
    }

    @Test
    void aPlainLauncherNamesTheLibraryInstalledBesideIt(@TempDir Path prefix) throws IOException {
        Path lib = Files.createDirectories(prefix.resolve("lib")).resolve("libmpich.so.12");
        Files.writeString(lib, "");
        String launcher = prefix.resolve("bin/mpiexec").toString();
        assertThat(on("mpich", launcher, 2).launcherOptions(5)).containsExactly(launcher, "-genv", "DASK4J_MPI_LIB", lib.toString());
    }

    @Test
    void singleCopyCanBeForcedEitherWayAndTheLibraryLeftToTheCaller() {
        MpiCommandLine open = on("openmpi", "mpirun.openmpi", 2);
        assertThat(open.withSingleCopy(SingleCopy.NONE).launcherOptions(5)).containsSequence("--mca", "btl_vader_single_copy_mechanism", "none");
        assertThat(open.withSingleCopy(SingleCopy.MPI_DEFAULT).launcherOptions(2)).doesNotContain("btl_vader_single_copy_mechanism");
        assertThat(open.withoutLibrary().launcherOptions(5)).doesNotContain("-x");
        assertThat(open.withCores(8).launcherOptions(5)).contains("btl_vader_single_copy_mechanism");
    }

    @Test
    void srunStartsOneStepThatEndsWhenARankDies() {
        assertThat(MpiCommandLine.srun("pmix", 4))
                .containsExactly("srun", "--mpi=pmix", "--kill-on-bad-exit=1", "--ntasks=4", "--oversubscribe");
    }
}
