import Foundation

/// How one configuration stands against another on the objective, given the smallest gain worth
/// shipping (`DecisionRule.minimumDifference`).
public enum ObjectiveVerdict: String, Sendable {
    /// The paired interval of the gain lies above the minimum difference.
    case clearlyBetter
    /// The gain's interval lies above zero but, whole, not above the minimum difference: the gain may
    /// be what matters, but is not surely.
    case betterNotClearlyByWhatMatters
    /// The gain's interval lies above zero and at or below the minimum difference.
    case betterByLessThanMatters
    /// The interval holds zero.
    case notToldApart
    /// The gain's interval lies below zero and at or above minus the minimum difference.
    case worseByLessThanMatters
    /// The gain's interval lies below zero and reaches below minus the minimum difference.
    case worseNotClearlyByWhatMatters
    /// The gain's interval lies below minus the minimum difference.
    case clearlyWorse

    /// The words a report uses.
    public var text: String {
        switch self {
        case .clearlyBetter: return "clearly better"
        case .betterNotClearlyByWhatMatters: return "better, but not clearly by what matters"
        case .betterByLessThanMatters: return "better, by less than what matters"
        case .notToldApart: return "not told apart"
        case .worseByLessThanMatters: return "worse, by less than what matters"
        case .worseNotClearlyByWhatMatters: return "worse, perhaps by what matters"
        case .clearlyWorse: return "clearly worse"
        }
    }
}

extension DecisionMeasure {
    /// Whether the difference of two configurations on `pairMeasure` is their difference on this
    /// measure, so that a paired interval speaks for the objective itself.
    public var hasPairedDifference: Bool {
        switch self {
        case .deliveredPerExtraOpen, .triggerRate, .responseRate: return false
        default: return true
        }
    }
}

extension DecisionRule {
    /// The verdict on a paired comparison (configuration − reference) on the objective's measure:
    /// the gain is the difference turned so that more is better. Nil without an interval.
    public func verdict(_ c: PairwiseComparison) -> ObjectiveVerdict? {
        guard let d = c.difference else { return nil }
        let (low, high) = objective.higherIsBetter ? (d.low, d.high) : (-d.high, -d.low)
        let m = objective.hasPairedDifference ? minimumDifference : 0
        if low > m { return .clearlyBetter }
        if low > 0 { return high > m ? .betterNotClearlyByWhatMatters : .betterByLessThanMatters }
        if high < -m { return .clearlyWorse }
        if high < 0 { return low < -m ? .worseNotClearlyByWhatMatters : .worseByLessThanMatters }
        return .notToldApart
    }

    /// The minimum difference in a sentence, saying when it is the default.
    public var minimumDifferenceText: String {
        let shown = objective.isFraction ? Self.plain(100 * minimumDifference) + " pp" : Self.plain(minimumDifference)
        // A difference of two configurations' lifts is a difference of the measure itself.
        return "smallest gain worth shipping \(shown) in \(objective.hasPairedDifference ? objective.pairMeasure.title : objective.title)"
            + (minimumDifference != 0 ? ""
                : objective.hasPairedDifference ? " (the default; set `minimumDifference` to state yours)"
                : " (this objective has no paired difference to hold one to)")
    }

    /// A number with up to six decimals and no trailing zeros.
    static func plain(_ x: Double) -> String {
        var text = String(format: "%.6f", x)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
