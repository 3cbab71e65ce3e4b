package dev.rwml.ops.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Test helper that exercises a broker and a registry the way a client application would. */
final class ClusterProbe {

    static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*(\\d+)");

    private ClusterProbe() {}

    static void produce(final String bootstrap, final String topic, final String value)
            throws Exception {
        try (KafkaProducer<String, String> producer =
                TestClients.acksAllProducer(
                        bootstrap, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "k", value)).get();
        }
    }

    /** The values of {@code topic} up to its end offsets now. */
    static List<String> consumeAll(final String bootstrap, final String topic) {
        try (KafkaConsumer<String, String> consumer = consumer(bootstrap, "read_uncommitted")) {
            return TestClients.readToEnd(consumer, topic).stream()
                    .map(ConsumerRecord::value)
                    .toList();
        }
    }

    static KafkaConsumer<String, String> consumer(final String bootstrap, final String isolation) {
        return new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        isolation,
                        ConsumerConfig.FETCH_MAX_BYTES_CONFIG,
                        20 * 1024 * 1024,
                        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                        20 * 1024 * 1024),
                new StringDeserializer(),
                new StringDeserializer());
    }

    static KafkaProducer<byte[], byte[]> bytesProducer(final Map<String, Object> extra) {
        return new KafkaProducer<>(extra, new ByteArraySerializer(), new ByteArraySerializer());
    }

    static KafkaConsumer<byte[], byte[]> bytesConsumer(final String bootstrap) {
        return new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                        ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 20 * 1024 * 1024,
                        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 20 * 1024 * 1024),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
    }

    /** An Avro record schema with the given fields, as the JSON body of a register request. */
    static String schemaBody(final String name, final String fieldsJson) {
        final String schema =
                "{\"type\":\"record\",\"name\":\"" + name + "\",\"fields\":[" + fieldsJson + "]}";
        return "{\"schema\":\"" + schema.replace("\"", "\\\"") + "\"}";
    }

    static HttpResponse<String> post(final String url, final String body) throws IOException {
        return send(json(url).POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    static HttpResponse<String> put(final String url, final String body) throws IOException {
        return send(json(url).PUT(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    private static HttpRequest.Builder json(final String url) {
        return HttpRequest.newBuilder(URI.create(url)).header("Content-Type", CONTENT_TYPE);
    }

    static HttpResponse<String> get(final String url) throws IOException {
        return send(HttpRequest.newBuilder(URI.create(url)).GET().build());
    }

    /** Registers a schema under {@code subject} and returns the id the registry gave it. */
    static int register(final String registryUrl, final String subject, final String body)
            throws IOException {
        final HttpResponse<String> r =
                post(registryUrl + "/subjects/" + subject + "/versions", body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        final Matcher m = ID.matcher(r.body());
        assertThat(m.find()).as(r.body()).isTrue();
        return Integer.parseInt(m.group(1));
    }

    private static HttpResponse<String> send(final HttpRequest request) throws IOException {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }
}
