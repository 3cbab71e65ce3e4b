package dev.rwml.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.events.Transition;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ModelSlotTest {

    /** Records whether it was closed; the slot's bookkeeping is all this test looks at. */
    private static final class Closeable implements PredictionModel {
        private final long version;
        private boolean closed;

        Closeable(final long version) {
            this.version = version;
        }

        @Override
        public long version() {
            return version;
        }

        @Override
        public int maxContext() {
            return 512;
        }

        @Override
        public Prompt prompt(final Transition transition, final int maxTokens) {
            throw new UnsupportedOperationException("not used by the slot");
        }

        @Override
        public String decode(final int[] tokenIds) {
            throw new UnsupportedOperationException("not used by the slot");
        }

        @Override
        public List<List<Sample>> sample(
                final List<int[]> prompts, final SamplingSettings sampling, final long seed) {
            throw new UnsupportedOperationException("not used by the slot");
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    @Test
    void shouldKeepALeasedVersionOpenUntilItsBatchEndsWhenANewerOneIsInstalled() {
        final ModelSlot slot = new ModelSlot();
        final Closeable v0 = new Closeable(0);
        final Closeable v1 = new Closeable(1);
        slot.install(v0);

        final ModelSlot.Lease lease = slot.acquire();
        slot.install(v1);

        assertThat(slot.version()).hasValue(1);
        assertThat(lease.model()).isSameAs(v0);
        assertThat(v0.closed).isFalse();
        lease.close();
        assertThat(v0.closed).isTrue();
        try (ModelSlot.Lease next = slot.acquire()) {
            assertThat(next.model()).isSameAs(v1);
        }
        assertThat(v1.closed).isFalse();
    }

    @Test
    void shouldIgnoreAndCloseAnOlderOrEqualVersion() {
        final ModelSlot slot = new ModelSlot();
        slot.install(new Closeable(3));
        final Closeable older = new Closeable(2);

        assertThat(slot.install(older)).isFalse();

        assertThat(older.closed).isTrue();
        assertThat(slot.version()).hasValue(3);
    }

    @Test
    void shouldRefuseLeasesBeforeTheFirstVersionAndReportWaiting() throws Exception {
        final ModelSlot slot = new ModelSlot();

        assertThat(slot.version()).isEmpty();
        assertThat(slot.awaitFirst(Duration.ofMillis(1))).isFalse();
        assertThatThrownBy(slot::acquire).hasMessageContaining("no model version loaded yet");
        slot.install(new Closeable(0));
        assertThat(slot.awaitFirst(Duration.ofMillis(1))).isTrue();
    }

    @Test
    void shouldCloseTheServingVersionWhenClosed() {
        final ModelSlot slot = new ModelSlot();
        final Closeable v0 = new Closeable(0);
        slot.install(v0);

        slot.close();

        assertThat(v0.closed).isTrue();
        assertThatThrownBy(() -> slot.install(new Closeable(1))).hasMessageContaining("closed");
    }
}
