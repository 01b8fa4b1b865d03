package io.dask4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** A control word the engine receives after its poll stopped waiting must reach the next poll, not vanish. */
class ControlAnswersTest {
    private final ControlAnswers answers = new ControlAnswers();

    @Test
    void anAnswerInTimeGoesToItsPoll() throws Exception {
        ControlAnswers.Pending p = answers.expect(0, ControlChannel.TAG_SHUTDOWN);
        p.deliver(OptionalInt.of(7));
        assertThat(p.await(10)).hasValue(7);
        assertThat(answers.takeKept(0, ControlChannel.TAG_SHUTDOWN)).isEmpty();
    }

    @Test
    void anAnswerAfterItsPollGaveUpIsKeptForTheNextPollOfThatSourceAndTag() throws Exception {
        ControlAnswers.Pending late = answers.expect(0, ControlChannel.TAG_SHUTDOWN);
        assertThat(late.await(1)).isEmpty();   // the engine was slower than the poll's patience
        late.deliver(OptionalInt.of(3));       // its probe then received the shutdown word
        assertThat(answers.takeKept(1, ControlChannel.TAG_SHUTDOWN)).as("another source").isEmpty();
        assertThat(answers.takeKept(0, ControlChannel.TAG_CLIENT_DONE)).as("another tag").isEmpty();
        assertThat(answers.takeKept(0, ControlChannel.TAG_SHUTDOWN)).hasValue(3);
        assertThat(answers.takeKept(0, ControlChannel.TAG_SHUTDOWN)).as("taken once").isEmpty();
    }

    @Test
    void aLateProbeThatFoundNothingKeepsNothing() throws Exception {
        ControlAnswers.Pending late = answers.expect(0, ControlChannel.TAG_SHUTDOWN);
        assertThat(late.await(1)).isEmpty();
        late.deliver(OptionalInt.empty());
        assertThat(answers.takeKept(0, ControlChannel.TAG_SHUTDOWN)).isEmpty();
    }

    @Test
    void anInterruptedPollGivesUpWithTheFlagRestored() throws Exception {
        ControlAnswers.Pending p = answers.expect(0, ControlChannel.TAG_SHUTDOWN);
        Thread.currentThread().interrupt();
        try {
            assertThat(p.await(10_000)).isEmpty();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        p.deliver(OptionalInt.of(5));
        assertThat(answers.takeKept(0, ControlChannel.TAG_SHUTDOWN)).hasValue(5);
    }

    @Test
    void aFailedProbeIsReported() {
        ControlAnswers.Pending p = answers.expect(0, ControlChannel.TAG_SHUTDOWN);
        p.fail(new IllegalStateException("MPI_Improbe failed"));
        assertThatThrownBy(() -> p.await(10)).isInstanceOf(ExecutionException.class).hasRootCauseMessage("MPI_Improbe failed");
    }
}
