package dev.rwml.worldmodel.hf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class HfConfigTest {

    private static final String QWEN3 =
            """
            {"architectures": ["Qwen3ForCausalLM"], "hidden_size": 32, "intermediate_size": 48,
             "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
             "head_dim": 16, "rms_norm_eps": 1e-6, "vocab_size": 50,
             "max_position_embeddings": 64, "tie_word_embeddings": true,
             "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0},
             "attention_bias": false, "eos_token_id": [7, 9], "bos_token_id": null}
            """;

    @Test
    void shouldReadTheQwen2FixtureWithQkvBiasAndTiedHead() {
        final HfConfig c = HfConfig.load(HfFixtures.checkpoint("qwen2-tiny"));
        assertThat(c.architecture()).isEqualTo(HfArchitecture.QWEN2);
        assertThat(c.hiddenSize()).isEqualTo(64);
        assertThat(c.intermediateSize()).isEqualTo(160);
        assertThat(c.layers()).isEqualTo(2);
        assertThat(c.heads()).isEqualTo(4);
        assertThat(c.kvHeads()).isEqualTo(2);
        assertThat(c.headDim()).isEqualTo(16);
        assertThat(c.rmsNormEps()).isEqualTo(1e-6);
        assertThat(c.ropeTheta()).isEqualTo(1e6);
        assertThat(c.tiedEmbeddings()).isTrue();
        assertThat(c.qkvBias()).isTrue();
        assertThat(c.outputBias()).isFalse();
        assertThat(c.eosTokenIds()).containsExactly(381);
        assertThat(c.bosTokenId()).hasValue(381);
        assertThat(c.tensorShapes())
                .containsKeys(
                        "model.layers.1.self_attn.q_proj.bias",
                        "model.layers.1.self_attn.v_proj.bias")
                .doesNotContainKeys("lm_head.weight", "model.layers.0.self_attn.o_proj.bias");
    }

    @Test
    void shouldReadTheLlamaFixtureWithUntiedHeadAndNoBiases() {
        final HfConfig c = HfConfig.load(HfFixtures.checkpoint("llama-tiny"));
        assertThat(c.architecture()).isEqualTo(HfArchitecture.LLAMA);
        assertThat(c.ropeTheta()).isEqualTo(1e4);
        assertThat(c.rmsNormEps()).isEqualTo(1e-5);
        assertThat(c.tiedEmbeddings()).isFalse();
        assertThat(c.qkvBias()).isFalse();
        assertThat(c.eosTokenIds()).containsExactly(382);
        assertThat(c.tensorShapes()).containsKey("lm_head.weight").hasSize(1 + 2 * 9 + 2);
        assertThat(c.tensorShapes().get("model.layers.0.self_attn.k_proj.weight"))
                .containsExactly(32, 64);
    }

    @Test
    void shouldTakeQwen3RopeThetaFromRopeParametersAndAnExplicitHeadDim() {
        final HfConfig c = HfConfig.parse(QWEN3);
        assertThat(c.architecture().qkNorm()).isTrue();
        assertThat(c.headDim()).isEqualTo(16);
        assertThat(c.ropeTheta()).isEqualTo(1e6);
        assertThat(c.eosTokenIds()).isEqualTo(List.of(7, 9));
        assertThat(c.bosTokenId()).isEqualTo(OptionalInt.empty());
        assertThat(c.tensorShapes().get("model.layers.0.self_attn.q_proj.weight"))
                .containsExactly(64, 32);
        assertThat(c.tensorShapes().get("model.layers.0.self_attn.o_proj.weight"))
                .containsExactly(32, 64);
        assertThat(c.tensorShapes().get("model.layers.1.self_attn.k_norm.weight"))
                .containsExactly(16);
    }

    @Test
    void shouldNameTheSupportedArchitecturesWhenRefusingAnother() {
        assertThatThrownBy(
                        () ->
                                HfConfig.parse(
                                        QWEN3.replace("Qwen3ForCausalLM", "MistralForCausalLM")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unsupported architecture MistralForCausalLM")
                .hasMessageContaining("Qwen2ForCausalLM, Qwen3ForCausalLM, LlamaForCausalLM");
    }

    @Test
    void shouldRefuseScaledRotaryEmbeddingsAndMissingSizes() {
        assertThatThrownBy(
                        () ->
                                HfConfig.parse(
                                        QWEN3.replace(
                                                "\"rope_type\": \"default\"",
                                                "\"rope_type\": \"llama3\"")))
                .hasMessageContaining("rope type llama3 is not supported");
        assertThatThrownBy(() -> HfConfig.parse(QWEN3.replace("\"vocab_size\"", "\"vocab\"")))
                .hasMessageContaining("config needs an integer vocab_size");
        assertThatThrownBy(
                        () ->
                                HfConfig.parse(
                                        QWEN3.replace(
                                                "\"num_key_value_heads\": 2",
                                                "\"num_key_value_heads\": 3")))
                .hasMessageContaining("multiple of num_key_value_heads 3");
    }
}
