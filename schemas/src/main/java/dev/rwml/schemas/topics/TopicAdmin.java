package dev.rwml.schemas.topics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the catalog's missing topics and validates existing ones: safe to run from every stage at
 * start-up, concurrently (a topic created by someone else in between counts as existing).
 */
public final class TopicAdmin {
    private static final Logger LOG = LoggerFactory.getLogger(TopicAdmin.class);

    private static final long METADATA_RETRY_MS = 100;

    private final Admin admin;
    private final CatalogSettings settings;
    private final Duration timeout;

    public TopicAdmin(final Admin admin, final CatalogSettings settings, final Duration timeout) {
        this.admin = admin;
        this.settings = settings;
        this.timeout = timeout;
    }

    /** An admin helper for {@code catalog}'s settings, waiting up to 30 s per broker call. */
    public TopicAdmin(final Admin admin, final TopicCatalog catalog) {
        this(admin, catalog.settings(), Duration.ofSeconds(30));
    }

    /**
     * Creates the topics that do not exist and validates those that do.
     *
     * @throws TopicMismatchException listing every existing topic that breaks its partition rule or
     *     settings, with what to do
     */
    public EnsureResult ensure(final Collection<? extends TopicSpec<?, ?>> topics) {
        final Map<String, TopicSpec<?, ?>> specs = new LinkedHashMap<>();
        topics.forEach(t -> specs.put(t.name(), t));
        final List<String> names = new ArrayList<>(specs.keySet());
        if (!names.contains(TopicCatalog.TRANSITIONS)) {
            names.add(TopicCatalog.TRANSITIONS);
        }
        final Map<String, Integer> partitions = describe(names);
        final List<String> warnings = new ArrayList<>();
        final int reference = coPartitionCount(partitions, warnings);

        final List<NewTopic> missing = new ArrayList<>();
        for (final TopicSpec<?, ?> spec : specs.values()) {
            if (!partitions.containsKey(spec.name())) {
                final int count =
                        spec.partitionRule() == PartitionRule.CO_PARTITIONED
                                ? reference
                                : spec.partitions();
                missing.add(spec.newTopic(count, settings.replicationFactor()));
            }
        }
        final List<String> created = create(missing);
        final List<String> existing =
                specs.keySet().stream().filter(n -> !created.contains(n)).toList();
        final Map<String, Integer> existingPartitions =
                created.size() == missing.size() ? partitions : describeVisible(names, existing);

        final List<String> problems = new ArrayList<>();
        final Map<String, Map<String, String>> configs = configs(existing);
        for (final String name : existing) {
            final TopicSpec<?, ?> spec = specs.get(name);
            checkPartitions(spec, existingPartitions.get(name), reference, problems);
            checkConfigs(spec, configs.getOrDefault(name, Map.of()), problems, warnings);
        }
        warnings.forEach(w -> LOG.warn("{}", w));
        if (!problems.isEmpty()) {
            throw new TopicMismatchException(problems);
        }
        if (!created.isEmpty()) {
            LOG.info("created topics {}", created);
        }
        return new EnsureResult(created, existing, warnings);
    }

    private int coPartitionCount(
            final Map<String, Integer> partitions, final List<String> warnings) {
        final Integer actual = partitions.get(TopicCatalog.TRANSITIONS);
        if (actual == null) {
            return settings.partitions();
        }
        if (actual != settings.partitions()) {
            warnings.add(
                    "topic "
                            + TopicCatalog.TRANSITIONS
                            + " has "
                            + actual
                            + " partitions, not the configured "
                            + settings.partitions()
                            + "; new run topics get "
                            + actual
                            + " to stay co-partitioned with it");
        }
        return actual;
    }

    private static void checkPartitions(
            final TopicSpec<?, ?> spec,
            final int actual,
            final int reference,
            final List<String> problems) {
        if (spec.partitionRule() == PartitionRule.CO_PARTITIONED && actual != reference) {
            problems.add(
                    "topic "
                            + spec.name()
                            + " has "
                            + actual
                            + " partitions but "
                            + TopicCatalog.TRANSITIONS
                            + " has "
                            + reference
                            + "; it must be co-partitioned with the transitions (joins on the"
                            + " transition id): delete and recreate it with "
                            + reference
                            + " partitions, or start a new run");
        } else if (spec.partitionRule() == PartitionRule.EXACT && actual != spec.partitions()) {
            problems.add(
                    "topic "
                            + spec.name()
                            + " has "
                            + actual
                            + " partitions but needs exactly "
                            + spec.partitions()
                            + " (its records must stay in order): delete and recreate it, or"
                            + " start a new run");
        }
    }

    private static void checkConfigs(
            final TopicSpec<?, ?> spec,
            final Map<String, String> actual,
            final List<String> problems,
            final List<String> warnings) {
        final String wantedPolicy = spec.configs().get(TopicConfig.CLEANUP_POLICY_CONFIG);
        final String policy = actual.get(TopicConfig.CLEANUP_POLICY_CONFIG);
        if (wantedPolicy != null && policy != null && !wantedPolicy.equals(policy)) {
            problems.add(
                    "topic "
                            + spec.name()
                            + " has cleanup.policy="
                            + policy
                            + " but needs "
                            + wantedPolicy
                            + " (every record counts, not only the latest per key): run"
                            + " kafka-configs --alter --entity-type topics --entity-name "
                            + spec.name()
                            + " --add-config cleanup.policy="
                            + wantedPolicy);
        }
        final String wantedMax = spec.configs().get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
        final String max = actual.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
        if (wantedMax != null && max != null && Long.parseLong(max) < Long.parseLong(wantedMax)) {
            problems.add(
                    "topic "
                            + spec.name()
                            + " has max.message.bytes="
                            + max
                            + " but needs at least "
                            + wantedMax
                            + " for whole model chunks: run kafka-configs --alter --entity-type"
                            + " topics --entity-name "
                            + spec.name()
                            + " --add-config max.message.bytes="
                            + wantedMax);
        }
        final String wantedRetention = spec.configs().get(TopicConfig.RETENTION_MS_CONFIG);
        final String retention = actual.get(TopicConfig.RETENTION_MS_CONFIG);
        if (wantedRetention != null && retention != null && !wantedRetention.equals(retention)) {
            warnings.add(
                    "topic "
                            + spec.name()
                            + " keeps records for retention.ms="
                            + retention
                            + " instead of "
                            + wantedRetention
                            + ("-1".equals(wantedRetention)
                                    ? "; records it deletes are lost to every later run"
                                    : ""));
        }
    }

    private List<String> create(final List<NewTopic> missing) {
        if (missing.isEmpty()) {
            return List.of();
        }
        final Map<String, KafkaFuture<Void>> futures =
                admin.createTopics(missing, new CreateTopicsOptions()).values();
        final List<String> created = new ArrayList<>();
        for (final Map.Entry<String, KafkaFuture<Void>> entry : futures.entrySet()) {
            try {
                await(entry.getValue());
                created.add(entry.getKey());
            } catch (ExecutionException e) {
                if (e.getCause() instanceof TopicExistsException) {
                    // Another stage created it since we looked: validate it like any other.
                    LOG.debug("topic {} was created concurrently", entry.getKey());
                } else {
                    throw new KafkaException(
                            "cannot create topic "
                                    + entry.getKey()
                                    + ": "
                                    + e.getCause().getMessage()
                                    + "; check the broker's ACLs and that the replication factor"
                                    + " does not exceed the number of brokers",
                            e.getCause());
                }
            }
        }
        return created;
    }

    /**
     * Describes until every topic in {@code mustSee} is visible: a topic another client just
     * created can be missing from a broker's metadata for a moment.
     */
    private Map<String, Integer> describeVisible(
            final Collection<String> names, final Collection<String> mustSee) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            final Map<String, Integer> partitions = describe(names);
            if (partitions.keySet().containsAll(mustSee)) {
                return partitions;
            }
            if (System.nanoTime() > deadline) {
                throw new KafkaException(
                        "topics "
                                + mustSee
                                + " exist but the broker did not show all of them within "
                                + timeout);
            }
            try {
                Thread.sleep(METADATA_RETRY_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new KafkaException("interrupted while waiting for topic metadata", e);
            }
        }
    }

    private Map<String, Integer> describe(final Collection<String> names) {
        final Map<String, Integer> partitions = new HashMap<>();
        final Map<String, KafkaFuture<TopicDescription>> futures =
                admin.describeTopics(names).topicNameValues();
        for (final Map.Entry<String, KafkaFuture<TopicDescription>> entry : futures.entrySet()) {
            try {
                partitions.put(entry.getKey(), await(entry.getValue()).partitions().size());
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw new KafkaException(
                            "cannot describe topic "
                                    + entry.getKey()
                                    + ": "
                                    + e.getCause().getMessage(),
                            e.getCause());
                }
            }
        }
        return partitions;
    }

    private Map<String, Map<String, String>> configs(final Collection<String> names) {
        if (names.isEmpty()) {
            return Map.of();
        }
        final List<ConfigResource> resources =
                names.stream().map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList();
        final Map<String, Map<String, String>> result = new HashMap<>();
        try {
            final Map<ConfigResource, Config> configs =
                    await(admin.describeConfigs(resources).all());
            configs.forEach(
                    (resource, config) -> {
                        final Map<String, String> values = new HashMap<>();
                        for (final ConfigEntry entry : config.entries()) {
                            Optional.ofNullable(entry.value())
                                    .ifPresent(v -> values.put(entry.name(), v));
                        }
                        result.put(resource.name(), values);
                    });
        } catch (ExecutionException e) {
            throw new KafkaException(
                    "cannot read the settings of topics "
                            + names
                            + ": "
                            + e.getCause().getMessage(),
                    e.getCause());
        }
        return result;
    }

    private <T> T await(final KafkaFuture<T> future) throws ExecutionException {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while waiting for the broker", e);
        } catch (TimeoutException e) {
            throw new KafkaException(
                    "the broker did not answer within "
                            + timeout
                            + "; check bootstrap.servers and that the cluster is up",
                    e);
        }
    }
}
