package dev.rwml.schemas.registry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityResult;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;

/**
 * An in-memory schema registry behind {@code mock://<scope>} URLs, shared by every client of the
 * same scope in the JVM, with the real registry's ids, subjects and compatibility checks (Avro's
 * {@link SchemaCompatibility}; BACKWARD unless set otherwise), for TopologyTestDriver tests.
 */
public final class MockSchemaRegistry implements SchemaRegistryClient {
    private static final Map<String, MockSchemaRegistry> SCOPES = new ConcurrentHashMap<>();

    private final String scope;
    private final Map<String, Integer> idsBySchema = new HashMap<>();
    private final Map<Integer, Schema> schemasById = new HashMap<>();
    private final Map<String, List<Schema>> versionsBySubject = new HashMap<>();
    private final Map<String, CompatibilityLevel> levelsBySubject = new HashMap<>();
    private CompatibilityLevel globalLevel = CompatibilityLevel.BACKWARD;
    private int nextId = 1;

    private MockSchemaRegistry(final String scope) {
        this.scope = scope;
    }

    /** The registry of a scope (the part after {@code mock://}), created on first use. */
    public static MockSchemaRegistry forScope(final String scope) {
        return SCOPES.computeIfAbsent(scope, MockSchemaRegistry::new);
    }

    /** Forgets a scope and everything registered in it, so a test can start clean. */
    public static void dropScope(final String scope) {
        SCOPES.remove(scope);
    }

    /** The scope of a {@code mock://<scope>} URL. */
    public static String scopeOf(final String url) {
        if (!url.startsWith("mock://") || url.length() == "mock://".length()) {
            throw new IllegalArgumentException(
                    "'" + url + "' is not a mock registry URL; use mock://<scope>");
        }
        return url.substring("mock://".length());
    }

    @Override
    public synchronized int register(final String subject, final Schema schema) {
        final String key = schema.toString();
        final List<Schema> versions =
                versionsBySubject.computeIfAbsent(subject, s -> new ArrayList<>());
        final Integer known = idsBySchema.get(key);
        if (known != null && versions.stream().anyMatch(v -> v.toString().equals(key))) {
            return known;
        }
        checkCompatible(subject, schema, versions);
        final int id = known != null ? known : nextId++;
        idsBySchema.put(key, id);
        schemasById.put(id, schema);
        versions.add(schema);
        return id;
    }

    @Override
    public synchronized int lookupId(final String subject, final Schema schema) {
        final String key = schema.toString();
        final List<Schema> versions = versionsBySubject.getOrDefault(subject, List.of());
        if (versions.stream().noneMatch(v -> v.toString().equals(key))) {
            throw UnknownSchemaException.forSubject(subject, describe(), 404, 40403);
        }
        return idsBySchema.get(key);
    }

    @Override
    public synchronized Schema schemaById(final int id) {
        final Schema schema = schemasById.get(id);
        if (schema == null) {
            throw UnknownSchemaException.forId(id, describe(), 404, 40403);
        }
        return schema;
    }

    @Override
    public synchronized CompatibilityLevel compatibility(final String subject) {
        return levelsBySubject.getOrDefault(subject, globalLevel);
    }

    @Override
    public synchronized void setCompatibility(
            final String subject, final CompatibilityLevel level) {
        levelsBySubject.put(subject, level);
    }

    /** Sets the level of subjects that have none of their own. */
    public synchronized void setGlobalCompatibility(final CompatibilityLevel level) {
        globalLevel = level;
    }

    /** The subjects registered so far, for assertions. */
    public synchronized List<String> subjects() {
        return List.copyOf(versionsBySubject.keySet());
    }

    @Override
    public String describe() {
        return "mock://" + scope;
    }

    private void checkCompatible(
            final String subject, final Schema candidate, final List<Schema> versions) {
        if (versions.isEmpty()) {
            return;
        }
        final CompatibilityLevel level = compatibility(subject);
        final List<Schema> against =
                level.isTransitive() ? versions : List.of(versions.get(versions.size() - 1));
        final List<String> problems = new ArrayList<>();
        for (final Schema existing : against) {
            if (level.checksBackward()) {
                problems.addAll(
                        problems(
                                SchemaCompatibility.checkReaderWriterCompatibility(
                                                candidate, existing)
                                        .getResult(),
                                "the new schema cannot read data written with an earlier one"));
            }
            if (level.checksForward()) {
                problems.addAll(
                        problems(
                                SchemaCompatibility.checkReaderWriterCompatibility(
                                                existing, candidate)
                                        .getResult(),
                                "an earlier schema cannot read data written with the new one"));
            }
        }
        if (!problems.isEmpty()) {
            throw new IncompatibleSchemaException(
                    subject, level + " check failed: " + String.join("; ", problems), 409, 409);
        }
    }

    private static List<String> problems(
            final SchemaCompatibilityResult result, final String direction) {
        if (result.getCompatibility() == SchemaCompatibilityType.COMPATIBLE) {
            return List.of();
        }
        return result.getIncompatibilities().stream()
                .map(
                        i ->
                                direction
                                        + " ("
                                        + i.getType()
                                        + " at "
                                        + i.getLocation()
                                        + ": "
                                        + i.getMessage()
                                        + ")")
                .collect(Collectors.toList());
    }
}
