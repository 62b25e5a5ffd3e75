/// One configuration's standing over the draws of the response model.
public struct DrawStanding: Sendable {
    /// The configuration's position in the run's tables.
    public let index: Int
    /// Share of draws in which it is the best configuration that meets every constraint.
    public let probabilityBest: Double
    /// Share of draws in which it meets every constraint.
    public let probabilityFeasible: Double
    /// The exact (Clopper–Pearson) 90% interval of `probabilityFeasible` over the draws, their Monte
    /// Carlo error: where the share under many more draws, on the same users, may lie. Each side is a
    /// one-sided test at 5%, so 32 feasible draws of 32 settle a share above 90%, and 31 do not.
    public let probabilityFeasibleInterval: (low: Double, high: Double)
    /// The level of that interval.
    public static let intervalLevel = 0.9
    /// Whether that interval holds the feasibility threshold: more draws could change whether the rule
    /// may recommend it.
    public var feasibilityUnsettled: Bool {
        probabilityFeasibleInterval.low < UncertainDecision.feasibilityThreshold
            && probabilityFeasibleInterval.high >= UncertainDecision.feasibilityThreshold
    }
    /// Share of draws in which it meets each constraint, in the rule's order.
    public let probabilityMeets: [(measure: DecisionMeasure, probability: Double)]
    /// The objective's mean over the draws; nil unless every draw estimates it (a configuration that
    /// gains nothing in a draw has no notifications per extra open there, and no mean over all draws).
    public let expectedObjective: Double?
    /// The objective given up by shipping it rather than the draw's best feasible configuration, on
    /// average over the draws in which it meets every constraint itself (so never below 0: a gain made
    /// by breaking a constraint is none the rule allows); nil when it meets them in no draw, or some such
    /// draw does not estimate it. Read beside `probabilityFeasible`, the share of draws it is over.
    public let expectedLoss: Double?
}

/// The decision under the response model's uncertainty: the scenario's configurations simulated under
/// K draws of the response parameters, on the same users at every draw, and what each draw decides.
public struct UncertainDecision: Sendable {
    public let rule: DecisionRule
    public let draws: Int
    /// Every configuration but the holdout, in the run's order.
    public let standings: [DrawStanding]
    /// Share of draws in which no configuration meets every constraint.
    public let noneFeasible: Double
    /// The best expected objective (highest, or lowest for a lower-is-better one) among the
    /// configurations that meet every constraint with probability at least `feasibilityThreshold` and
    /// have an expected objective; nil when none does.
    public let recommended: Int?

    /// The chance of meeting every constraint a recommendation needs.
    public static let feasibilityThreshold = 0.9
    /// The same in whole percent, as the texts write it.
    public static var feasibilityPercent: Int { Int((feasibilityThreshold * 100).rounded()) }
    /// Draws when a scenario gives an uncertainty and `--model-draws` is not given.
    public static let defaultDraws = 32
    /// The most draws a run may ask for: each is a whole simulation.
    public static let maximumDraws = 1_000

    /// The recommendation rule in words, for the reports.
    public var ruleText: String {
        "the \(rule.objective.higherIsBetter ? "highest" : "lowest") expected \(rule.objective.title) among the configurations that meet every constraint in at least "
            + "\(Self.feasibilityPercent)% of the draws"
    }

    /// Summarises `draws`, each the holdout then every configuration of one run (the same
    /// configurations in the same order at every draw), under `rule`.
    public init(rule: DecisionRule, baseline: Int, draws: [[ConfigurationResult]]) {
        self.rule = rule
        self.draws = draws.count
        let o = rule.objective
        let count = draws.first?.count ?? 0
        let k = Double(max(draws.count, 1))
        let zero = [Int](repeating: 0, count: count)
        var feasible = zero
        var meets = [[Int]](repeating: [Int](repeating: 0, count: rule.orderedConstraints.count), count: count)
        var objective = [Double](repeating: 0, count: count), loss = objective, estimated = zero, lost = zero
        // Draws won, shared equally by configurations whose objectives tie exactly at the top.
        var wins = objective
        var none = 0
        for all in draws {
            let decision = RunResults.decide(rule: rule, baseline: baseline, all: all, sums: nil)
            if let b = decision.recommended {
                let top = all[b].estimate(o)?.value
                let tied = decision.admissible.filter { $0 == b || (top != nil && all[$0].estimate(o)?.value == top) }
                for i in tied { wins[i] += 1 / Double(tied.count) }
            } else {
                none += 1
            }
            for i in decision.admissible { feasible[i] += 1 }
            for i in 1..<all.count {
                for (j, c) in rule.orderedConstraints.enumerated() where all[i].estimate(c.measure).map({ c.bound.admits($0.value) }) ?? false {
                    meets[i][j] += 1
                }
            }
            // The draw's best feasible configuration: the loss of each configuration feasible there.
            let topValue = decision.recommended.flatMap { all[$0].estimate(o)?.value }
            let admissible = Set(decision.admissible)
            for i in 1..<all.count {
                let v = all[i].estimate(o)?.value
                if let v {
                    estimated[i] += 1
                    objective[i] += v
                }
                guard admissible.contains(i) else { continue }
                if let v, let t = topValue {
                    loss[i] += max(0, o.higherIsBetter ? t - v : v - t)
                    lost[i] += 1
                }
            }
        }
        standings = (1..<max(count, 1)).map { i in
            DrawStanding(
                index: i, probabilityBest: wins[i] / k, probabilityFeasible: Double(feasible[i]) / k,
                probabilityFeasibleInterval: Proportion(Int64(feasible[i]), of: Int64(draws.count))
                    .clopperPearson(level: DrawStanding.intervalLevel) ?? (0, 1),
                probabilityMeets: rule.orderedConstraints.enumerated().map { j, c in (c.measure, Double(meets[i][j]) / k) },
                expectedObjective: estimated[i] == draws.count && estimated[i] > 0 ? objective[i] / Double(estimated[i]) : nil,
                expectedLoss: lost[i] == feasible[i] && lost[i] > 0 ? loss[i] / Double(lost[i]) : nil)
        }
        noneFeasible = Double(none) / k
        let eligible = standings.filter { $0.probabilityFeasible >= Self.feasibilityThreshold && $0.expectedObjective != nil }
        recommended = eligible.min { a, b in
            let x = a.expectedObjective ?? 0, y = b.expectedObjective ?? 0
            if x != y { return o.higherIsBetter ? x > y : x < y }
            return a.index < b.index
        }?.index
    }

    /// The standing of configuration `index` (its position in the run's tables), if it has one.
    public func standing(_ index: Int) -> DrawStanding? {
        index >= 1 && index <= standings.count ? standings[index - 1] : nil
    }
}

/// The recommendation against the runner-up on other users: the two (with the holdout and the
/// baseline) simulated again with another seed.
public struct DecisionRecheck: Sendable {
    public let seed: UInt64
    /// The other users simulated: the run's, up to `maximumUsers`.
    public let users: Int
    public let recommended: Int
    public let runnerUp: Int
    /// The recommendation minus the runner-up on the objective's paired measure, on the other users.
    public let comparison: PairwiseComparison?
    /// Whether the recommendation still meets every constraint, and still ranks above the runner-up
    /// among the configurations that meet them (a runner-up ahead only by breaking a constraint there
    /// does not overtake it); whether the runner-up meets them there.
    public let stillAdmissible: Bool
    public let stillAhead: Bool
    public let runnerUpAdmissible: Bool

    /// The constraints the recommendation and the runner-up miss on the other users, with their
    /// estimates there (nil when there is none), in the rule's order: how far the doubt goes.
    public let missedByRecommended: [ConstraintReading]
    public let missedByRunnerUp: [ConstraintReading]

    /// A constraint of the rule and a configuration's estimate of its measure.
    public struct ConstraintReading: Sendable {
        public let measure: DecisionMeasure
        public let bound: DecisionBound
        public let estimate: Estimate?
    }

    public var survives: Bool { stillAdmissible && stillAhead }

    /// How the call fares on the other users, the one reading the report's sentence and the decision's
    /// CSV file both say in words.
    public enum Outcome: Sendable {
        /// Still ahead of the runner-up, clearly; or, `narrowly`, with a difference whose interval holds zero.
        case survives, survivesNarrowly
        /// No difference there: ahead only by the order the rule breaks ties in.
        case tied
        /// Kept because the runner-up misses a constraint there, whatever it gains on the objective.
        case runnerUpMisses
        /// The recommendation misses a constraint there; or the runner-up, meeting them all, ranks first:
        /// clearly, or, `narrowly`, with a difference whose interval holds zero (the call still fails:
        /// on other users the rule picks the other one).
        case missesConstraint, overtaken, overtakenNarrowly
    }

    public var outcome: Outcome {
        if !stillAdmissible { return .missesConstraint }
        let toldApart = comparison.map { !$0.includesZero } ?? true
        if !stillAhead { return toldApart ? .overtaken : .overtakenNarrowly }
        if !runnerUpAdmissible { return .runnerUpMisses }
        guard let d = comparison?.difference else { return .survives }
        if d.value == 0 { return .tied }
        return toldApart ? .survives : .survivesNarrowly
    }

    /// What the rule picks of the two there: the recommendation when the call survives, else the
    /// runner-up when it meets every constraint there; nil when both miss one.
    public var picksThere: Int? { survives ? recommended : (runnerUpAdmissible ? runnerUp : nil) }

    /// The most users a second look (the re-check, the quick sensitivity runs) simulates: enough to
    /// rank configurations that differ by what matters, and a cost that stays a fraction of a large
    /// run's (each look simulates several configurations again).
    public static let maximumUsers = 20_000

    /// The seed of the re-check: the scenario's with bit 52 flipped, so its users are others.
    public static func seed(for scenario: Scenario) -> UInt64 { scenario.seed ^ (1 << 52) }

    /// The scenario that re-checks `decision`: only the recommendation, the runner-up and the
    /// baseline, on the other users; nil without a runner-up.
    public static func scenario(for scenario: Scenario, decision: DecisionOutcome) -> (Scenario, recommended: Int, runnerUp: Int)? {
        guard let r = decision.recommended, let u = decision.runnerUp else { return nil }
        let specs = scenario.expandedConfigurations
        let keep = Array(Set([r, u, decision.baseline].filter { $0 > 0 })).sorted()
        guard keep.allSatisfy({ $0 <= specs.count }) else { return nil }
        var s = scenario.keeping(keep)
        s.seed = seed(for: scenario)
        s.users = min(s.users, maximumUsers)
        return (s, r, u)
    }

    /// The re-check read from the other users' results; `recommended` and `runnerUp` are positions in
    /// the first run's tables.
    public init(_ results: RunResults, recommended: Int, runnerUp: Int, in first: Scenario) {
        let specs = first.expandedConfigurations
        func position(_ i: Int) -> Int? { results.configurations.first { $0.label == specs[i - 1].label }?.index }
        seed = results.scenario.seed
        users = results.scenario.users
        self.recommended = recommended
        self.runnerUp = runnerUp
        let d = results.decision
        func missed(_ i: Int) -> [ConstraintReading] {
            d.constraints.filter { $0.excluded.contains(i) }.map {
                ConstraintReading(measure: $0.measure, bound: $0.bound, estimate: results.all[i].estimate($0.measure))
            }
        }
        if let a = position(recommended), let b = position(runnerUp) {
            comparison = results.comparison(a, against: b, d.comparedMeasure)
            stillAdmissible = d.admissible.contains(a)
            runnerUpAdmissible = d.admissible.contains(b)
            let order = d.admissible
            stillAhead = (order.firstIndex(of: a) ?? Int.max) < (order.firstIndex(of: b) ?? Int.max)
            (missedByRecommended, missedByRunnerUp) = (missed(a), missed(b))
        } else {
            (comparison, stillAdmissible, stillAhead, runnerUpAdmissible) = (nil, false, false, false)
            (missedByRecommended, missedByRunnerUp) = ([], [])
        }
    }
}

extension Scenario {
    /// The scenario with only some of its configurations (positions in the run's tables, 1 for the
    /// first), listed one by one, and without the message weights of messages none of them sends.
    public func keeping(_ positions: [Int]) -> Scenario {
        let specs = expandedConfigurations
        var s = self
        s.configurations = positions.filter { $0 >= 1 && $0 <= specs.count }.map { specs[$0 - 1] }
        s.grid = nil
        s.tune = nil
        let sent = Set(s.configurations.flatMap { $0.reminders.flatMap(\.messages) })
        s.response.messageWeights = s.response.messageWeights.filter { sent.contains($0.key) }
        return s
    }
}

/// The second looks at a run's decision: the re-check on other users, and either the decision under
/// the response model's draws or, without uncertainty, the quick sensitivity runs; and the simulated
/// live test behind the plan with CUPED.
public struct DecisionSecondLook: Sendable {
    public let recheck: DecisionRecheck?
    public let uncertain: UncertainDecision?
    /// The recommendation of the rule with the response changed: (what changed, recommended label).
    public let sensitivity: [(name: String, recommended: String?)]
    /// The rule's recommendation in the same runs (the same configurations, on the same users) with the
    /// response unchanged: what each change's is read against, since those runs may have fewer users
    /// than the run, whose own call they need not repeat. Nil when none meets the constraints there.
    public let sensitivityUnchanged: String?
    /// The simulated live test on users who already have the app, behind the live-test plan with CUPED.
    public let prePeriod: PrePeriodSimulation?

    public init(recheck: DecisionRecheck?, uncertain: UncertainDecision?, sensitivity: [(name: String, recommended: String?)],
                sensitivityUnchanged: String? = nil, prePeriod: PrePeriodSimulation? = nil) {
        (self.recheck, self.uncertain, self.sensitivity, self.prePeriod) = (recheck, uncertain, sensitivity, prePeriod)
        self.sensitivityUnchanged = sensitivityUnchanged
    }

    /// The name of the sensitivity run with the response unchanged, the others' control.
    public static let unchanged = "unchanged"

    /// How errors name a second look's run: the re-check (`recheck`), a sensitivity run by its change's
    /// name, or the sensitivity runs' control.
    public static func lookName(_ name: String) -> String {
        name == recheck ? "the re-check on other users" : name == unchanged ? "the sensitivity runs' control (the response unchanged)"
            : "the sensitivity run with \(name)"
    }

    /// The name of the re-check on other users among the looks.
    public static let recheck = "re-check"

    /// The response changes of the quick sensitivity check: base response halved and doubled,
    /// opt-outs doubled, as `tune` runs them.
    public static func sensitivityModels(_ r: ResponseModel) -> [(name: String, response: ResponseModel)] {
        var half = r, double = r, optOut = r
        half.baseResponse = r.baseResponse / 2
        double.baseResponse = min(1, r.baseResponse * 2)
        optOut.optOutPerDelivery = min(1, r.optOutPerDelivery * 2)
        return [("base response halved", half), ("base response doubled", double), ("opt-outs doubled", optOut)]
    }
}
