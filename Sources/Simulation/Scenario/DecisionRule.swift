/// A headline measure the decision can optimise or constrain.
public enum DecisionMeasure: String, CaseIterable, Codable, Sendable {
    /// Opens per user above the holdout (paired).
    case opensLiftPerUser
    /// Retention on day 7 / day 30 above the holdout, as a fraction (paired).
    case liftD7, liftD30
    case retentionD7, retentionD30
    /// Share of users who turned notifications off.
    case optOutRate
    /// Notifications delivered per user.
    case deliveredPerUser
    /// Notifications delivered per open gained over the holdout.
    case deliveredPerExtraOpen
    case triggerRate, responseRate

    /// The day after each user's install a retention measure reads (7 or 30); nil for the others.
    public var retentionDay: Int? {
        switch self {
        case .liftD7, .retentionD7: return 7
        case .liftD30, .retentionD30: return 30
        default: return nil
        }
    }

    /// The measure's position among the cases: hashing and comparing it is cheaper than its raw
    /// value (the default for a `String` enum), which a tune's ranking of thousands of candidates
    /// does at every comparison.
    private var ordinal: Int {
        switch self {
        case .opensLiftPerUser: return 0
        case .liftD7: return 1
        case .liftD30: return 2
        case .retentionD7: return 3
        case .retentionD30: return 4
        case .optOutRate: return 5
        case .deliveredPerUser: return 6
        case .deliveredPerExtraOpen: return 7
        case .triggerRate: return 8
        case .responseRate: return 9
        }
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(ordinal) }
    public static func == (a: DecisionMeasure, b: DecisionMeasure) -> Bool { a.ordinal == b.ordinal }

    /// Whether more is better when the measure is the objective.
    public var higherIsBetter: Bool {
        switch self {
        case .optOutRate, .deliveredPerUser, .deliveredPerExtraOpen: return false
        default: return true
        }
    }

    /// The words a report uses for it (the measure's title).
    public var title: String { measure.title }

    /// The values the measure can take, within which a bound must lie to mean anything: a rate is a
    /// share (0 to 1), a lift in retention the difference of two shares (−1 to 1), a count per user or
    /// per extra open is never negative; nil when any number is possible.
    public var possibleValues: ClosedRange<Double>? {
        switch self {
        case .optOutRate, .retentionD7, .retentionD30, .triggerRate, .responseRate: return 0...1
        case .liftD7, .liftD30: return -1...1
        case .deliveredPerUser, .deliveredPerExtraOpen: return 0...Double.greatestFiniteMagnitude
        case .opensLiftPerUser: return nil
        }
    }

    /// A fraction shown as a percentage (or percentage points for lifts).
    public var isFraction: Bool {
        switch self {
        case .opensLiftPerUser, .deliveredPerUser, .deliveredPerExtraOpen: return false
        default: return true
        }
    }
}

/// A bound on one measure: a configuration is acceptable when its estimate lies within it.
public struct DecisionBound: Codable, Equatable, Sendable {
    public var min: Double?
    public var max: Double?

    public init(min: Double? = nil, max: Double? = nil) {
        self.min = min
        self.max = max
    }

    public func admits(_ value: Double) -> Bool {
        (min.map { value >= $0 } ?? true) && (max.map { value <= $0 } ?? true)
    }

    /// Whether a limit lies strictly inside the interval `low…high`: a value there could fall on either
    /// side of it with more users, too close to call.
    public func isCrossed(low: Double, high: Double) -> Bool {
        [min, max].contains { limit in limit.map { low < $0 && $0 < high } ?? false }
    }
}

/// How a run's report picks the configuration to ship: the measure to optimise and the bounds every
/// candidate must respect.
public struct DecisionRule: Encodable, Equatable, Sendable {
    public var objective: DecisionMeasure
    public var constraints: [DecisionMeasure: DecisionBound]
    /// The smallest gain in the objective worth shipping, in the objective's units: a configuration
    /// is clearly better than another only when its paired interval lies above it. 0 by default.
    public var minimumDifference: Double

    public init(objective: DecisionMeasure, constraints: [DecisionMeasure: DecisionBound] = [:], minimumDifference: Double = 0) {
        self.objective = objective
        self.constraints = constraints
        self.minimumDifference = minimumDifference
    }

    /// Used when a scenario states no rule: most extra opens with at most 5% of users opting out.
    public static let defaultRule = DecisionRule(objective: .opensLiftPerUser, constraints: [.optOutRate: DecisionBound(max: 0.05)])

    /// The constraints in a fixed order (the measures' declaration order).
    public var orderedConstraints: [(measure: DecisionMeasure, bound: DecisionBound)] {
        DecisionMeasure.allCases.compactMap { m in constraints[m].map { (m, $0) } }
    }

    enum CodingKeys: String, CodingKey { case objective, constraints, minimumDifference }

    /// The minimum difference is written only when set, so a rule without one reads back the same.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(objective, forKey: .objective)
        try c.encode(Dictionary(uniqueKeysWithValues: constraints.map { ($0.key.rawValue, $0.value) }), forKey: .constraints)
        if minimumDifference != 0 { try c.encode(minimumDifference, forKey: .minimumDifference) }
    }
}

extension Scenario {
    /// The rule the report applies: the scenario's own, or the default.
    public var effectiveDecision: DecisionRule { decision ?? .defaultRule }
}

extension JSONFieldReader {
    mutating func decisionRule(_ json: JSON, at path: String) -> DecisionRule? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let objective = field(o, "objective", default: DecisionRule.defaultRule.objective) { r, j, p in
            r.enumeration(j, at: p, as: DecisionMeasure.self)
        }
        let constraints = field(o, "constraints", default: [:]) { r, j, p in
            r.dictionary(j, at: p, mapping: "a measure to {\"min\": …, \"max\": …}") { r, key, value in
                r.constraint(value, measure: key, at: JSONFieldReader.join(p, key))
            }
        }
        let minimum = field(o, "minimumDifference", default: 0, Self.number(.nonNegative))
        guard let objective, let constraints, let minimum else { return nil }
        if minimum > 0 && !objective.hasPairedDifference {
            fail(o.path("minimumDifference"), "\(objective.rawValue) has no paired difference to hold to a minimum; "
                 + "leave it out or optimise a paired measure")
            return nil
        }
        // A share differs from another by at most 1; a count per user by no more than a scenario's numbers allow.
        let largest = objective.isFraction ? 1.0 : 1e6
        if minimum > largest {
            fail(o.path("minimumDifference"), "must be at most \(objective.isFraction ? "1 (a share, so 100 pp)" : "1000000"), "
                 + "got \(minimum): no difference in \(objective.title) can reach it")
            return nil
        }
        return DecisionRule(objective: objective, constraints: constraints, minimumDifference: minimum)
    }

    /// One entry of `constraints`: a known measure and its bounds.
    private mutating func constraint(_ json: JSON, measure key: String, at path: String) -> (DecisionMeasure, DecisionBound)? {
        guard let measure = DecisionMeasure(rawValue: key) else {
            fail(path, "unknown measure; expected one of \(DecisionMeasure.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
            return nil
        }
        guard let b = object(json, at: path) else { return nil }
        let check = relaxed ? NumberCheck.any : measure.possibleValues.map { NumberCheck.possible($0, measure.rawValue) } ?? .any
        let low = optionalField(b, "min", Self.number(check))
        let high = optionalField(b, "max", Self.number(check))
        finish(b)
        guard let low, let high else { return nil }
        if low == nil && high == nil { fail(path, "needs \"min\", \"max\" or both"); return nil }
        if let low, let high, low > high { fail(path, "min \(low) is above max \(high)"); return nil }
        return (measure, DecisionBound(min: low, max: high))
    }
}
