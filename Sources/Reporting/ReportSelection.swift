import Simulation

/// Which configurations the report's tables and charts show: every one in a run of up to
/// `everyUpTo`; in a larger run the `best` best by the decision's objective, the baseline and the
/// recommendation, while the CSV files hold them all.
enum ReportSelection {
    static let everyUpTo = 25
    static let best = 20

    /// The sentence that says so, where the report leaves configurations out; empty otherwise.
    static func note(_ results: RunResults) -> String {
        let shown = results.shown.count, total = results.configurations.count
        guard shown < total else { return "" }
        return "This run has \(Text.group(Int64(total))) configurations: the report's tables and charts show \(shown) of "
            + "them, the \(best) best by \(results.decision.rule.objective.title), the baseline and the recommendation. "
            + "Every configuration is in the CSV files beside this report (`config_metrics.csv`, `pairwise_stats.csv`, …).\n\n"
    }
}

extension RunResults {
    /// The configurations the report shows, in the run's order.
    var shown: [ConfigurationResult] {
        guard configurations.count > ReportSelection.everyUpTo else { return configurations }
        var keep = Set(decision.ranked.prefix(ReportSelection.best))
        if baselineIndex > 0 { keep.insert(baselineIndex) }
        if let r = decision.recommended { keep.insert(r) }
        return configurations.filter { keep.contains($0.index) }
    }

    /// The holdout, then the configurations the report shows.
    var shownAll: [ConfigurationResult] { [holdout] + shown }
}
