package dev.rwml.serving;

import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.openai.ChatCompletionResponse;
import dev.rwml.worldmodel.serve.openai.CompletionResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One sample as an OpenAI choice: its text cut at the first stop text a request gave (the tokens up
 * to the one that completed it kept), its token ids and behaviour log-probs unchanged otherwise,
 * and why it ended. Built on the model thread, which decodes the tokens' texts.
 *
 * @param text the completion's text, without a stop text
 * @param tokenIds the completion's token ids
 * @param logProbs each token's log-prob (temperature 1, no top-p), as the sampler recorded it
 * @param finishReason {@code stop} or {@code length}
 * @param tokenTexts each token's text
 */
record Completion(
        String text,
        int[] tokenIds,
        float[] logProbs,
        String finishReason,
        List<String> tokenTexts) {

    /** The choice of {@code sample}, cut at the first of {@code stop} (null: none). */
    static Completion of(
            final Sample sample, final List<String> stop, final PredictionModel model) {
        int[] ids = sample.tokenIds();
        float[] logProbs = sample.logProbs();
        String text = sample.text();
        String reason = finishReason(sample);
        final int cut = firstStop(text, stop);
        if (cut >= 0) {
            final String stopText = stopAt(text, cut, stop);
            final int keep = tokensThrough(ids, text.substring(0, cut) + stopText, model);
            ids = Arrays.copyOf(ids, keep);
            logProbs = Arrays.copyOf(logProbs, keep);
            text = text.substring(0, cut);
            reason = CompletionResponse.STOP;
        }
        final List<String> texts = new ArrayList<>(ids.length);
        for (final int id : ids) {
            texts.add(model.decode(new int[] {id}));
        }
        return new Completion(text, ids, logProbs, reason, texts);
    }

    /** {@code length} for a sample cut at the token limit, else {@code stop}. */
    static String finishReason(final Sample sample) {
        return sample.stopReason() == Sample.StopReason.LENGTH
                ? CompletionResponse.LENGTH
                : CompletionResponse.STOP;
    }

    /** The legacy completions log-probs: token texts, log-probs and character offsets. */
    CompletionResponse.Logprobs logprobs() {
        final List<Double> values = new ArrayList<>(logProbs.length);
        final List<Integer> offsets = new ArrayList<>(logProbs.length);
        int offset = 0;
        for (int i = 0; i < logProbs.length; i++) {
            values.add((double) logProbs[i]);
            offsets.add(offset);
            offset += tokenTexts.get(i).length();
        }
        return new CompletionResponse.Logprobs(tokenTexts, values, null, offsets);
    }

    /** The chat log-probs: each token's text and log-prob. */
    ChatCompletionResponse.Logprobs chatLogprobs() {
        final List<ChatCompletionResponse.TokenLogprob> content = new ArrayList<>();
        for (int i = 0; i < logProbs.length; i++) {
            content.add(new ChatCompletionResponse.TokenLogprob(tokenTexts.get(i), logProbs[i]));
        }
        return new ChatCompletionResponse.Logprobs(content);
    }

    private static int firstStop(final String text, final List<String> stop) {
        int first = -1;
        if (stop != null) {
            for (final String s : stop) {
                final int at = s.isEmpty() ? -1 : text.indexOf(s);
                if (at >= 0 && (first < 0 || at < first)) {
                    first = at;
                }
            }
        }
        return first;
    }

    private static String stopAt(final String text, final int at, final List<String> stop) {
        for (final String s : stop) {
            if (!s.isEmpty() && text.startsWith(s, at)) {
                return s;
            }
        }
        throw new IllegalStateException("no stop text at " + at);
    }

    /** The fewest leading tokens whose text holds {@code prefix}. */
    private static int tokensThrough(
            final int[] ids, final String prefix, final PredictionModel model) {
        for (int k = 1; k < ids.length; k++) {
            if (model.decode(Arrays.copyOf(ids, k)).contains(prefix)) {
                return k;
            }
        }
        return ids.length;
    }
}
