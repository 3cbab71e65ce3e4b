package dev.rwml.runtime.errors;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.registry.RegistryTlsException;
import dev.rwml.schemas.registry.RegistryUnreachableException;
import java.net.ConnectException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLHandshakeException;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.streams.errors.StreamsException;
import org.junit.jupiter.api.Test;

class AccessErrorsTest {

    private static final Connection SECURE =
            Connection.from(
                    Map.of(
                            "bootstrap.servers", "127.0.0.1:9093",
                            "schema.registry.url", "https://127.0.0.1:8443/apis/ccompat/v7",
                            "security.protocol", "SASL_SSL",
                            "sasl.mechanism", "SCRAM-SHA-512",
                            "sasl.jaas.config",
                                    "org.apache.kafka.common.security.scram.ScramLoginModule"
                                            + " required username=\"alice\" password=\"x\";",
                            "ssl.truststore.location", "/data/secure/truststore.p12"));

    @Test
    void shouldTreatRefusedLoginsPermissionsAndCertificatesAsFailuresNotOutages() {
        final List<Throwable> refused =
                List.of(
                        new StreamsException(new TopicAuthorizationException(Set.of("t"))),
                        new SaslAuthenticationException("invalid credentials"),
                        new SslAuthenticationException("SSL handshake failed"),
                        new RuntimeException(
                                new RegistryTlsException(
                                        "https://r", new SSLHandshakeException("PKIX"))));
        for (final Throwable error : refused) {
            assertThat(ErrorPolicy.isAccessFailure(error)).as("%s", error).isTrue();
            assertThat(ErrorPolicy.isOutage(error)).as("%s", error).isFalse();
            assertThat(ErrorPolicy.classify(error)).isEqualTo(ErrorPolicy.Action.FAIL);
        }
    }

    @Test
    void shouldKeepRetryingRealOutages() {
        for (final Throwable outage :
                List.of(
                        new TimeoutException("no node"),
                        new RegistryUnreachableException("http://r", 3, new ConnectException()))) {
            assertThat(ErrorPolicy.isAccessFailure(outage)).isFalse();
            assertThat(ErrorPolicy.classify(outage)).isEqualTo(ErrorPolicy.Action.RETRY);
        }
    }

    @Test
    void shouldNameThePrincipalAndTheSettingOfAWrongPassword() {
        final String message =
                AccessErrors.explain(new SaslAuthenticationException("invalid credentials"), SECURE)
                        .orElseThrow();

        assertThat(message)
                .contains("127.0.0.1:9093")
                .contains("User:alice")
                .contains("SCRAM-SHA-512")
                .contains("password in sasl.jaas.config is wrong");
    }

    @Test
    void shouldNameTheTruststoreThatDoesNotTrustTheBroker() {
        final String message =
                AccessErrors.explain(
                                new SslAuthenticationException(
                                        "SSL handshake failed",
                                        new SSLHandshakeException("PKIX path building failed")),
                                SECURE)
                        .orElseThrow();

        assertThat(message)
                .startsWith("TLS handshake with Kafka at 127.0.0.1:9093 failed")
                .contains("PKIX path building failed")
                .contains("ssl.truststore.location=/data/secure/truststore.p12");
    }

    @Test
    void shouldGiveTheAclLineForAGroup() {
        final String message =
                AccessErrors.explain(
                                GroupAuthorizationException.forGroupId("rwml-r-reward"), SECURE)
                        .orElseThrow();

        assertThat(message)
                .contains("User:alice is not authorized on group rwml-r-reward")
                .contains(
                        "--add --allow-principal User:alice --operation Read --group"
                                + " rwml-r-reward");
    }

    @Test
    void shouldAskForTheOperationsTheBrokerDoesNotAllow() {
        assertThat(
                        AccessErrors.missing(
                                Set.of(
                                        AclOperation.DESCRIBE,
                                        AclOperation.DESCRIBE_CONFIGS,
                                        AclOperation.WRITE)))
                .containsExactly(AclOperation.READ);
        assertThat(AccessErrors.missing(Set.of(AclOperation.DESCRIBE)))
                .containsExactly(
                        AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE_CONFIGS);
        assertThat(AccessErrors.aclName(AclOperation.DESCRIBE_CONFIGS))
                .isEqualTo("DescribeConfigs");
        assertThat(
                        AccessErrors.grant(
                                "b:9093",
                                "User:alice",
                                List.of(AclOperation.READ),
                                "--topic rwml.transitions"))
                .endsWith(
                        "kafka-acls.sh --bootstrap-server b:9093 --command-config admin.properties"
                                + " --add --allow-principal User:alice --operation Read --topic"
                                + " rwml.transitions");
    }

    @Test
    void shouldSayNothingAboutOtherErrors() {
        assertThat(AccessErrors.explain(new IllegalStateException("boom"), SECURE)).isEmpty();
        assertThat(AccessErrors.principal(Connection.of("127.0.0.1:9092", "http://127.0.0.1:8080")))
                .isEqualTo("User:ANONYMOUS");
    }
}
