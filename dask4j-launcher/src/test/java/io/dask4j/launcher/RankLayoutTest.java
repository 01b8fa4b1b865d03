package io.dask4j.launcher;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RankLayoutTest {

    @Test
    void theDefaultLayoutPutsTheSchedulerOnRankZeroTheClientOnRankOneAndWorkersOnTheRest() {
        RankLayout layout = MpiClusterOptions.defaults().layout(5);

        assertThat(layout.roles(0)).containsExactly(Role.SCHEDULER);
        assertThat(layout.roles(1)).containsExactly(Role.CLIENT);
        assertThat(layout.roles(4)).containsExactly(Role.WORKER);
        assertThat(layout.workerRanks()).containsExactly(2, 3, 4);
        assertThat(layout.label(1)).isEqualTo("client");
    }

    @Test
    void tooFewRanksForTheDefaultLayoutSayHowManyAreNeeded() {
        assertThatThrownBy(() -> MpiClusterOptions.defaults().layout(2))
                .isInstanceOf(LayoutException.class)
                .hasMessageContaining("this job has 2, the layout needs at least 3")
                .hasMessageContaining("mpirun -np 3");
    }

    @Test
    void nonExclusiveWorkersRunOnTheSchedulerAndClientRanksToo() {
        RankLayout layout = new RankLayout(2, 0, 1, false);

        assertThat(layout.roles(0)).isEqualTo(Set.of(Role.SCHEDULER, Role.WORKER));
        assertThat(layout.label(1)).isEqualTo("client+worker");
        assertThat(layout.workerRanks()).containsExactly(0, 1);
    }

    @Test
    void customRanksMoveTheSchedulerAndClient() {
        RankLayout layout = new RankLayout(4, 3, 0, true);

        assertThat(layout.roles(3)).containsExactly(Role.SCHEDULER);
        assertThat(layout.roles(0)).containsExactly(Role.CLIENT);
        assertThat(layout.workerRanks()).containsExactly(1, 2);
        assertThatThrownBy(() -> new RankLayout(3, 3, 0, true)).hasMessageContaining("needs at least 4");
    }

    @Test
    void theCommandsLayoutHasNoClientAndNeedsTwoRanks() {
        RankLayout layout = new RankLayout(2, 0, RankLayout.NONE, true);

        assertThat(layout.workerRanks()).containsExactly(1);
        assertThatThrownBy(() -> new RankLayout(1, 0, RankLayout.NONE, true)).hasMessageContaining("needs at least 2");
    }

    @Test
    void withoutASchedulerEveryRankIsAWorker() {
        RankLayout layout = new RankLayout(1, RankLayout.NONE, RankLayout.NONE, true);

        assertThat(layout.hasScheduler()).isFalse();
        assertThat(layout.workerRanks()).containsExactly(0);
    }

    /** dask-mpi's execute() layout: the client runs in the scheduler's process, workers on every other rank. */
    @Test
    void theClientMayShareTheSchedulersRank() {
        RankLayout layout = new RankLayout(3, 0, 0, true);

        assertThat(layout.roles(0)).isEqualTo(Set.of(Role.SCHEDULER, Role.CLIENT));
        assertThat(layout.clientBesideScheduler()).isTrue();
        assertThat(layout.label(0)).isEqualTo("scheduler+client");
        assertThat(layout.workerRanks()).containsExactly(1, 2);
        assertThat(RankLayout.minimumSize(0, 0, true)).isEqualTo(2);
        assertThat(new RankLayout(3, 0, 1, true).clientBesideScheduler()).isFalse();
        assertThatThrownBy(() -> new RankLayout(1, 0, 0, true)).isInstanceOf(LayoutException.class)
                .hasMessageContaining("needs at least 2").hasMessageContaining("scheduler and client on rank 0");
    }
}
