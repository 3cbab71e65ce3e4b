package dev.rwml.worldmodel.tokenizer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Trains a byte-level BPE tokenizer (GPT-2 style) in plain Java and writes it as a Hugging Face
 * {@code tokenizer.json}: ByteLevel pre-tokenizer and decoder, a BPE model with vocab and merges,
 * and the special tokens as added tokens. Every byte is in the base vocabulary, so any UTF-8 text
 * round-trips.
 */
public final class BpeTrainer {

    /** The GPT-2 pre-tokenisation pattern the ByteLevel pre-tokenizer applies. */
    private static final Pattern PRE_TOKENIZE =
            Pattern.compile(
                    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+");

    private static final String[] BYTE_TO_CHAR = byteToChar();

    private final int vocabSize;
    private final List<String> specials;

    /**
     * A trainer producing at most {@code vocabSize} ids: the special tokens, the 256 bytes, then
     * merges.
     */
    public BpeTrainer(final int vocabSize, final List<String> specials) {
        if (vocabSize < specials.size() + 256) {
            throw new IllegalArgumentException(
                    "vocabSize "
                            + vocabSize
                            + " is below the "
                            + (specials.size() + 256)
                            + " ids that the special tokens and the 256 bytes need");
        }
        this.vocabSize = vocabSize;
        this.specials = List.copyOf(specials);
    }

    /** A trainer with this module's {@link SpecialTokens}. */
    public static BpeTrainer withDefaultSpecials(final int vocabSize) {
        return new BpeTrainer(vocabSize, SpecialTokens.ALL);
    }

    /** Learns merges from the texts and returns the {@code tokenizer.json} text. */
    public String train(final Iterable<String> texts) {
        final Map<String, Integer> vocab = new LinkedHashMap<>();
        for (final String s : specials) {
            vocab.put(s, vocab.size());
        }
        final List<String> idToToken = new ArrayList<>(vocab.keySet());
        for (int b = 0; b < 256; b++) {
            vocab.putIfAbsent(BYTE_TO_CHAR[b], vocab.size());
            idToToken.add(BYTE_TO_CHAR[b]);
        }
        final Words words = countWords(texts, vocab);
        final List<String> merges = new ArrayList<>();
        while (vocab.size() < vocabSize) {
            final long best = words.mostFrequentPair();
            if (best < 0) {
                break;
            }
            final int left = (int) (best >>> 32);
            final int right = (int) best;
            final String merged = idToToken.get(left) + idToToken.get(right);
            Integer id = vocab.get(merged);
            if (id == null) {
                id = vocab.size();
                vocab.put(merged, id);
                idToToken.add(merged);
            }
            merges.add(idToToken.get(left) + " " + idToToken.get(right));
            words.merge(left, right, id);
        }
        return toJson(vocab, merges);
    }

    private Words countWords(final Iterable<String> texts, final Map<String, Integer> vocab) {
        final Pattern specialSplit =
                Pattern.compile(
                        specials.stream().map(Pattern::quote).collect(Collectors.joining("|")));
        final Map<String, Integer> counts = new HashMap<>();
        for (final String text : texts) {
            for (final String piece : specialSplit.split(text, -1)) {
                final Matcher m = PRE_TOKENIZE.matcher(piece);
                while (m.find()) {
                    counts.merge(m.group(), 1, Integer::sum);
                }
            }
        }
        final Words words = new Words();
        counts.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(
                        e -> {
                            final byte[] bytes = e.getKey().getBytes(StandardCharsets.UTF_8);
                            final int[] symbols = new int[bytes.length];
                            for (int i = 0; i < bytes.length; i++) {
                                symbols[i] = vocab.get(BYTE_TO_CHAR[bytes[i] & 0xff]);
                            }
                            words.add(symbols, e.getValue());
                        });
        return words;
    }

    private String toJson(final Map<String, Integer> vocab, final List<String> merges) {
        final ObjectMapper json = new ObjectMapper();
        final ObjectNode root = json.createObjectNode();
        root.put("version", "1.0");
        root.putNull("truncation");
        root.putNull("padding");
        final ArrayNode added = root.putArray("added_tokens");
        for (final String s : specials) {
            final ObjectNode t = added.addObject();
            t.put("id", vocab.get(s));
            t.put("content", s);
            t.put("single_word", false);
            t.put("lstrip", false);
            t.put("rstrip", false);
            t.put("normalized", false);
            t.put("special", true);
        }
        root.putNull("normalizer");
        final ObjectNode pre = root.putObject("pre_tokenizer");
        pre.put("type", "ByteLevel");
        pre.put("add_prefix_space", false);
        pre.put("trim_offsets", true);
        pre.put("use_regex", true);
        root.putNull("post_processor");
        final ObjectNode decoder = root.putObject("decoder");
        decoder.put("type", "ByteLevel");
        decoder.put("add_prefix_space", false);
        decoder.put("trim_offsets", true);
        decoder.put("use_regex", true);
        final ObjectNode model = root.putObject("model");
        model.put("type", "BPE");
        model.putNull("dropout");
        model.putNull("unk_token");
        model.putNull("continuing_subword_prefix");
        model.putNull("end_of_word_suffix");
        model.put("fuse_unk", false);
        model.put("byte_fallback", false);
        model.put("ignore_merges", false);
        final ObjectNode v = model.putObject("vocab");
        vocab.forEach(v::put);
        final ArrayNode m = model.putArray("merges");
        merges.forEach(m::add);
        try {
            return json.writerWithDefaultPrettyPrinter().writeValueAsString(root);
        } catch (final com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot write tokenizer.json", e);
        }
    }

    /** GPT-2's reversible map from bytes to printable characters. */
    private static String[] byteToChar() {
        final String[] map = new String[256];
        final Set<Integer> printable = new HashSet<>();
        for (int b = '!'; b <= '~'; b++) {
            printable.add(b);
        }
        for (int b = 0xA1; b <= 0xAC; b++) {
            printable.add(b);
        }
        for (int b = 0xAE; b <= 0xFF; b++) {
            printable.add(b);
        }
        int next = 0;
        for (int b = 0; b < 256; b++) {
            map[b] =
                    printable.contains(b)
                            ? Character.toString(b)
                            : Character.toString(256 + next++);
        }
        return map;
    }

    /** Unique pre-tokenised words as symbol ids, with incremental pair counts. */
    private static final class Words {
        private final List<int[]> symbols = new ArrayList<>();
        private final List<Integer> counts = new ArrayList<>();
        private final Map<Long, Long> pairCounts = new HashMap<>();
        private final Map<Long, Set<Integer>> pairWords = new HashMap<>();

        void add(final int[] word, final int count) {
            final int index = symbols.size();
            symbols.add(word);
            counts.add(count);
            addPairs(index, word, count);
        }

        long mostFrequentPair() {
            long best = -1;
            long bestCount = 0;
            for (final Map.Entry<Long, Long> e : pairCounts.entrySet()) {
                final long c = e.getValue();
                // ties go to the smaller pair key so training is deterministic
                if (c > bestCount || (c == bestCount && c > 0 && e.getKey() < best)) {
                    best = e.getKey();
                    bestCount = c;
                }
            }
            return bestCount > 0 ? best : -1;
        }

        void merge(final int left, final int right, final int merged) {
            final long key = pair(left, right);
            final Set<Integer> affected = pairWords.remove(key);
            if (affected == null) {
                return;
            }
            for (final int index : affected) {
                final int[] word = symbols.get(index);
                final int count = counts.get(index);
                removePairs(index, word, count);
                final int[] out = new int[word.length];
                int n = 0;
                for (int i = 0; i < word.length; i++) {
                    if (i + 1 < word.length && word[i] == left && word[i + 1] == right) {
                        out[n++] = merged;
                        i++;
                    } else {
                        out[n++] = word[i];
                    }
                }
                final int[] next = java.util.Arrays.copyOf(out, n);
                symbols.set(index, next);
                addPairs(index, next, count);
            }
            pairCounts.remove(key);
        }

        private void addPairs(final int index, final int[] word, final int count) {
            for (int i = 0; i + 1 < word.length; i++) {
                final long key = pair(word[i], word[i + 1]);
                pairCounts.merge(key, (long) count, Long::sum);
                pairWords.computeIfAbsent(key, k -> new HashSet<>()).add(index);
            }
        }

        private void removePairs(final int index, final int[] word, final int count) {
            for (int i = 0; i + 1 < word.length; i++) {
                final long key = pair(word[i], word[i + 1]);
                pairCounts.merge(key, (long) -count, (a, b) -> a + b == 0 ? null : a + b);
                final Set<Integer> set = pairWords.get(key);
                if (set != null) {
                    set.remove(index);
                }
            }
        }

        private static long pair(final int left, final int right) {
            return ((long) left << 32) | (right & 0xffffffffL);
        }
    }
}
