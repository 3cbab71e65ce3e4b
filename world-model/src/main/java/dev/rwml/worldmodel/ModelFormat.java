package dev.rwml.worldmodel;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.hf.HfCheckpoint;
import dev.rwml.worldmodel.hf.LoraCheckpoint;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * The artifact formats a model version can be published in, and the one place that tells them
 * apart: every format is a zip whose {@code manifest.json} names it. Whoever loads, trains or
 * exports a version switches on {@link #of}.
 */
public enum ModelFormat {
    /** The small built-in model's checkpoint ({@link Checkpoint}). */
    SMALL(Checkpoint.FORMAT),
    /** A Hugging Face checkpoint's files with their weights ({@link HfCheckpoint}). */
    HF(HfCheckpoint.FORMAT),
    /** A LoRA adapter over a Hugging Face version 0 ({@link LoraCheckpoint}). */
    LORA(LoraCheckpoint.FORMAT);

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String wireName;

    ModelFormat(final String wireName) {
        this.wireName = wireName;
    }

    /** The name manifests and the model topic give the format. */
    public String wireName() {
        return wireName;
    }

    /**
     * The format of artifact bytes. Bytes that name no other format are taken as {@link #SMALL},
     * whose reader then says what is wrong with them.
     */
    public static ModelFormat of(final byte[] artifact) {
        final String named = manifestFormat(artifact);
        return Arrays.stream(values())
                .filter(f -> f.wireName.equals(named))
                .findFirst()
                .orElse(SMALL);
    }

    private static String manifestFormat(final byte[] artifact) {
        try (ZipInputStream zip = new ZipInputStream(new ByteArrayInputStream(artifact))) {
            ZipEntry e;
            while ((e = zip.getNextEntry()) != null) {
                if ("manifest.json".equals(e.getName())) {
                    return JSON.readTree(zip.readAllBytes()).path("format").asText();
                }
            }
            return "";
        } catch (final IOException e) {
            return "";
        }
    }
}
