package dev.rwml.worldmodel.artifact;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 of artifacts as the lower-case hex string the manifest carries. */
public final class Artifacts {

    private Artifacts() {}

    /** Returns the lower-case hex SHA-256 of {@code bytes}. */
    public static String sha256Hex(final byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime ships SHA-256", e);
        }
    }
}
