import CronEngine
import GapFamilies
import RecordedData
import ReminderEngine

/// Everything one run simulates: who the users are, how they answer notifications, and the
/// reminder configurations to compare against a holdout.
///
/// Every default is an assumption to replace with a team's own numbers; `docs/scenario.md`
/// lists them.
public struct Scenario: Encodable, Equatable, Sendable {
    /// The longest run, in days: ten years.
    public static let maximumHorizonDays = 3_650
    /// The largest seed: 2^53 − 1, the largest whole number a JSON reader keeps exactly.
    public static let maximumSeed: UInt64 = 9_007_199_254_740_991
    /// The most users a run may have: 2^50, the most a stored count may hold (far more than any run
    /// could simulate), so that a run's user count is always one its database reads back.
    public static let maximumUsers = 1 << 50

    public var name: String
    public var description: String?
    public var seed: UInt64
    public var users: Int
    public var horizonDays: Int
    /// Calendar date of the first simulated instant (UTC midnight), `YYYY-MM-DD`.
    public var startDate: String
    public var population: Population
    public var response: ResponseModel
    /// Configurations listed one by one.
    public var configurations: [ConfigurationSpec]
    /// Configurations generated as every combination of the listed choices.
    public var grid: GridSpec?
    /// The label of the configuration the others are compared with first ("what we ship today");
    /// nil for the holdout.
    public var baseline: String?
    /// How the report picks a configuration; nil for `DecisionRule.defaultRule`.
    public var decision: DecisionRule?
    /// What `remindersim tune` searches; nil when the scenario has no `tune` block.
    public var tune: TuneSpec?
    /// How the live test of the recommendation is to be run; nil for the defaults.
    public var liveTest: LiveTestSettings? = nil

    public init(
        name: String, description: String? = nil, seed: UInt64, users: Int, horizonDays: Int, startDate: String,
        population: Population, response: ResponseModel, configurations: [ConfigurationSpec], grid: GridSpec? = nil,
        baseline: String? = nil, decision: DecisionRule? = nil, tune: TuneSpec? = nil
    ) {
        (self.name, self.description, self.seed, self.users) = (name, description, seed, users)
        (self.horizonDays, self.startDate, self.population) = (horizonDays, startDate, population)
        (self.response, self.configurations, self.grid) = (response, configurations, grid)
        (self.baseline, self.decision, self.tune) = (baseline, decision, tune)
    }

    /// The configurations a run compares, listed ones first, then the grid's in its order.
    public var expandedConfigurations: [ConfigurationSpec] {
        configurations + (grid?.expanded() ?? [])
    }
}

/// The users: their time zones, when they install, and the segments they fall into.
public struct Population: Encodable, Equatable, Sendable {
    public var utcOffsets: [UTCOffsetShare]
    /// Installs are spread uniformly over this many days from the start date.
    public var installSpreadDays: Double
    public var segments: [Segment]
    /// The platforms users are on, with their notification rules; nil: one platform without rules.
    public var platforms: [PlatformSpec]?
    /// Factors on the organic return intensity by local weekday and hour; nil: flat.
    public var returnPattern: ReturnPattern?

    public static let defaultInstallSpreadDays = 30.0

    /// The groups results are broken down by: the segments, then the platforms (when named).
    public var breakdownGroups: Int { segments.count + (platforms?.count ?? 0) }

    public init(utcOffsets: [UTCOffsetShare] = [UTCOffsetShare(hours: 0, weight: 1)],
                installSpreadDays: Double = Population.defaultInstallSpreadDays, segments: [Segment],
                platforms: [PlatformSpec]? = nil, returnPattern: ReturnPattern? = nil) {
        (self.utcOffsets, self.installSpreadDays, self.segments) = (utcOffsets, installSpreadDays, segments)
        (self.platforms, self.returnPattern) = (platforms, returnPattern)
    }
}

/// Where a share of users lives: at a fixed UTC offset in hours, or in a named time zone of the
/// system's time zone database (`America/New_York`), whose offset follows daylight saving time.
public struct UTCOffsetShare: Encodable, Equatable, Sendable {
    /// The fixed offset; 0 and unused for a named zone.
    public var hours: Double
    public var weight: Double
    /// The zone's identifier, or nil for a fixed offset.
    public var zone: String?

    public init(hours: Double, weight: Double) {
        (self.hours, self.weight, self.zone) = (hours, weight, nil)
    }

    public init(zone: String, weight: Double) {
        (self.hours, self.weight, self.zone) = (0, weight, zone)
    }

    private enum CodingKeys: String, CodingKey { case hours, zone, weight }

    /// `{"hours", "weight"}` or `{"zone", "weight"}`, as a scenario gives them.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if let zone { try c.encode(zone, forKey: .zone) } else { try c.encode(hours, forKey: .hours) }
        try c.encode(weight, forKey: .weight)
    }
}

/// A group of users with one return behaviour.
public struct Segment: Encodable, Equatable, Sendable {
    public var name: String
    /// Relative share of users.
    public var weight: Double
    public var returns: ReturnProcess
    /// Chance that after a session the user never comes back on their own.
    public var dropoutPerSession: Double
    public var sessionLength: SessionLength
    /// An open after at least this long in the background is a cold launch.
    public var coldLaunchAfterMinutes: Double

    public static let defaultDropoutPerSession = 0.0
    public static let defaultColdLaunchAfterMinutes = 30.0

    public init(
        name: String, weight: Double = 1, returns: ReturnProcess,
        dropoutPerSession: Double = Segment.defaultDropoutPerSession, sessionLength: SessionLength = SessionLength(),
        coldLaunchAfterMinutes: Double = Segment.defaultColdLaunchAfterMinutes
    ) {
        (self.name, self.weight, self.returns) = (name, weight, returns)
        (self.dropoutPerSession, self.sessionLength) = (dropoutPerSession, sessionLength)
        self.coldLaunchAfterMinutes = coldLaunchAfterMinutes
    }
}

/// Session length: lognormal with the given median (minutes) and log-scale spread.
public struct SessionLength: Encodable, Equatable, Sendable {
    public var medianMinutes: Double
    public var sigma: Double

    public static let defaultMedianMinutes = 4.0
    public static let defaultSigma = 0.8

    public init(medianMinutes: Double = SessionLength.defaultMedianMinutes, sigma: Double = SessionLength.defaultSigma) {
        (self.medianMinutes, self.sigma) = (medianMinutes, sigma)
    }
}

/// The gap between a session's close and the user's next organic open.
public enum ReturnProcess: Equatable, Sendable {
    /// Gaps from a parametric family, with its parameters' values in the family's order (times in
    /// `unit`, rates per `unit`).
    case parametric(GapFamily, values: [Double], unit: GapUnit)
    /// Gaps resampled from recorded values (with optional weights).
    case empirical(values: [Double], weights: [Double]?, unit: GapUnit)
    /// Gaps resampled from a recorded log's gap distribution, estimated with right-censoring
    /// (Kaplan–Meier); a draw beyond the longest observed return is a dropout.
    case recordedGaps(RecordedSource)
    /// Each user follows a recorded user's real timeline, shifted to the install.
    case replay(RecordedSource)

    public static func exponential(mean: Double, unit: GapUnit) -> ReturnProcess {
        .parametric(.exponential, values: [mean], unit: unit)
    }

    public static func weibull(shape: Double, scale: Double, unit: GapUnit) -> ReturnProcess {
        .parametric(.weibull, values: [shape, scale], unit: unit)
    }

    public static func lognormal(mu: Double, sigma: Double, unit: GapUnit) -> ReturnProcess {
        .parametric(.lognormal, values: [mu, sigma], unit: unit)
    }

    public static func bgnbd(r: Double, alpha: Double, a: Double, b: Double, unit: GapUnit) -> ReturnProcess {
        .parametric(.bgnbd, values: [r, alpha, a, b], unit: unit)
    }

    public static func paretoNBD(r: Double, alpha: Double, s: Double, beta: Double, unit: GapUnit) -> ReturnProcess {
        .parametric(.paretoNBD, values: [r, alpha, s, beta], unit: unit)
    }

    public var distributionName: String { kind.name }

    /// What kind of process this is, as a scenario names it.
    public var kind: ReturnKind {
        switch self {
        case let .parametric(family, _, _): return .parametric(family)
        case .empirical, .recordedGaps: return .empirical
        case .replay: return .replay
        }
    }
}

/// The kinds of return process a scenario may name in `distribution`: every parametric family,
/// then the recorded ones.
public enum ReturnKind: Equatable, Sendable {
    case parametric(GapFamily)
    /// Recorded gaps: listed values, or a log's gaps resampled.
    case empirical
    /// Recorded timelines.
    case replay

    public static let all: [ReturnKind] = GapFamily.allCases.map { .parametric($0) } + [.empirical, .replay]

    public var name: String {
        switch self {
        case let .parametric(family): return family.name
        case .empirical: return "empirical"
        case .replay: return "replay"
        }
    }

    /// The kind a scenario names, or nil for a name that is none.
    public init?(name: String) {
        guard let kind = Self.all.first(where: { $0.name == name }) else { return nil }
        self = kind
    }
}

extension ReturnProcess: Encodable {
    /// A field of a return process's JSON object.
    struct Keys: CodingKey {
        let stringValue: String
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }

        static let distribution = Keys("distribution"), unit = Keys("unit"), values = Keys("values")
        static let weights = Keys("weights"), data = Keys("data"), format = Keys("format")
        static let observationEnd = Keys("observationEnd")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(distributionName, forKey: .distribution)
        switch self {
        case let .parametric(family, values, unit):
            for (parameter, value) in zip(family.parameters, values) { try c.encode(value, forKey: Keys(parameter.name)) }
            try c.encode(unit, forKey: .unit)
        case let .empirical(values, weights, unit):
            try c.encode(values, forKey: .values)
            try c.encodeIfPresent(weights, forKey: .weights)
            try c.encode(unit, forKey: .unit)
        case let .recordedGaps(source), let .replay(source):
            try source.encode(into: &c)
        }
    }
}

/// How users answer a delivered notification.
public struct ResponseModel: Encodable, Equatable, Sendable {
    /// Chance that a delivered notification brings the user back, before the factors below.
    public var baseResponse: Double
    /// Relative pull of a message, by its text; messages not listed weigh 1.
    public var messageWeights: [String: Double]
    /// Each notification delivered since the last organic open multiplies the chance by this.
    public var fatigue: Double
    /// Local hours `[start, end)` in which a notification is less effective; nil for none.
    public var quietHours: QuietHours?
    public var quietFactor: Double
    /// Factor for a user who has dropped out; a dormant user who responds is revived.
    public var dormantFactor: Double
    /// Mean of the exponential delay between the notification and the response open.
    public var responseDelayMinutes: Double
    /// Chance that a delivery makes the user turn notifications off for good.
    public var optOutPerDelivery: Double
    /// An open this soon after a delivery is what an analytics tool would credit to it.
    public var attributionWindowHours: Double
    /// Ranges and a joint normal of some parameters; nil when every parameter is a plain number.
    public var uncertainty: ResponseUncertainty?

    public static let defaults = ResponseModel()

    public init(
        baseResponse: Double = 0.08, messageWeights: [String: Double] = [:], fatigue: Double = 0.85,
        quietHours: QuietHours? = QuietHours(start: 22, end: 7), quietFactor: Double = 0.3,
        dormantFactor: Double = 0.3, responseDelayMinutes: Double = 30, optOutPerDelivery: Double = 0.01,
        attributionWindowHours: Double = 24
    ) {
        (self.baseResponse, self.messageWeights, self.fatigue) = (baseResponse, messageWeights, fatigue)
        (self.quietHours, self.quietFactor, self.dormantFactor) = (quietHours, quietFactor, dormantFactor)
        (self.responseDelayMinutes, self.optOutPerDelivery) = (responseDelayMinutes, optOutPerDelivery)
        self.attributionWindowHours = attributionWindowHours
    }
}

extension ResponseModel {
    private enum Keys: String, CodingKey {
        case baseResponse, messageWeights, fatigue, quietHours, quietFactor, dormantFactor, responseDelayMinutes,
            optOutPerDelivery, attributionWindowHours, uncertainty
    }

    /// A parameter as a plain number, or as `{"value", "low", "high"}` when the scenario gives it a range.
    private func encode(_ p: UncertainParameter, in c: inout KeyedEncodingContainer<Keys>, as key: Keys) throws {
        if let r = uncertainty?.ranges[p] {
            try c.encode(["value": r.value, "low": r.low, "high": r.high], forKey: key)
        } else {
            try c.encode(p.value(in: self), forKey: key)
        }
    }

    /// Writes `quietHours: null` explicitly: an absent key would read back as the default quiet hours.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try encode(.baseResponse, in: &c, as: .baseResponse)
        try c.encode(messageWeights, forKey: .messageWeights)
        try encode(.fatigue, in: &c, as: .fatigue)
        if let quietHours { try c.encode(quietHours, forKey: .quietHours) } else { try c.encodeNil(forKey: .quietHours) }
        try encode(.quietFactor, in: &c, as: .quietFactor)
        try encode(.dormantFactor, in: &c, as: .dormantFactor)
        try encode(.responseDelayMinutes, in: &c, as: .responseDelayMinutes)
        try encode(.optOutPerDelivery, in: &c, as: .optOutPerDelivery)
        try c.encode(attributionWindowHours, forKey: .attributionWindowHours)
        if let joint = uncertainty?.joint { try c.encode(joint, forKey: .uncertainty) }
    }
}

/// Local hours `[start, end)`, wrapping past midnight when `end < start` (22–7 is the night);
/// `start == end` is refused when a scenario is read.
public struct QuietHours: Encodable, Equatable, Sendable {
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) {
        (self.start, self.end) = (start, end)
    }

    @inlinable
    public func contains(hour: Int) -> Bool {
        start < end ? (hour >= start && hour < end) : (hour >= start || hour < end)
    }
}

/// One configuration to compare: its reminders, its cron rules and the engines' mode.
public struct ConfigurationSpec: Encodable, Equatable, Sendable {
    public var label: String
    public var mode: EngineMode
    /// Where the app sets the reminder's configuration; nil for the mode's default (`wiring`).
    public var wiring: ReminderWiring?
    /// The reminders the engines run: those written, or a sequence's steps.
    public var reminders: [ReminderSpec]
    /// Set when the reminders are an inactivity sequence's steps, one reminder per step.
    public private(set) var sequence: SequenceSpec?
    /// Crontab-IOS rules evaluated at every cold launch, in order, each marked with the system prompt
    /// its block asks for, if any.
    public var cronRules: [CronRuleSpec]
    /// When notifications may be shown, layered around the engines; empty: as the engines schedule them.
    public var delivery = DeliveryPolicy()

    public init(label: String, mode: EngineMode = .documented, wiring: ReminderWiring? = nil, reminders: [ReminderSpec],
                cronRules: [CronRuleSpec] = []) {
        (self.label, self.mode, self.wiring, self.reminders) = (label, mode, wiring, reminders)
        self.cronRules = cronRules
    }

    /// A configuration whose reminders are `sequence`'s steps (documented mode).
    public init(label: String, sequence: SequenceSpec, cronRules: [CronRuleSpec] = []) {
        self.init(label: label, reminders: sequence.reminders, cronRules: cronRules)
        self.sequence = sequence
    }

    enum CodingKeys: String, CodingKey { case label, mode, wiring, reminders, sequence, cronRules, delivery }

    /// A sequence is written as itself, not as the reminders it stands for, so that a stored scenario
    /// reads back the same.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(label, forKey: .label)
        try c.encode(mode, forKey: .mode)
        try c.encodeIfPresent(wiring, forKey: .wiring)
        if let sequence { try c.encode(sequence, forKey: .sequence) } else { try c.encode(reminders, forKey: .reminders) }
        try c.encode(cronRules, forKey: .cronRules)
        if !delivery.isEmpty { try c.encode(delivery, forKey: .delivery) }
    }

    /// The wiring in force: the one given, or the mode's default (`readme` in the original modes).
    public var effectiveWiring: ReminderWiring { wiring ?? .default(for: mode) }

    /// The cron engine's mode: every original mode uses the Crontab-IOS 1.0 pod.
    public var cronMode: CronMode { mode.isOriginal ? .original : .documented }

    /// The delay, in its unit, that reminder `reminder` really uses at period index `index` in this mode.
    public func periodValue(reminder: Int, index: Int) -> Int {
        Reminder.periodValue(reminders[reminder].timePeriods, mode: mode, at: index)
    }

    /// The engine configuration of reminder `index`, with this configuration's mode and wiring.
    public func reminderConfiguration(_ index: Int) throws(ReminderConfigurationError) -> ReminderConfiguration {
        let r = reminders[index]
        return try ReminderConfiguration(
            messages: r.messages, timePeriods: r.timePeriods, unit: r.unit, randomMessage: r.randomMessage,
            circularTimePeriod: r.circularTimePeriod, appDomain: r.appDomain, mode: mode, wiring: effectiveWiring)
    }
}

/// An inactivity sequence: reminders `afterDays[k]` days after the last session, all scheduled at
/// every close and all cancelled by the next open. It is shorthand for a stack of single-period
/// reminders with distinct app domains (documented mode), one per step; the library itself keeps one
/// pending notification and moves to its next period only after one fired (`timePeriods`).
public struct SequenceSpec: Codable, Equatable, Sendable {
    public var afterDays: [Int]
    /// One message per step, or one message for every step.
    public var messages: [String]

    public init(afterDays: [Int], messages: [String]) {
        (self.afterDays, self.messages) = (afterDays, messages)
    }

    /// The app domain of step `k` (0-based): distinct per step, so each keeps its own state.
    public static func appDomain(step k: Int) -> String { "\(ReminderConfiguration.defaultAppDomain).sequence.\(k + 1)" }

    /// The reminders the sequence stands for, one per step.
    public var reminders: [ReminderSpec] {
        afterDays.enumerated().map { k, days in
            ReminderSpec(messages: [messages.count == 1 ? messages[0] : messages[min(k, messages.count - 1)]],
                         timePeriods: [days], unit: .days, appDomain: Self.appDomain(step: k))
        }
    }

    /// Why the sequence cannot run, as (field, reason) pairs.
    func problems() -> [(field: String, reason: String)] {
        var out: [(String, String)] = []
        if afterDays.isEmpty { out.append(("afterDays", "must list at least one step")) }
        if let bad = afterDays.first(where: { $0 <= 0 }) { out.append(("afterDays", "every step must be > 0 days, got \(bad)")) }
        if zip(afterDays, afterDays.dropFirst()).contains(where: { $0 >= $1 }) {
            out.append(("afterDays", "steps must grow: each later than the one before, got \(afterDays)"))
        }
        if messages.count != 1 && messages.count != afterDays.count {
            out.append(("messages", "give one message per step (\(afterDays.count)) or one for every step, got \(messages.count)"))
        }
        return out
    }
}

/// One ACPReminder instance of a configuration (ENGINES.md §1), without the mode.
public struct ReminderSpec: Encodable, Equatable, Sendable {
    public var messages: [String]
    public var timePeriods: [Int]
    public var unit: PeriodUnit
    public var randomMessage: Bool
    public var circularTimePeriod: Bool
    public var appDomain: String

    public init(
        messages: [String], timePeriods: [Int], unit: PeriodUnit = .days, randomMessage: Bool = false,
        circularTimePeriod: Bool = false, appDomain: String = ReminderConfiguration.defaultAppDomain
    ) {
        (self.messages, self.timePeriods, self.unit) = (messages, timePeriods, unit)
        (self.randomMessage, self.circularTimePeriod) = (randomMessage, circularTimePeriod)
        self.appDomain = appDomain
    }
}

/// A compact way to write many configurations: every combination of the listed choices.
public struct GridSpec: Encodable, Equatable, Sendable {
    public var labelPrefix: String
    public var messages: [String]
    public var timePeriods: [[Int]]
    public var unit: PeriodUnit
    public var randomMessage: [Bool]
    public var circularTimePeriod: [Bool]
    public var mode: [EngineMode]
    public var cronRules: [CronRuleSpec]

    public init(
        labelPrefix: String = "", messages: [String], timePeriods: [[Int]], unit: PeriodUnit = .days,
        randomMessage: [Bool] = [false], circularTimePeriod: [Bool] = [false], mode: [EngineMode] = [.documented],
        cronRules: [CronRuleSpec] = []
    ) {
        (self.labelPrefix, self.messages, self.timePeriods) = (labelPrefix, messages, timePeriods)
        (self.unit, self.randomMessage, self.circularTimePeriod) = (unit, randomMessage, circularTimePeriod)
        (self.mode, self.cronRules) = (mode, cronRules)
    }

    /// How many configurations `expanded()` makes, computed without making them (saturating, so
    /// that a grid too large to expand is still counted).
    public var combinationCount: Int {
        [timePeriods.count, randomMessage.count, circularTimePeriod.count, mode.count].reduce(1) {
            let (product, overflow) = $0.multipliedReportingOverflow(by: $1)
            return overflow ? Int.max : product
        }
    }

    /// How many messages and periods `expanded()` lists in all, computed without making it (saturating).
    var slots: Int {
        let choices = [randomMessage.count, circularTimePeriod.count, mode.count].reduce(1) {
            let (product, overflow) = $0.multipliedReportingOverflow(by: $1)
            return overflow ? Int.max : product
        }
        return timePeriods.reduce(0) { total, periods in
            let (each, o1) = (messages.count + periods.count).multipliedReportingOverflow(by: choices)
            let (sum, o2) = total.addingReportingOverflow(each)
            return o1 || o2 ? Int.max : sum
        }
    }

    /// Periods × message choice × wrap × mode, in that nesting order. A label names the periods
    /// and each choice that varies, e.g. `7/10d random original`.
    public func expanded() -> [ConfigurationSpec] {
        var out: [ConfigurationSpec] = []
        let unitSuffix: String = switch unit {
        case .days: "d"
        case .hours: "h"
        case .minutes: "min"
        case .seconds: "s"
        }
        for periods in timePeriods {
            for random in randomMessage {
                for circular in circularTimePeriod {
                    for m in mode {
                        var parts = [periods.map(String.init).joined(separator: "/") + unitSuffix]
                        if randomMessage.count > 1 { parts.append(random ? "random" : "sequential") }
                        if circularTimePeriod.count > 1 { parts.append(circular ? "circular" : "stay") }
                        if mode.count > 1 { parts.append(m.rawValue) }
                        out.append(
                            ConfigurationSpec(
                                label: labelPrefix + parts.joined(separator: " "), mode: m,
                                reminders: [
                                    ReminderSpec(
                                        messages: messages, timePeriods: periods, unit: unit, randomMessage: random,
                                        circularTimePeriod: circular)
                                ], cronRules: cronRules))
                    }
                }
            }
        }
        return out
    }
}
