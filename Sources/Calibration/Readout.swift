import Foundation
import Randomness
import Simulation

/// Whether a live test put its users in the arms as planned: Pearson's chi-square of the arms' users
/// against the planned shares. A mismatch means the assignment or the logging is broken, and no
/// difference between the arms can be trusted.
public struct SampleRatioCheck: Sendable, Equatable {
    public let arms: [String]
    public let users: [Int]
    /// Each arm's planned share, the shares given divided by their sum.
    public let planned: [Double]
    /// Whether the shares came from the results file; otherwise the arms were taken as equal.
    public let statedShares: Bool
    public let statistic: Double
    public let degreesOfFreedom: Int
    /// P(χ²_df ≥ statistic); 1 for a single arm.
    public let pValue: Double

    /// Below this p-value the split is called a mismatch: a strict threshold, since the check runs on
    /// every test and a false alarm stops a sound one.
    public static let threshold = 0.001

    public var mismatch: Bool { pValue < Self.threshold }

    public init(_ results: ExperimentResults) {
        let arms = results.arms
        let stated = !arms.isEmpty && arms.allSatisfy { $0.plannedShare != nil }
        statedShares = stated
        // Scaled by the largest first, so that shares as large as a Double holds still add up.
        let given = arms.map { stated ? $0.plannedShare ?? 1 : 1 }
        let largest = given.max() ?? 1
        let raw = given.map { $0 / largest }
        let sum = raw.reduce(0, +)
        planned = raw.map { $0 / sum }
        self.arms = arms.map(\.label)
        users = arms.map(\.users)
        // Summed as reals: the counts of a file can be as large as an Int holds.
        let total = arms.reduce(0.0) { $0 + Double($1.users) }
        statistic = zip(arms, planned).reduce(0.0) { s, x in
            let expected = total * x.1
            let gap = Double(x.0.users) - expected
            // A share too small to expect anyone (it vanishes beside the largest) is missed by
            // every user the arm has: an infinite statistic, not a division's NaN.
            guard expected > 0 else { return gap == 0 ? s : .infinity }
            return s + gap * gap / expected
        }
        degreesOfFreedom = arms.count - 1
        pValue = degreesOfFreedom == 0 ? 1
            : statistic == .infinity ? 0
            : regularizedGammaQ(a: Double(degreesOfFreedom) / 2, x: statistic / 2)
    }
}

/// One arm's observed rate against what the simulation predicts for an arm of that many users.
public struct ArmPrediction: Sendable, Equatable {
    public let arm: String
    /// `delivered`, `opens`, `opt_outs`, `retained_d7`, `retained_d30` or `attributed`, per user.
    public let name: String
    public let users: Int
    public let observed: Double
    public let predicted: Double
    /// Standard deviation of the observed rate about the prediction: the arm's sampling noise at its
    /// users, the simulation's own noise and, under draws, the spread of the model's draws.
    public let standardError: Double
    /// The part of that spread the model's uncertainty contributes (0 without draws).
    public let modelStandardError: Double

    /// The range the observed rate falls in 95% of the time when the model is right: the normal
    /// approximation's, cut to what the rate can be (no count per user below 0, no share of users
    /// above 1), which it passes for a small arm.
    public var lower: Double { max(0, predicted - 1.959_964 * standardError) }
    public var upper: Double {
        let upper = predicted + 1.959_964 * standardError
        return Self.shares.contains(name) ? min(1, upper) : upper
    }
    /// The rates that are shares of the arm's users.
    static let shares: Set<String> = ["opt_outs", "retained_d7", "retained_d30"]
    public var z: Double { standardError > 0 ? (observed - predicted) / standardError : 0 }
}

/// The simulation's prediction of every arm of a live test at the arm's own size.
public struct ArmPredictions: Sendable {
    public let moments: [ArmPrediction]
    /// Draws of the response model the prediction averages over (0: the model as given).
    public let draws: Int
    /// Users simulated per arm.
    public let simulatedUsers: Int
    /// r'Σ⁻¹r of the observed rates about the predictions, χ² with `degreesOfFreedom` when the model is right.
    public let statistic: Double
    public let degreesOfFreedom: Int
    public let pValue: Double?
    /// Per-user variance of each arm's rates as simulated, by arm label and rate name.
    let perUserVariance: [String: [String: Double]]

    /// The p-value below which the model is said to need recalibrating, as `calibrate` judges a fit.
    public static let recalibrationThreshold = 0.01

    public var needsRecalibrating: Bool { (pValue ?? 1) < Self.recalibrationThreshold }

    /// `options` with other simulated users than the fit's: a held-out arm predicted on the users the fit
    /// was made on would share their noise with the fitted parameters, and its interval would count it twice.
    public static func unseenUsers(_ options: Calibration.Options, scenario: Scenario) -> Calibration.Options {
        var o = options
        o.seed = (options.seed ?? scenario.seed) ^ (1 << 51)
        return o
    }

    /// Predicts the arms of `results` with `scenario`: under `draws` draws of its response model when
    /// it carries an uncertainty (the same users at every draw), the model as given otherwise.
    public static func predict(
        scenario: Scenario, recorded: RecordedLogs = RecordedLogs(), results: ExperimentResults, draws: Int,
        options: Calibration.Options
    ) throws -> ArmPredictions {
        guard results.arms.contains(where: { $0.label != "holdout" }) else {
            throw CalibrationError(.mismatch, "the results have no arm but the holdout: give at least one configuration's arm")
        }
        let simulator = try MomentSimulator(scenario: scenario, recorded: recorded, results: results, options: options)
        var central = scenario.response
        central.uncertainty = nil
        let batches = try simulator.batchMoments(central)
        let perUser = Calibration.perUserCovariance(batches)
        let count = simulator.observed.count
        var mean = (0..<count).map { i in
            batches.reduce(0.0) { $0 + Double($1.users) * $1.moments[i] } / Double(max(options.users, 1))
        }
        var between = [[Double]](repeating: [Double](repeating: 0, count: count), count: count)
        let k = scenario.response.isUncertain ? max(draws, 0) : 0
        if k > 0 {
            let seed = options.seed ?? scenario.seed
            let runs = try (0..<k).map { try simulator.moments(scenario.response.draw($0, seed: seed)) }
            mean = (0..<count).map { i in runs.reduce(0) { $0 + $1[i] } / Double(k) }
            if k > 1 {
                // The draws' covariance, and the noise of their mean over k draws on top.
                let scale = (1 + 1 / Double(k)) / Double(k - 1)
                between = (0..<count).map { i in
                    (0..<count).map { j in scale * runs.reduce(0) { $0 + ($1[i] - mean[i]) * ($1[j] - mean[j]) } }
                }
            }
        }
        let kept = simulator.usable(perUserVariance: (0..<count).map { perUser[$0][$0] })
        let n = Double(options.users)
        func covariance(_ i: Int, _ j: Int) -> Double {
            perUser[i][j] * ((simulator.arm[i] == simulator.arm[j] ? 1 / simulator.observedUsers[i] : 0) + 1 / n) + between[i][j]
        }
        let users = Dictionary(results.arms.map { ($0.label, $0.users) }, uniquingKeysWith: { a, _ in a })
        let moments = kept.map { i in
            ArmPrediction(
                arm: simulator.armLabel[i], name: simulator.momentName[i], users: users[simulator.armLabel[i]] ?? 0,
                observed: simulator.observed[i], predicted: mean[i], standardError: max(covariance(i, i), 0).squareRoot(),
                modelStandardError: max(between[i][i], 0).squareRoot())
        }
        let sigma = kept.map { i in kept.map { j in covariance(i, j) } }
        let statistic = Calibration.quadraticForm(kept.map { simulator.observed[$0] - mean[$0] }, covariance: sigma)
        var variances: [String: [String: Double]] = [:]
        for i in 0..<count { variances[simulator.armLabel[i], default: [:]][simulator.momentName[i]] = perUser[i][i] }
        return ArmPredictions(
            moments: moments, draws: k, simulatedUsers: options.users, statistic: statistic, degreesOfFreedom: kept.count,
            pValue: kept.isEmpty || !statistic.isFinite ? nil
                : regularizedGammaQ(a: Double(kept.count) / 2, x: max(statistic, 0) / 2),
            perUserVariance: variances)
    }
}

/// One arm against the baseline (or the holdout) on the decision's objective, as two independent
/// samples of users, and what the scenario's decision rule calls of it.
public struct ObservedComparison: Sendable, Equatable {
    public enum Call: String, Sendable {
        case ship
        case dontShip = "don't ship"
        case inconclusive = "inconclusive at this size"
    }

    public let arm: String
    public let against: String
    public let measure: DecisionMeasure
    /// The arm's rate minus the other's.
    public let difference: Double
    /// Per-user variances of the two arms' rates, and their users.
    public let armVariance: Double
    public let againstVariance: Double
    public let armUsers: Int
    public let againstUsers: Int
    public let call: Call
    /// Why, in a sentence.
    public let reason: String
    /// The 95% interval of a difference of two shares (an opt-out or retention rate), by Newcombe's hybrid
    /// score method: unlike the normal interval it keeps a width when a share is 0 or 1, as it is in small
    /// arms. Nil for means, whose interval is the normal one.
    public var scoreInterval: ShareDifference?
    /// The arm's share, for a difference of shares: with the difference, both shares, for the pooled test.
    public var armShare: Double?

    /// Standard error of the difference of two independent means.
    public var standardError: Double {
        (armVariance / Double(armUsers) + againstVariance / Double(againstUsers)).squareRoot()
    }
    public var lower: Double { scoreInterval?.low ?? difference - 1.959_964 * standardError }
    public var upper: Double { scoreInterval?.high ?? difference + 1.959_964 * standardError }
    /// The z of no difference: for shares the two-sample test's, its variance pooled under no difference
    /// (an arm at 0 or 1 has no spread of its own, but the two together do); for means the difference over
    /// its standard error.
    public var z: Double {
        if scoreInterval != nil, let p1 = armShare {
            let (n1, n2) = (Double(armUsers), Double(againstUsers))
            let pooled = (p1 * n1 + (p1 - difference) * n2) / (n1 + n2)
            let se = (pooled * (1 - pooled) * (1 / n1 + 1 / n2)).squareRoot()
            return se > 0 ? difference / se : 0
        }
        return standardError > 0 ? difference / standardError : 0
    }
    /// Two-sided p-value of the z-test of no difference.
    public var pValue: Double { erfc(abs(z) / 2.0.squareRoot()) }
}

/// A live test read against the simulation: is the split sound, does the model predict each arm, what
/// the arms' differences say under the scenario's decision rule.
public struct Readout: Sendable {
    public let sampleRatio: SampleRatioCheck
    public let predictions: ArmPredictions
    public let rule: DecisionRule
    public let comparisons: [ObservedComparison]
    /// Why no arm could be compared, when none was.
    public let comparisonNote: String?

    public static func read(
        scenario: Scenario, recorded: RecordedLogs = RecordedLogs(), results: ExperimentResults, draws: Int,
        options: Calibration.Options
    ) throws -> Readout {
        let predictions = try ArmPredictions.predict(
            scenario: scenario, recorded: recorded, results: results, draws: draws, options: options)
        let rule = scenario.effectiveDecision
        let (comparisons, note) = compare(results, rule: rule, baseline: scenario.baseline, variances: predictions.perUserVariance)
        return Readout(sampleRatio: SampleRatioCheck(results), predictions: predictions, rule: rule,
                       comparisons: comparisons, comparisonNote: note)
    }

    /// Every configuration arm against the baseline when the results have it, the holdout otherwise.
    static func compare(
        _ results: ExperimentResults, rule: DecisionRule, baseline: String?, variances: [String: [String: Double]]
    ) -> ([ObservedComparison], String?) {
        let holdout = results.arms.first { $0.label == "holdout" }
        guard let reference = results.arms.first(where: { $0.label == baseline && $0.label != "holdout" }) ?? holdout else {
            return ([], "no arm to compare with: the results have neither the baseline nor a holdout")
        }
        guard rate(reference, rule.objective, variances) != nil else {
            return ([], "the results do not measure \(rule.objective.title) (\(rule.objective.rawValue))")
        }
        let arms = results.arms.filter { $0.label != "holdout" && $0.label != reference.label }
        if arms.isEmpty { return ([], "no arm besides \(reference.label) to compare") }
        let compared = arms.compactMap { a -> ObservedComparison? in
            guard let x = rate(a, rule.objective, variances), let y = rate(reference, rule.objective, variances) else { return nil }
            return judge(a, against: reference, x: x, y: y, rule: rule, holdout: holdout, variances: variances)
        }
        return (compared, compared.isEmpty ? "the results do not measure \(rule.objective.rawValue) for the arms" : nil)
    }

    /// The call on arm `a` against `reference` whose objective rates (and per-user variances) are `x` and `y`.
    static func judge(
        _ a: ExperimentResults.Arm, against reference: ExperimentResults.Arm, x: (Double, Double), y: (Double, Double),
        rule: DecisionRule, holdout: ExperimentResults.Arm?, variances: [String: [String: Double]]
    ) -> ObservedComparison {
        let shares = shareCounts(a, rule.objective).flatMap { c in shareCounts(reference, rule.objective).map { (c, $0) } }
        func make(_ call: ObservedComparison.Call, _ reason: String) -> ObservedComparison {
            ObservedComparison(arm: a.label, against: reference.label, measure: rule.objective, difference: x.0 - y.0,
                               armVariance: x.1, againstVariance: y.1, armUsers: a.users, againstUsers: reference.users,
                               call: call, reason: reason,
                               scoreInterval: shares.flatMap { ShareDifference($0.0, of: a.users, minus: $0.1, of: reference.users) },
                               armShare: shares.map { Double($0.0) / Double(max(a.users, 1)) })
        }
        var unmeasured: [String] = []
        // Constraints whose limit the arm's 95% interval crosses: the test cannot tell which side it is on.
        var close: [String] = []
        for (measure, bound) in rule.orderedConstraints {
            guard let (v, low, high) = interval(a, measure, holdout: holdout, variances) else {
                unmeasured.append(measure.rawValue)
                continue
            }
            // A rate in percent, as the rule's limit is written ("opt-out rate ≤ 5.0%").
            let shown = measure.isFraction
                ? "its \(measure.title) of \(String(format: "%.2f%%", v * 100)) (95% interval \(String(format: "%.2f", low * 100))–"
                    + "\(String(format: "%.2f%%", high * 100)))"
                : "its \(measure.title) of \(String(format: "%.4g", v)) (95% interval \(String(format: "%.4g", low))–"
                    + "\(String(format: "%.4g", high)))"
            let crosses = bound.isCrossed(low: low, high: high)
            if !bound.admits(v) && !crosses { return make(.dontShip, shown + " breaks the constraint") }
            if crosses { close.append(shown + (bound.admits(v) ? " may break the constraint" : " may meet the constraint")) }
        }
        let probe = make(.inconclusive, "")
        let (low, high) = rule.objective.higherIsBetter ? (probe.lower, probe.upper) : (-probe.upper, -probe.lower)
        let m = rule.objective.hasPairedDifference ? rule.minimumDifference : 0
        let shown = String(format: "%g", m)
        let unchecked = unmeasured.isEmpty ? "" : " (not measured, so not checked: \(unmeasured.joined(separator: ", ")))"
        if high < m {
            return make(.dontShip, "the gain's 95% interval lies below the minimum difference of \(shown)")
        }
        if !close.isEmpty {
            return make(.inconclusive, close.joined(separator: "; ") + ": too close to the limit to call; a larger test could tell")
        }
        if low > m {
            return make(.ship, "the gain's 95% interval lies above the minimum difference of \(shown)" + unchecked)
        }
        return make(.inconclusive, "the gain's 95% interval holds the minimum difference of \(shown): a larger test could tell")
    }

    /// An arm's value of `measure` as a constraint reads it, with its 95% interval: a lift is the arm's
    /// rate above the holdout's, the two arms independent samples.
    static func interval(_ a: ExperimentResults.Arm, _ measure: DecisionMeasure, holdout: ExperimentResults.Arm?,
                         _ variances: [String: [String: Double]]) -> (value: Double, low: Double, high: Double)? {
        guard let v = value(a, measure, holdout: holdout, variances), let r = rate(a, measure, variances) else { return nil }
        // A share's interval by the score method, which keeps a width at 0 and 1; a lift of shares by Newcombe's.
        if let count = shareCounts(a, measure) {
            switch measure {
            case .liftD7, .liftD30:
                guard let h = holdout, let base = shareCounts(h, measure),
                      let d = ShareDifference(count, of: a.users, minus: base, of: h.users) else { return nil }
                return (v, d.low, d.high)
            default:
                guard let w = Proportion(Int64(count), of: Int64(a.users)).wilson(z: 1.959_964) else { return nil }
                return (v, w.low, w.high)
            }
        }
        var variance = r.1 / Double(a.users)
        switch measure {
        case .opensLiftPerUser, .liftD7, .liftD30:
            guard let h = holdout, let base = rate(h, measure, variances) else { return nil }
            variance += base.1 / Double(h.users)
        default:
            break
        }
        let half = 1.959_964 * variance.squareRoot()
        return (v, v - half, v + half)
    }

    /// The count of users behind an arm's share `measure` (opt-outs, retained on day 7 or 30); nil for
    /// a measure that is a mean per user, or that the results do not give.
    static func shareCounts(_ a: ExperimentResults.Arm, _ measure: DecisionMeasure) -> Int? {
        switch measure {
        case .optOutRate: return a.optOuts
        case .liftD7, .retentionD7: return a.retainedD7
        case .liftD30, .retentionD30: return a.retainedD30
        default: return nil
        }
    }

    /// An arm's rate for `measure`, per user, with its per-user variance: a share's from the binomial, a
    /// count's from the simulated users of the arm. Nil when the results do not measure it.
    static func rate(_ a: ExperimentResults.Arm, _ measure: DecisionMeasure, _ variances: [String: [String: Double]])
        -> (Double, Double)? {
        let n = Double(a.users)
        func share(_ count: Int?) -> (Double, Double)? {
            guard let c = count else { return nil }
            let p = Double(c) / n
            return (p, p * (1 - p))
        }
        func perUser(_ count: Int, _ name: String) -> (Double, Double)? {
            variances[a.label]?[name].map { (Double(count) / n, max($0, 0)) }
        }
        switch measure {
        case .opensLiftPerUser: return perUser(a.opens, "opens")
        case .deliveredPerUser: return perUser(a.delivered, "delivered")
        case .optOutRate: return share(a.optOuts)
        case .liftD7, .retentionD7: return share(a.retainedD7)
        case .liftD30, .retentionD30: return share(a.retainedD30)
        case .deliveredPerExtraOpen, .triggerRate, .responseRate: return nil
        }
    }

    /// An arm's value of `measure` as a constraint reads it: a lift is the arm's rate above the holdout's.
    static func value(_ a: ExperimentResults.Arm, _ measure: DecisionMeasure, holdout: ExperimentResults.Arm?,
                      _ variances: [String: [String: Double]]) -> Double? {
        guard let r = rate(a, measure, variances) else { return nil }
        switch measure {
        case .opensLiftPerUser, .liftD7, .liftD30:
            guard let h = holdout, let base = rate(h, measure, variances) else { return nil }
            return r.0 - base.0
        default:
            return r.0
        }
    }
}

/// The difference of two independent shares, x₁/n₁ − x₂/n₂, with its 95% interval by Newcombe's hybrid
/// score method (Newcombe 1998, "Interval estimation for the difference between independent
/// proportions", method 10): each share's Wilson interval (l, u), then
/// d − √((p₁ − l₁)² + (u₂ − p₂)²) to d + √((u₁ − p₁)² + (p₂ − l₂)²).
public struct ShareDifference: Sendable, Equatable {
    public let value: Double
    public let low: Double
    public let high: Double

    public init?(_ x1: Int, of n1: Int, minus x2: Int, of n2: Int, z: Double = 1.959_964) {
        guard n1 > 0, n2 > 0, let w1 = Proportion(Int64(x1), of: Int64(n1)).wilson(z: z),
              let w2 = Proportion(Int64(x2), of: Int64(n2)).wilson(z: z) else { return nil }
        let p1 = Double(x1) / Double(n1), p2 = Double(x2) / Double(n2)
        value = p1 - p2
        low = value - ((p1 - w1.low) * (p1 - w1.low) + (w2.high - p2) * (w2.high - p2)).squareRoot()
        high = value + ((w1.high - p1) * (w1.high - p1) + (p2 - w2.low) * (p2 - w2.low)).squareRoot()
    }
}
