package dev.rwml.scoring.embed;

import java.util.ArrayList;
import java.util.List;

/**
 * Embeds a text named {@code at:<degrees>} as the unit vector at that angle, so the cosine of two
 * texts is the cosine of their angle difference: {@code at:0} against {@code at:10} is 0.985.
 */
public final class AngleEmbedder implements TextEmbedder {

    /** The text whose cosine with {@code at:0} is {@code cosine}. */
    public static String withCosine(final double cosine) {
        return "at:" + Math.toDegrees(Math.acos(cosine));
    }

    @Override
    public String modelName() {
        return "angles";
    }

    @Override
    public List<float[]> embedAll(final List<String> texts) {
        final List<float[]> out = new ArrayList<>(texts.size());
        for (final String text : texts) {
            final double radians = Math.toRadians(Double.parseDouble(text.substring(3)));
            out.add(new float[] {(float) Math.cos(radians), (float) Math.sin(radians)});
        }
        return out;
    }
}
