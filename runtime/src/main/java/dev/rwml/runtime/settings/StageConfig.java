package dev.rwml.runtime.settings;

import java.time.Duration;

/** What every stage's typed settings have: its validated {@link Settings} and what follows. */
public interface StageConfig {

    /** The validated settings the stage's fields were read from. */
    Settings settings();

    /** The run. */
    default String run() {
        return settings().run();
    }

    /** Where the stage's clients connect. */
    default Connection connection() {
        return settings().connection();
    }

    /** Kafka bootstrap servers. */
    default String bootstrapServers() {
        return connection().bootstrapServers();
    }

    /** The schema registry URL. */
    default String schemaRegistryUrl() {
        return connection().schemaRegistryUrl();
    }

    /** How long Kafka may stay unreachable before the stage stops. */
    default Duration brokerTimeout() {
        return settings().getDuration(SettingsDefinition.BROKER_TIMEOUT);
    }
}
