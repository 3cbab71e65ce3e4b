package dev.rwml.ops.cli.bench;

import java.util.Map;

/** The bench's trained arms: each one's name and the stage settings that make it. */
enum Arm {
    /** The trainer's SFT objective on the observed next states. */
    WM_SFT("wm-sft", Map.of("objective", "sft"), Map.of()),
    /** GRPO on the sim-to-real reward, too-easy groups mostly dropped. */
    RWML("rwml", Map.of(), Map.of()),
    /** GRPO without the too-easy subsampling. */
    RWML_NO_SUBSAMPLING("rwml-nosub", Map.of(), Map.of("easy.keep.probability", "1"));

    private final String id;
    private final Map<String, String> trainer;
    private final Map<String, String> reward;

    Arm(final String id, final Map<String, String> trainer, final Map<String, String> reward) {
        this.id = id;
        this.trainer = trainer;
        this.reward = reward;
    }

    /** The arm's name in run names and tables. */
    String id() {
        return id;
    }

    /** Trainer settings over the bench's own. */
    Map<String, String> trainer() {
        return trainer;
    }

    /** Reward-stage settings over the bench's own. */
    Map<String, String> reward() {
        return reward;
    }
}
