import ReminderEngine

/// A whole-number range, both ends included.
public struct TuneRange: Codable, Equatable, Sendable {
    public var min: Int
    public var max: Int

    public init(min: Int, max: Int) {
        (self.min, self.max) = (min, max)
    }
}

/// The reminder configurations `remindersim tune` may choose from: every sequence of periods whose
/// length and values lie in the ranges, each wrapping or not, with messages in order or at random;
/// inactivity sequences; and mixes of one reminder and a sequence.
public struct TuneSpace: Encodable, Equatable, Sendable {
    /// The values a period may take, in `unit`s; nil: no `timePeriods` list is searched.
    public var periods: TuneRange?
    public var unit: PeriodUnit
    /// How many periods a sequence has.
    public var sequenceLength: TuneRange
    /// `circularTimePeriod` choices.
    public var circular: [Bool]
    /// `randomMessage` choices; nil: the baseline's.
    public var randomMessage: [Bool]?
    /// The messages every candidate shows; nil: the baseline's first reminder's.
    public var messages: [String]?
    /// Delivery policy choices; nil: the baseline's.
    public var delivery: [DeliveryPolicy]?
    /// Inactivity sequences to search; nil: none.
    public var sequences: TuneSequences?
    /// Mixes of one reminder and a sequence to search; nil: none.
    public var mix: TuneMix?

    public init(periods: TuneRange?, unit: PeriodUnit = .days, sequenceLength: TuneRange = TuneRange(min: 1, max: 1),
                circular: [Bool] = [false], randomMessage: [Bool]? = nil, messages: [String]? = nil,
                delivery: [DeliveryPolicy]? = nil, sequences: TuneSequences? = nil, mix: TuneMix? = nil) {
        (self.periods, self.unit, self.sequenceLength) = (periods, unit, sequenceLength)
        (self.circular, self.randomMessage, self.messages) = (circular, randomMessage, messages)
        (self.delivery, self.sequences, self.mix) = (delivery, sequences, mix)
    }

    /// Candidates the space allows before equivalent `timePeriods` lists are merged (saturating).
    public var rawCount: Int {
        let (total, overflow) = timePeriodsRawCount.addingReportingOverflow(sequenceAndMixCount)
        return overflow ? Int.max : total
    }

    /// `timePeriods` lists the ranges allow before equivalent ones are merged (saturating).
    var timePeriodsRawCount: Int {
        guard let periods else { return 0 }
        let values = periods.max - periods.min + 1
        guard values > 0, sequenceLength.max >= sequenceLength.min else { return 0 }
        var total = 0, power = 1
        for length in 1...sequenceLength.max {
            let (p, overflow) = power.multipliedReportingOverflow(by: values)
            if overflow { return Int.max }
            power = p
            if length >= sequenceLength.min {
                let (t, o) = total.addingReportingOverflow(power)
                if o { return Int.max }
                total = t
            }
        }
        let choices = max(1, circular.count) * max(1, randomMessage?.count ?? 1) * max(1, delivery?.count ?? 1)
        let (withChoices, o) = total.multipliedReportingOverflow(by: choices)
        return o ? Int.max : withChoices
    }
}

/// The `tune` block of a scenario: what to search, for which objective, under which constraints.
public struct TuneSpec: Encodable, Equatable, Sendable {
    /// The label of the configuration shipped today; nil: the scenario's `baseline`, else its first configuration.
    public var baseline: String?
    public var rule: DecisionRule
    public var space: TuneSpace

    public init(baseline: String? = nil, rule: DecisionRule, space: TuneSpace) {
        (self.baseline, self.rule, self.space) = (baseline, rule, space)
    }

    /// More candidates than this is refused whatever the budget: the first stage alone would hold
    /// hundreds of thousands of configurations.
    public static let maximumCandidates = 50_000

    enum CodingKeys: String, CodingKey { case baseline, objective, constraints, minimumDifference, space }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(baseline, forKey: .baseline)
        try c.encode(rule.objective, forKey: .objective)
        try c.encode(Dictionary(uniqueKeysWithValues: rule.constraints.map { ($0.key.rawValue, $0.value) }), forKey: .constraints)
        if rule.minimumDifference != 0 { try c.encode(rule.minimumDifference, forKey: .minimumDifference) }
        try c.encode(space, forKey: .space)
    }
}

extension TuneSpace {
    /// The candidates in a fixed order: shorter sequences first, then by values, wrap and message
    /// choice. A candidate that behaves exactly like one already listed is left out: a sequence of
    /// one repeated value is that value alone, and a sequence that does not wrap stays on its last
    /// period, so repeating the last value changes nothing.
    public func candidates(baseline: ConfigurationSpec) -> [ConfigurationSpec] {
        guard let periods, periods.min <= periods.max else { return [] }
        let c = choices(baseline: baseline)
        let (texts, randoms, policies) = (c.texts, c.randoms, c.policies)
        let values = Array(periods.min...periods.max)
        var seen = Set<String>()
        var out: [ConfigurationSpec] = []
        let suffix = unit.labelSuffix
        guard sequenceLength.min >= 1, sequenceLength.min <= sequenceLength.max, !values.isEmpty else { return [] }
        for length in sequenceLength.min...sequenceLength.max {
            var index = Array(repeating: 0, count: length)
            while true {
                let sequence = index.map { values[$0] }
                for wraps in circular {
                    for random in randoms {
                        for (p, policy) in policies.enumerated() {
                            let (canonical, canonicalWraps) = Self.canonical(sequence, circular: wraps)
                            let form = canonical.count >= sequenceLength.min ? (canonical, canonicalWraps) : (sequence, wraps)
                            let key = form.0.map(String.init).joined(separator: "/") + (form.1 ? "c" : "") + (random ? "r" : "")
                                + " \(p)"
                            guard seen.insert(key).inserted else { continue }
                            var parts = [sequence.map(String.init).joined(separator: "/") + suffix]
                            if sequence.count > 1 && circular.count > 1 { parts.append(wraps ? "circular" : "stay") }
                            if randoms.count > 1 && texts.count > 1 { parts.append(random ? "random" : "in order") }
                            if policies.count > 1 { parts.append("delivery \(p + 1)") }
                            var spec = ConfigurationSpec(
                                label: parts.joined(separator: " "), mode: .documented,
                                reminders: [ReminderSpec(messages: texts, timePeriods: sequence, unit: unit, randomMessage: random,
                                                         circularTimePeriod: wraps)],
                                cronRules: baseline.cronRules)
                            spec.delivery = policy
                            out.append(spec)
                        }
                    }
                }
                // The next sequence, the last position counting fastest.
                var k = length - 1
                while k >= 0 && index[k] == values.count - 1 { index[k] = 0; k -= 1 }
                if k < 0 { break }
                index[k] += 1
            }
        }
        return out
    }

    /// The shortest sequence that behaves the same, and whether it wraps.
    static func canonical(_ s: [Int], circular: Bool) -> ([Int], Bool) {
        if Set(s).count == 1 { return ([s[0]], false) }
        guard !circular else { return (s, true) }
        var t = s
        while t.count > 1 && t[t.count - 1] == t[t.count - 2] { t.removeLast() }
        return (t, false)
    }
}

extension PeriodUnit {
    /// The suffix a generated label gives a period in this unit, e.g. `7d`.
    public var labelSuffix: String {
        switch self {
        case .days: return "d"
        case .hours: return "h"
        case .minutes: return "min"
        case .seconds: return "s"
        }
    }
}

extension Scenario {
    /// The configuration a tune compares with: the tune block's baseline, the scenario's, or the first.
    public var tuneBaseline: ConfigurationSpec? {
        let all = expandedConfigurations
        let label = tune?.baseline ?? baseline
        if let label { return all.first { $0.label == label } }
        return all.first
    }
}

extension JSONFieldReader {
    mutating func tuneSpec(_ json: JSON, at path: String) -> TuneSpec? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let baseline = optionalField(o, "baseline", Self.name)
        // The objective and constraints read exactly as the decision rule's.
        var ruleMembers: [(key: String, value: JSON)] = []
        if let objective = o["objective"] { ruleMembers.append(("objective", objective)) }
        if let constraints = o["constraints"] { ruleMembers.append(("constraints", constraints)) }
        if let minimum = o["minimumDifference"] { ruleMembers.append(("minimumDifference", minimum)) }
        let rule = decisionRule(.object(ruleMembers), at: path)
        let space = field(o, "space") { r, j, p in r.tuneSpace(j, at: p) }
        guard let baseline, let rule, let space else { return nil }
        return TuneSpec(baseline: baseline, rule: rule, space: space)
    }

    mutating func tuneRange(_ json: JSON, at path: String, _ check: NumberCheck) -> TuneRange? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let low = field(o, "min", Self.integer(check))
        let high = field(o, "max", Self.integer(check))
        guard let low, let high else { return nil }
        if low > high { fail(path, "min \(low) is above max \(high)"); return nil }
        return TuneRange(min: low, max: high)
    }

    mutating func tuneSpace(_ json: JSON, at path: String) -> TuneSpace? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let periods = optionalField(o, "periods") { r, j, p in r.tuneRange(j, at: p, .positive) }
        let unit = field(o, "unit", default: PeriodUnit.days) { r, j, p in r.enumeration(j, at: p, as: PeriodUnit.self) }
        let length = field(o, "sequenceLength", default: TuneRange(min: 1, max: 1)) { r, j, p in
            r.tuneRange(j, at: p, .positiveUpTo(Double(ConfigurationSpec.maximumPeriods)))
        }
        let circular = field(o, "circular", default: [false]) { r, j, p in r.distinctBools(j, at: p) }
        let random = optionalField(o, "randomMessage") { r, j, p in r.distinctBools(j, at: p) }
        let messages = optionalField(o, "messages") { r, j, p -> [String]? in
            guard let list = r.list(j, at: p, nonEmpty: true, Self.message) else { return nil }
            guard r.relaxed || list.count <= ConfigurationSpec.maximumMessagesPerReminder else {
                r.fail(p, "at most \(ConfigurationSpec.maximumMessagesPerReminder) messages per reminder, got \(list.count)")
                return nil
            }
            // As a configuration's messages are checked, here rather than in every candidate made of them.
            let blank = list.indices.filter { list[$0].allSatisfy(\.isWhitespace) }
            for k in blank { r.fail("\(p)[\(k)]", list[k].isEmpty ? "must not be empty" : Scenario.blank) }
            return blank.isEmpty ? list : nil
        }
        let delivery = optionalField(o, "delivery") { r, j, p -> [DeliveryPolicy]? in
            guard let list = r.list(j, at: p, nonEmpty: true, { r, j, p in r.delivery(j, at: p) }) else { return nil }
            // Each policy is a choice: the same one twice would only make twin candidates.
            for k in list.indices {
                if let first = list[..<k].firstIndex(of: list[k]) {
                    r.fail("\(p)[\(k)]", "the same policy as \(p)[\(first)]; list each choice once")
                    return nil
                }
            }
            return list
        }
        let sequences = optionalField(o, "sequences") { r, j, p in r.tuneSequences(j, at: p) }
        let mix = optionalField(o, "mix") { r, j, p in r.tuneMix(j, at: p) }
        guard let periods, let unit, let length, let circular, let random, let messages, let delivery, let sequences,
              let mix else { return nil }
        if periods == nil && sequences == nil { fail(path, "needs \"periods\", \"sequences\" or both"); return nil }
        if mix != nil && sequences == nil { fail(o.path("mix"), "mixes a reminder with each sequence: give \"sequences\" too"); return nil }
        if sequences != nil && unit != .days {
            fail(o.path("sequences"), "inactivity sequences count days; they need \"unit\": \"days\", got \"\(unit.rawValue)\"")
            return nil
        }
        return TuneSpace(periods: periods, unit: unit, sequenceLength: length, circular: circular, randomMessage: random,
                         messages: messages, delivery: delivery, sequences: sequences, mix: mix)
    }

    mutating func distinctBools(_ json: JSON, at path: String) -> [Bool]? {
        guard let list = list(json, at: path, nonEmpty: true, Self.bool) else { return nil }
        if Set(list).count != list.count { fail(path, "lists a choice twice: \(list)"); return nil }
        return list
    }
}

extension ConfigurationSpec {
    /// The longest period sequence a tune space may ask for.
    public static let maximumPeriods = 16
}

extension Scenario {
    /// Problems of the `tune` block that involve the rest of the scenario.
    public func tuneIssues() -> [ScenarioIssue] {
        tune.map { Self.tuneIssues($0, configurations: expandedConfigurations, baseline: baseline) } ?? []
    }

    /// Problems of `tune` with these configurations (listed and generated) and scenario baseline.
    static func tuneIssues(_ tune: TuneSpec, configurations all: [ConfigurationSpec], baseline: String?) -> [ScenarioIssue] {
        var issues: [ScenarioIssue] = []
        if let label = tune.baseline, !all.contains(where: { $0.label == label }) {
            issues.append(ScenarioIssue(path: "tune.baseline", reason: "\(ScenarioIssue.quote(label)) is the label of no configuration"))
        }
        let base = (tune.baseline ?? baseline).map { label in all.first { $0.label == label } } ?? all.first
        if tune.space.messages == nil, let base, base.reminders.isEmpty {
            issues.append(ScenarioIssue(
                path: "tune.space.messages",
                reason: "the baseline \(ScenarioIssue.quote(base.label)) has no reminder to take messages from; list the messages"))
        }
        return issues
    }
}
