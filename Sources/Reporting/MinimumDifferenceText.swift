import Rendering
import Simulation

/// The decision's sentences that hold a paired difference to the smallest gain worth shipping.
extension DecisionReport {
    /// The objective's verdict on a comparison, when the compared measure is the objective's own.
    static func verdict(_ results: RunResults, _ c: PairwiseComparison) -> ObjectiveVerdict? {
        let rule = results.decision.rule
        guard rule.objective.hasPairedDifference, c.measure == rule.objective.pairMeasure else { return nil }
        return rule.verdict(c)
    }

    /// The recommendation against the baseline on the objective, in one sentence; empty when the
    /// baseline itself is recommended or the objective has no paired difference.
    static func baselineVerdictText(_ results: RunResults, best: Int) -> String {
        let d = results.decision
        guard best != d.baseline, let c = d.versusBaseline.first(where: { $0.measure == d.comparedMeasure }),
              let v = verdict(results, c) else { return "" }
        return "Against the baseline on \(c.measure.title): \(Markdown.escapeCell(label(results, best))) is \(v.text) "
            + "(\(Text.difference(c))" + (d.rule.minimumDifference > 0 ? "; \(d.rule.minimumDifferenceText)" : "") + ").\n\n"
    }

    /// The runner-up's sentence when the minimum difference changes it: ahead by less than what
    /// matters, or clearly ahead of a minimum above zero; nil otherwise.
    static func runnerUpVerdictText(_ results: RunResults, runner: Int, on c: PairwiseComparison) -> String? {
        let rule = results.decision.rule
        guard rule.minimumDifference > 0, let v = verdict(results, c) else { return nil }
        let name = Markdown.escapeCell(label(results, runner))
        switch v {
        case .clearlyBetter:
            return "The runner-up, \(name), is clearly behind on \(c.measure.title): its paired interval lies above the "
                + "\(rule.minimumDifferenceText).\n\n"
        case .betterByLessThanMatters:
            return "**Better, by less than what matters:** the runner-up, \(name), is behind on \(c.measure.title) by "
                + "\(Text.difference(c)); the interval excludes zero and lies at or below the \(rule.minimumDifferenceText).\n\n"
        case .betterNotClearlyByWhatMatters:
            return "**Better, but not clearly by what matters:** the runner-up, \(name), is behind on \(c.measure.title) by "
                + "\(Text.difference(c)); the interval excludes zero but reaches below the \(rule.minimumDifferenceText).\n\n"
        default:
            return nil
        }
    }
}
