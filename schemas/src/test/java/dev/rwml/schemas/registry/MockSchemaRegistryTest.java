package dev.rwml.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MockSchemaRegistryTest {
    private static final String SUBJECT = "rwml.transitions-value";

    private final String scope = "mock-" + UUID.randomUUID();
    private final MockSchemaRegistry registry = MockSchemaRegistry.forScope(scope);

    @AfterEach
    void drop() {
        MockSchemaRegistry.dropScope(scope);
    }

    @Test
    void shouldShareOneRegistryPerScopeAcrossClients() {
        final SchemaRegistryClient viaUrl =
                SchemaRegistryClients.create(RegistryConfig.of("mock://" + scope));
        final int id = viaUrl.register(SUBJECT, v1());
        assertThat(registry.schemaById(id)).isEqualTo(v1());
        assertThat(MockSchemaRegistry.forScope("other-" + scope).subjects()).isEmpty();
        MockSchemaRegistry.dropScope("other-" + scope);
    }

    @Test
    void shouldReturnSameIdForSameSchemaAndNewIdForNewVersion() {
        final int first = registry.register(SUBJECT, v1());
        assertThat(registry.register(SUBJECT, v1())).isEqualTo(first);
        assertThat(registry.register("another-value", v1())).isEqualTo(first);
        final int second = registry.register(SUBJECT, v2WithDefault());
        assertThat(second).isNotEqualTo(first);
        assertThat(registry.lookupId(SUBJECT, v2WithDefault())).isEqualTo(second);
    }

    @Test
    void shouldDefaultToBackwardCompatibility() {
        assertThat(registry.compatibility(SUBJECT)).isEqualTo(CompatibilityLevel.BACKWARD);
    }

    @Test
    void shouldRefuseBackwardIncompatibleSchemaNamingSubjectAndReason() {
        registry.register(SUBJECT, v1());
        assertThatThrownBy(() -> registry.register(SUBJECT, v2WithoutDefault()))
                .isInstanceOfSatisfying(
                        IncompatibleSchemaException.class,
                        e -> {
                            assertThat(e.subject()).isEqualTo(SUBJECT);
                            assertThat(e.reason())
                                    .contains("BACKWARD")
                                    .contains("READER_FIELD_MISSING_DEFAULT")
                                    .contains("score");
                            assertThat(e.httpStatus()).isEqualTo(409);
                            assertThat(e.isRetriable()).isFalse();
                        })
                .hasMessageContaining(SUBJECT);
    }

    @Test
    void shouldAcceptIncompatibleSchemaWhenSubjectLevelIsNone() {
        registry.register(SUBJECT, v1());
        registry.setCompatibility(SUBJECT, CompatibilityLevel.NONE);
        assertThat(registry.register(SUBJECT, v2WithoutDefault())).isPositive();
    }

    @Test
    void shouldCheckForwardCompatibilityWhenAsked() {
        registry.setCompatibility(SUBJECT, CompatibilityLevel.FORWARD);
        registry.register(SUBJECT, v2WithoutDefault());
        // Removing a field without a default: old readers cannot read new data.
        assertThatThrownBy(() -> registry.register(SUBJECT, v1()))
                .isInstanceOf(IncompatibleSchemaException.class)
                .hasMessageContaining("an earlier schema cannot read");
    }

    @Test
    void shouldCheckEveryVersionWhenTransitive() {
        registry.setCompatibility(SUBJECT, CompatibilityLevel.NONE);
        registry.register(SUBJECT, v1());
        registry.register(SUBJECT, v2WithoutDefault());
        registry.setCompatibility(SUBJECT, CompatibilityLevel.BACKWARD);
        final Schema v3 = v3ExtendsV2();
        assertThat(registry.register(SUBJECT, v3)).isPositive();
        registry.setCompatibility(SUBJECT, CompatibilityLevel.BACKWARD_TRANSITIVE);
        assertThatThrownBy(() -> registry.register(SUBJECT, v3ExtendsV2WithNote()))
                .isInstanceOf(IncompatibleSchemaException.class);
    }

    @Test
    void shouldReportUnknownIdAndUnregisteredSchema() {
        assertThatThrownBy(() -> registry.schemaById(12345))
                .isInstanceOf(UnknownSchemaException.class)
                .hasMessageContaining("12345");
        assertThatThrownBy(() -> registry.lookupId(SUBJECT, v1()))
                .isInstanceOf(UnknownSchemaException.class)
                .hasMessageContaining(SUBJECT);
    }

    @Test
    void shouldRejectMalformedMockUrl() {
        assertThatThrownBy(() -> MockSchemaRegistry.scopeOf("mock://"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("mock://<scope>");
    }

    static Schema v1() {
        return SchemaBuilder.record("Thing")
                .namespace("t")
                .fields()
                .requiredString("id")
                .endRecord();
    }

    static Schema v2WithDefault() {
        return SchemaBuilder.record("Thing")
                .namespace("t")
                .fields()
                .requiredString("id")
                .name("score")
                .type()
                .doubleType()
                .doubleDefault(0.0)
                .endRecord();
    }

    static Schema v2WithoutDefault() {
        return SchemaBuilder.record("Thing")
                .namespace("t")
                .fields()
                .requiredString("id")
                .requiredDouble("score")
                .endRecord();
    }

    private static Schema v3ExtendsV2() {
        return v2WithOptionalStrings("note");
    }

    private static Schema v3ExtendsV2WithNote() {
        return v2WithOptionalStrings("note", "tag");
    }

    /** {@link #v2WithoutDefault()} and optional string fields, each defaulting to "". */
    private static Schema v2WithOptionalStrings(final String... names) {
        SchemaBuilder.FieldAssembler<Schema> fields =
                SchemaBuilder.record("Thing")
                        .namespace("t")
                        .fields()
                        .requiredString("id")
                        .requiredDouble("score");
        for (final String name : names) {
            fields = fields.name(name).type().stringType().stringDefault("");
        }
        return fields.endRecord();
    }
}
