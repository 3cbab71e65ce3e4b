package dev.rwml.schemas.registry;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;

/**
 * Caches what a registry answered (ids by subject and schema, schemas by id), which never changes
 * once registered, so the serdes ask the registry once per schema and not once per record.
 */
public final class CachingSchemaRegistryClient implements SchemaRegistryClient {

    private final SchemaRegistryClient delegate;
    private final Map<Integer, Schema> schemasById = new ConcurrentHashMap<>();
    private final Map<SubjectSchema, Integer> idsBySubjectSchema = new ConcurrentHashMap<>();

    public CachingSchemaRegistryClient(final SchemaRegistryClient delegate) {
        this.delegate = delegate;
    }

    @Override
    public int register(final String subject, final Schema schema) {
        final SubjectSchema key = new SubjectSchema(subject, schema.toString());
        final Integer known = idsBySubjectSchema.get(key);
        if (known != null) {
            return known;
        }
        final int id = delegate.register(subject, schema);
        idsBySubjectSchema.put(key, id);
        schemasById.putIfAbsent(id, schema);
        return id;
    }

    @Override
    public int lookupId(final String subject, final Schema schema) {
        final SubjectSchema key = new SubjectSchema(subject, schema.toString());
        final Integer known = idsBySubjectSchema.get(key);
        if (known != null) {
            return known;
        }
        final int id = delegate.lookupId(subject, schema);
        idsBySubjectSchema.put(key, id);
        schemasById.putIfAbsent(id, schema);
        return id;
    }

    @Override
    public Schema schemaById(final int id) {
        final Schema known = schemasById.get(id);
        if (known != null) {
            return known;
        }
        // Not computeIfAbsent: a slow registry call must not hold the map's bin lock.
        final Schema schema = delegate.schemaById(id);
        schemasById.putIfAbsent(id, schema);
        return schema;
    }

    @Override
    public CompatibilityLevel compatibility(final String subject) {
        return delegate.compatibility(subject);
    }

    @Override
    public void setCompatibility(final String subject, final CompatibilityLevel level) {
        delegate.setCompatibility(subject, level);
    }

    @Override
    public String describe() {
        return delegate.describe();
    }

    @Override
    public void close() {
        delegate.close();
    }

    private record SubjectSchema(String subject, String schema) {}
}
