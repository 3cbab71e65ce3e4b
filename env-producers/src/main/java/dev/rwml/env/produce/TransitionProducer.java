package dev.rwml.env.produce;

import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelFollower;
import dev.rwml.channel.ModelSlot;
import dev.rwml.env.Agent;
import dev.rwml.env.EnvironmentSource;
import dev.rwml.env.EpisodeRunner;
import dev.rwml.evaluation.ModelAgent;
import dev.rwml.events.EnvRef;
import dev.rwml.events.Sampling;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs N agents concurrently over M episodes of an environment and publishes every transition to
 * {@code rwml.transitions} (key: transitionId, value: Avro {@link Transition}), as configured by a
 * {@link ProducerConfig}. The agents follow a scripted policy, or act with the newest version of a
 * run's model ({@link ProducerConfig#model()}), which they lease from a slot its follower fills.
 *
 * <p>Episode {@code n} plays game {@code n / G} ({@link ProducerConfig#episodesPerGame()}), which
 * belongs to agent {@code game mod N}; each agent runs its games' episodes in order with the {@link
 * EpisodeRunner}, then sends the game's episodes together, through the shared rate limit when one
 * is set. {@link #stop()} (e.g. from a SIGINT hook) ends the run gracefully: agents take no new
 * episode, the episodes already computed are sent whole without the rate limit, the producer is
 * flushed and closed, and {@link #run()} returns a result marked {@code stopped}. An agent that
 * fails (e.g. the schema registry is unreachable) stops the others, and {@link #run()} rethrows its
 * error after the flush.
 */
public final class TransitionProducer {

    private static final Logger LOG = LoggerFactory.getLogger(TransitionProducer.class);

    private final ProducerConfig config;
    private final MeterRegistry meters;
    private final ProgressListener listener;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final AtomicLong episodesSent = new AtomicLong();
    private final AtomicLong episodesBefore = new AtomicLong();
    private final AtomicReference<RateLimiter> limiter = new AtomicReference<>();
    private final AtomicReference<ProducerResult.Outcomes> outcomes =
            new AtomicReference<>(ProducerResult.Outcomes.NONE);

    public TransitionProducer(
            final ProducerConfig config,
            final MeterRegistry meters,
            final ProgressListener listener) {
        this.config = Objects.requireNonNull(config, "config");
        this.meters = Objects.requireNonNull(meters, "meters");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** Runs {@code config} to its end without progress reports: the library entry point. */
    public static ProducerResult run(final ProducerConfig config) {
        return new TransitionProducer(config, new SimpleMeterRegistry(), ProgressListener.NONE)
                .run();
    }

    /** Runs every episode (or until {@link #stop()}) and returns what was published. */
    public ProducerResult run() {
        final EnvironmentSource source = config.env().source(config.split(), config.grammar());
        config.rate().ifPresent(r -> limiter.set(RateLimiter.of(r)));
        if (stopping.get()) {
            // Stopped before the limiter existed: release it now.
            stop();
        }
        final long started = System.nanoTime();
        LOG.info(
                "running {} episodes of {}/{} with {} agents ({}), seed {}",
                config.episodes(),
                source.name(),
                source.split(),
                config.agents(),
                config.model()
                        .map(m -> "the model of run " + m.run())
                        .orElse(config.policy().name()),
                config.seed());
        try (Actors actors = Actors.open(config)) {
            return run(source, actors, started);
        }
    }

    private ProducerResult run(
            final EnvironmentSource source, final Actors actors, final long started) {
        final ExecutorService agents = Executors.newFixedThreadPool(config.agents(), threads());
        final ScheduledExecutorService reporter =
                Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "rwml-env-progress"));
        Throwable failure = null;
        final long errors;
        final long acknowledged;
        try (EpisodeSink publisher = openSink(source)) {
            final long every = config.progressInterval().toMillis();
            reporter.scheduleAtFixedRate(
                    () -> report(publisher, started), every, every, TimeUnit.MILLISECONDS);
            final List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < config.agents(); i++) {
                final int agent = i;
                running.add(
                        agents.submit(
                                () -> {
                                    runAgent(agent, actors.agent(), source, publisher);
                                    return null;
                                }));
            }
            failure = awaitAll(running);
            publisher.flush();
            reporter.shutdownNow();
            errors = publisher.errors();
            acknowledged = publisher.acknowledged();
        } finally {
            agents.shutdownNow();
            reporter.shutdownNow();
        }
        final Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
        listener.finished(new Progress(episodesSent.get(), acknowledged, errors, elapsed));
        if (failure != null) {
            throw new IllegalStateException(
                    "an agent failed, the run stopped: " + failure.getMessage(), failure);
        }
        final ProducerResult result =
                new ProducerResult(
                        episodesSent.get(),
                        acknowledged,
                        errors,
                        elapsed,
                        episodesSent.get() + episodesBefore.get() < config.episodes(),
                        outcomes.get(),
                        episodesBefore.get());
        LOG.info("{}", result.summary());
        return result;
    }

    /**
     * Asks the run to end: no new episodes, the current ones are sent whole and unthrottled. Safe
     * from any thread (e.g. a shutdown hook), before or during {@link #run()}.
     */
    public void stop() {
        if (stopping.compareAndSet(false, true)) {
            LOG.info("stopping: finishing the current episodes, then flushing");
        }
        final RateLimiter current = limiter.get();
        if (current != null) {
            current.release();
        }
    }

    private void runAgent(
            final int index,
            final Agent agent,
            final EnvironmentSource source,
            final EpisodeSink publisher)
            throws InterruptedException {
        final String agentId = "agent-" + index;
        final int perGame = config.episodesPerGame();
        final int games = config.episodes() / perGame;
        for (int game = index; game < games && !stopping.get(); game += config.agents()) {
            if (publisher.published(game)) {
                episodesBefore.addAndGet(perGame);
                continue;
            }
            final List<EpisodeSink.Played> played = new ArrayList<>(perGame);
            for (int n = game * perGame; n < (game + 1) * perGame; n++) {
                final EpisodeRunner runner =
                        new EpisodeRunner(
                                config.historyTurns(),
                                EpisodeRunner.DEFAULT_MAX_STEPS,
                                EpisodeClock.forEpisode(config.baseTime(), n));
                final String episodeId = episodeId(source, n);
                played.add(
                        new EpisodeSink.Played(
                                n,
                                game,
                                episodeId,
                                runner.run(
                                        source,
                                        agent,
                                        agentId,
                                        episodeId,
                                        config.seed(),
                                        game,
                                        n)));
            }
            publisher.publish(played, this::throttle);
            for (final EpisodeSink.Played p : played) {
                outcomes.updateAndGet(o -> o.plus(p.episode().transitions()));
            }
            episodesSent.addAndGet(perGame);
        }
    }

    /** Episode {@code n}'s id: a run's model acts its own episodes of the seed's games. */
    private String episodeId(final EnvironmentSource source, final int n) {
        return config.model().isPresent()
                ? EpisodeRunner.episodeId(
                        source.split(), config.seed(), n, config.model().get().run())
                : EpisodeRunner.episodeId(source.split(), config.seed(), n);
    }

    private void throttle() throws InterruptedException {
        final RateLimiter rate = limiter.get();
        if (rate != null) {
            rate.acquire();
        }
    }

    /**
     * The scripted agents' publisher, or, for a run's model, the transactional one that publishes
     * each episode with its rollout and knows which episodes an earlier run of the command
     * published.
     */
    private EpisodeSink openSink(final EnvironmentSource source) {
        if (config.model().isEmpty()) {
            return TransitionPublisher.open(config.kafka(), meters, "run");
        }
        final ActingModel model = config.model().get();
        return RolloutPublisher.open(
                config.kafka(),
                new RolloutPublisher.Command(
                        model.run(),
                        new EnvRef(source.name(), source.version(), source.split()),
                        config.seed(),
                        new Sampling(
                                model.sampling().temperature(),
                                model.sampling().topP(),
                                model.sampling().maxNewTokens(),
                                1)),
                meters);
    }

    private Throwable awaitAll(final List<Future<?>> running) {
        Throwable failure = null;
        boolean interrupted = false;
        for (final Future<?> future : running) {
            while (true) {
                try {
                    future.get();
                    break;
                } catch (ExecutionException e) {
                    if (failure == null) {
                        failure = e.getCause();
                        // Returned to the caller, which names it to the user; the trace goes to
                        // the log file.
                        LOG.info("an agent failed; stopping the others", failure);
                        stop();
                    }
                    break;
                } catch (InterruptedException e) {
                    // Interrupted while waiting: stop gracefully and keep waiting for the agents.
                    interrupted = true;
                    stop();
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return failure;
    }

    private void report(final EpisodeSink publisher, final long started) {
        try {
            listener.update(
                    new Progress(
                            episodesSent.get(),
                            publisher.acknowledged(),
                            publisher.errors(),
                            Duration.ofNanos(System.nanoTime() - started)));
        } catch (RuntimeException e) {
            LOG.warn("the progress listener failed; the run goes on", e);
        }
    }

    /**
     * Where a run's agents come from: the scripted policy, or the run's model followed on its
     * models topic ({@code following}; its first version is awaited before any agent acts).
     */
    private record Actors(ProducerConfig config, Optional<Following> following)
            implements AutoCloseable {

        /** The run's models topic, read into the slot the model agents lease from. */
        private record Following(ModelChannel channel, ModelSlot slot, ModelFollower follower) {}

        static Actors open(final ProducerConfig config) {
            if (config.model().isEmpty()) {
                return new Actors(config, Optional.empty());
            }
            final ActingModel model = config.model().get();
            final ModelChannel channel = ModelChannel.of(config.kafka().connection(), model.run());
            final ModelSlot slot = new ModelSlot();
            ModelFollower follower = null;
            try {
                follower =
                        ModelFollower.start(
                                channel,
                                Optional.empty(),
                                (artifact, versions) ->
                                        slot.install(model.loader().load(artifact, versions)),
                                Duration.ofMillis(500),
                                Optional.empty());
                if (!slot.awaitFirst(model.firstVersion())) {
                    throw new IllegalStateException(
                            "run "
                                    + model.run()
                                    + " published no model version in "
                                    + model.firstVersion().toSeconds()
                                    + " s ("
                                    + follower.status()
                                    + "): create it with rwml model init --run "
                                    + model.run());
                }
                return new Actors(config, Optional.of(new Following(channel, slot, follower)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close(model, new Following(channel, slot, follower));
                throw new IllegalStateException("interrupted while waiting for a model version", e);
            } catch (RuntimeException e) {
                close(model, new Following(channel, slot, follower));
                throw e;
            }
        }

        /** A new agent for one agent thread. */
        Agent agent() {
            if (following.isEmpty()) {
                return config.policy().agent(config.epsilon(), config.invalidRate());
            }
            final ActingModel model = config.model().orElseThrow();
            return new ModelAgent(
                    following.get().slot(), model.sampling(), model.maxPromptTokens());
        }

        @Override
        public void close() {
            following.ifPresent(f -> close(config.model().orElseThrow(), f));
        }

        private static void close(final ActingModel model, final Following f) {
            if (f.follower() != null) {
                f.follower().close();
            }
            f.slot().close();
            f.channel().close();
            model.loader().close();
        }
    }

    private static ThreadFactory threads() {
        final AtomicInteger count = new AtomicInteger();
        return r -> daemon(r, "rwml-env-agent-" + count.getAndIncrement());
    }

    private static Thread daemon(final Runnable r, final String name) {
        final Thread thread = new Thread(r, name);
        thread.setDaemon(true);
        return thread;
    }
}
