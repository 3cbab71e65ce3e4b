package dev.rwml.evaluation;

/**
 * One version's figures on one held-out set, as a run's progress shows them (the demo's report):
 * the pass rate with its bootstrap interval and the mean similarity, from an {@link Evaluation}.
 *
 * @param version the model version
 * @param passRate the fraction of samples rewarded 1
 * @param meanSimilarity the mean similarity of samples to the observed next state
 * @param samples samples scored
 * @param passInterval the pass rate with its 95% bootstrap interval over episodes (the same draws
 *     for every version)
 */
public record VersionScore(
        long version, double passRate, double meanSimilarity, int samples, Interval passInterval) {

    /** A score without an interval (the interval is the estimate). */
    public VersionScore(
            final long version,
            final double passRate,
            final double meanSimilarity,
            final int samples) {
        this(
                version,
                passRate,
                meanSimilarity,
                samples,
                new Interval(passRate, passRate, passRate));
    }

    /**
     * The score of a model on the report's first set; transitions have equal samples, so the mean
     * of per-transition rates is the rate over samples.
     */
    public static VersionScore of(final EvalReport report, final EvalReport.ModelResult model) {
        final EvalReport.Figures all = model.sets().get(0).all();
        return new VersionScore(
                model.version(),
                all.pass().estimate(),
                all.similarity().estimate(),
                all.transitions() * report.samples(),
                all.pass());
    }
}
