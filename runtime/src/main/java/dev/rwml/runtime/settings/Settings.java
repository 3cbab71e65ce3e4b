package dev.rwml.runtime.settings;

import dev.rwml.runtime.StageName;
import dev.rwml.runtime.lifecycle.RestartPolicy;
import dev.rwml.schemas.registry.RegistryConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * A stage's validated settings, typed by their {@link ConfigDef}: what {@link
 * SettingsDefinition#load} returns.
 */
public final class Settings extends AbstractConfig {

    /**
     * Registry call attempts of a stage unless {@code schema.registry.retry.max.attempts} is set.
     */
    public static final String STAGE_REGISTRY_ATTEMPTS = "30";

    private final SettingsDefinition definition;
    private final Map<String, String> values;

    Settings(
            final SettingsDefinition definition,
            final ConfigDef def,
            final Map<String, String> values) {
        super(def, values, false);
        this.definition = definition;
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /** The stage. */
    public StageName stage() {
        return definition.stage();
    }

    /** The run. */
    public String run() {
        return getString(SettingsDefinition.RUN);
    }

    /** A duration setting. */
    public Duration getDuration(final String key) {
        return Durations.parse(key, getString(key));
    }

    /**
     * Where the stage's clients connect. Unless set, a stage's registry calls are retried for about
     * two minutes ({@value #STAGE_REGISTRY_ATTEMPTS} attempts, backoff up to 5 s), so a registry
     * outage blocks progress where it happens instead of failing a record.
     */
    public Connection connection() {
        final Map<String, String> all = new LinkedHashMap<>(values);
        all.putIfAbsent(RegistryConfig.MAX_ATTEMPTS, STAGE_REGISTRY_ATTEMPTS);
        return Connection.from(all);
    }

    /** The restart policy every stage applies to crashes of its processing thread. */
    public RestartPolicy restartPolicy(final Clock clock) {
        return new RestartPolicy(
                getInt(SettingsDefinition.RESTART_MAX),
                getDuration(SettingsDefinition.RESTART_WINDOW),
                clock);
    }

    /** The keys under {@code prefix}, without it (e.g. {@code streams.} settings). */
    public Map<String, String> under(final String prefix) {
        final Map<String, String> out = new TreeMap<>();
        values.forEach(
                (key, value) -> {
                    if (key.startsWith(prefix)) {
                        out.put(key.substring(prefix.length()), value);
                    }
                });
        return out;
    }

    /** The values as given (not the defaults), for a copy with more on top. */
    public Map<String, String> given() {
        return values;
    }

    /** A copy with {@code overrides} on top, validated again. */
    public Settings with(final Map<String, String> overrides) {
        final Map<String, String> all = new LinkedHashMap<>(values);
        all.putAll(overrides);
        return definition.parse(all);
    }
}
