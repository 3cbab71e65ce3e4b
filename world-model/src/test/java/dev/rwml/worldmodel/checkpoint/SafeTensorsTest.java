package dev.rwml.worldmodel.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.worldmodel.model.Tensor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SafeTensorsTest {

    @Test
    void shouldWriteTheSafetensorsLayout() {
        final Map<String, Tensor> tensors = new LinkedHashMap<>();
        tensors.put("a", new Tensor(new long[] {2, 2}, new float[] {1, 2, 3, 4}));
        tensors.put("b", new Tensor(new long[] {1}, new float[] {-0.5f}));
        final byte[] bytes = SafeTensors.write(tensors, Map.of("format", "pt"));
        final ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        final long headerLength = in.getLong();
        assertThat(headerLength % 8).isZero();
        final String header = new String(bytes, 8, (int) headerLength, StandardCharsets.UTF_8);
        assertThat(header)
                .contains("\"__metadata__\":{\"format\":\"pt\"}")
                .contains("\"a\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}")
                .contains("\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[16,20]}");
        assertThat(bytes).hasSize(8 + (int) headerLength + 20);
        in.position(8 + (int) headerLength);
        assertThat(in.getFloat()).isEqualTo(1f);
        in.position(8 + (int) headerLength + 16);
        assertThat(in.getFloat()).isEqualTo(-0.5f);

        final SafeTensors.Contents read = SafeTensors.read(bytes);
        assertThat(read.tensors().keySet()).containsExactly("a", "b");
        assertThat(read.tensors().get("a").data()).containsExactly(1, 2, 3, 4);
        assertThat(read.tensors().get("a").shape()).containsExactly(2, 2);
        assertThat(read.metadata()).containsEntry("format", "pt");
    }

    @Test
    void shouldRejectNonFloat32Tensors() {
        final String header = "{\"x\":{\"dtype\":\"BF16\",\"shape\":[1],\"data_offsets\":[0,2]}}";
        final byte[] h = header.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer b = ByteBuffer.allocate(8 + h.length + 2).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(h.length).put(h).put((byte) 0).put((byte) 0);
        assertThatThrownBy(() -> SafeTensors.read(b.array())).hasMessageContaining("only F32");
    }
}
