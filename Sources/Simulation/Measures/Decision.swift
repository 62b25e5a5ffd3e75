/// A constraint of the decision rule and the configurations it rules out.
public struct ConstraintCheck: Sendable {
    public let measure: DecisionMeasure
    public let bound: DecisionBound
    /// Configurations (indices) whose estimate lies outside the bound, or that have none.
    public let excluded: [Int]
    /// The constraint rules out a configuration that would otherwise be recommended instead.
    public let binds: Bool
}

/// What the decision rule makes of a run.
public struct DecisionOutcome: Sendable {
    public let rule: DecisionRule
    /// The configuration compared with first: the scenario's `baseline`, or 0 (the holdout).
    public let baseline: Int
    /// Every configuration, best first by the objective, whether admissible or not.
    public let ranked: [Int]
    /// The configurations that meet every constraint, best first by the objective.
    public let admissible: [Int]
    /// The best admissible configuration; nil when none is admissible.
    public var recommended: Int? { admissible.first }
    public var runnerUp: Int? { admissible.dropFirst().first }
    public let constraints: [ConstraintCheck]
    /// The paired measure that carries the objective's comparison.
    public let comparedMeasure: PairMeasure
    /// The recommended configuration against the baseline and the runner-up, every paired measure.
    public let versusBaseline: [PairwiseComparison]
    public let versusRunnerUp: [PairwiseComparison]

    /// Whether the recommended configuration and the runner-up differ clearly on the compared measure.
    public var topTwoToldApart: Bool? {
        guard runnerUp != nil, let c = versusRunnerUp.first(where: { $0.measure == comparedMeasure }) else { return nil }
        return !c.includesZero
    }
}

extension DecisionMeasure {
    /// The paired comparison that speaks for this measure (opens per user where none is direct).
    public var pairMeasure: PairMeasure {
        switch self {
        case .liftD7, .retentionD7: return .retentionD7
        case .liftD30, .retentionD30: return .retentionD30
        case .optOutRate: return .optOutRate
        case .deliveredPerUser: return .deliveredPerUser
        default: return .opensPerUser
        }
    }
}

extension ConfigurationResult {
    /// The estimate of a decision measure, with its interval where one is known.
    public func estimate(_ m: DecisionMeasure) -> Estimate? {
        let x = metrics
        switch m {
        case .opensLiftPerUser: return x.opensLiftPerUser ?? (isHoldout ? Estimate(value: 0, low: 0, high: 0) : nil)
        case .liftD7: return x.liftD7 ?? (isHoldout ? Estimate(value: 0, low: 0, high: 0) : nil)
        case .liftD30: return x.liftD30 ?? (isHoldout ? Estimate(value: 0, low: 0, high: 0) : nil)
        case .retentionD7: return x.retentionD7.estimate
        case .retentionD30: return x.retentionD30.estimate
        case .optOutRate: return x.optOutRate.estimate
        case .triggerRate: return x.triggerRate.estimate
        case .responseRate: return x.responseRate.estimate
        case .deliveredPerUser: return x.deliveredPerUser
        case .deliveredPerExtraOpen:
            return Estimate.deliveredPerExtraOpen(x.deliveredPerIncrementalOpen, delivered: x.delivered, users: x.users,
                                                  lift: x.opensLiftPerUser)
        }
    }
}

extension RunResults {
    static func decide(rule: DecisionRule, baseline: Int, all: [ConfigurationResult], sums: UserSums?,
                       replay: ReplayClustering? = nil) -> DecisionOutcome {
        let candidates = all.dropFirst().map(\.index)
        func value(_ i: Int, _ m: DecisionMeasure) -> Double? { all[i].estimate(m)?.value }
        func better(_ a: Int, _ b: Int) -> Bool {
            let o = rule.objective
            let worst = o.higherIsBetter ? -Double.infinity : Double.infinity
            let x = value(a, o) ?? worst, y = value(b, o) ?? worst
            if x != y { return o.higherIsBetter ? x > y : x < y }
            return a < b
        }
        let ranked = candidates.sorted(by: better)
        func admits(_ i: Int, _ m: DecisionMeasure, _ b: DecisionBound) -> Bool { value(i, m).map(b.admits) ?? false }
        let admissible = ranked.filter { i in rule.orderedConstraints.allSatisfy { admits(i, $0.measure, $0.bound) } }
        let best = admissible.first
        let checks = rule.orderedConstraints.map { m, b in
            let excluded = candidates.filter { !admits($0, m, b) }
            // Binding: it rules out a configuration better than the one recommended.
            let binds = excluded.contains { e in best.map { better(e, $0) } ?? true }
            return ConstraintCheck(measure: m, bound: b, excluded: excluded, binds: binds)
        }
        let users = all[0].metrics.users
        func versus(_ other: Int?) -> [PairwiseComparison] {
            guard let best, let other, let sums, best != other else { return [] }
            return PairwiseComparison.all(best, other, sums: sums, users: users, tally: all[best].tally, replay: replay)
        }
        return DecisionOutcome(
            rule: rule, baseline: baseline, ranked: ranked, admissible: admissible, constraints: checks,
            comparedMeasure: rule.objective.pairMeasure, versusBaseline: versus(baseline),
            versusRunnerUp: versus(admissible.dropFirst().first))
    }
}
