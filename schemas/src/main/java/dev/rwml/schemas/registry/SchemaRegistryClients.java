package dev.rwml.schemas.registry;

import java.util.Map;

/** Creates the right caching client for a configuration: REST for http(s), in-memory for mock. */
public final class SchemaRegistryClients {

    private SchemaRegistryClients() {}

    /** A caching client for {@code config}'s URLs. */
    public static SchemaRegistryClient create(final RegistryConfig config) {
        final SchemaRegistryClient client =
                config.isMock()
                        ? MockSchemaRegistry.forScope(
                                MockSchemaRegistry.scopeOf(config.urls().get(0)))
                        : new RestSchemaRegistryClient(config);
        return new CachingSchemaRegistryClient(client);
    }

    /** A caching client for a Kafka-style configuration map ({@code schema.registry.url}, ...). */
    public static SchemaRegistryClient create(final Map<String, ?> config) {
        return create(RegistryConfig.fromMap(config));
    }
}
