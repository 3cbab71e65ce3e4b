package dev.rwml.worldmodel.checkpoint;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * The zip container both checkpoint formats use: named entries in order, uncompressed, every entry
 * stamped with the same time so that the same content always gives the same bytes (and the same
 * SHA-256).
 */
public final class ZipEntries {

    private ZipEntries() {}

    /** The entries as one zip, in the map's order. */
    public static byte[] write(final Map<String, byte[]> entries) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(out)) {
            // Weights are float noise to deflate (7% smaller, at 160 ms per 5 MB on these cores,
            // paid at every published version): entries are written uncompressed.
            zip.setLevel(Deflater.NO_COMPRESSION);
            for (final Map.Entry<String, byte[]> e : entries.entrySet()) {
                final ZipEntry entry = new ZipEntry(e.getKey());
                entry.setTime(0L);
                zip.putNextEntry(entry);
                zip.write(e.getValue());
                zip.closeEntry();
            }
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write checkpoint", e);
        }
        return out.toByteArray();
    }

    /**
     * The entries of a zip, in its order.
     *
     * @throws IllegalArgumentException when the bytes are not a readable zip
     */
    public static Map<String, byte[]> read(final byte[] bytes) {
        final Map<String, byte[]> entries = new LinkedHashMap<>();
        try (ZipInputStream zip = new ZipInputStream(new ByteArrayInputStream(bytes))) {
            ZipEntry e;
            while ((e = zip.getNextEntry()) != null) {
                entries.put(e.getName(), zip.readAllBytes());
            }
        } catch (final IOException e) {
            throw new IllegalArgumentException("checkpoint is not a readable zip", e);
        }
        return entries;
    }
}
