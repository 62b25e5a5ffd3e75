import CronEngine
import Foundation
import GapFamilies
import Randomness
import ReminderEngine

/// The gap sampler of one segment, in seconds, chosen once so the hot path only switches.
@usableFromInline
enum GapSampler: Sendable {
    case exponential(ExponentialDistribution)
    case weibull(WeibullDistribution)
    case lognormal(LogNormalDistribution)
    /// The per-user gap mean and dropout come from the user's traits (drawn from the segment's
    /// `PerUserMixing`); the case itself stays small, because the loop copies it at every session.
    case bgnbd
    /// Entries `start..<start + count` of the model's empirical tables.
    case empirical(start: Int, count: Int)
    /// Kaplan–Meier steps `start..<start + count` of the empirical tables; past the last, no return.
    case kaplanMeier(start: Int, count: Int)
    /// Recorded timelines: table `table` of the model's replay tables.
    case replay(table: Int)
    /// Entry `index` of the model's other distributions: a family's sampler with no case of its own
    /// (`GapDraw.other`), kept apart so that this enum stays a plain value.
    case other(index: Int)

    /// Builds a sampler; empirical values go into the shared tables, and a distribution with no case
    /// of its own into `others`, so the sampler itself stays a plain value that is copied without
    /// reference counting.
    init(_ process: ReturnProcess, tables: inout EmpiricalTables, others: inout [any ContinuousDistribution]) {
        switch process {
        case let .parametric(family, values, unit):
            switch family.sampler(values, unitSeconds: unit.seconds) {
            case let .exponential(d): self = .exponential(d)
            case let .weibull(d): self = .weibull(d)
            case let .lognormal(d): self = .lognormal(d)
            case .perUser: self = .bgnbd
            case let .other(d):
                others.append(d)
                self = .other(index: others.count - 1)
            }
        case let .empirical(values, weights, unit):
            let start = tables.seconds.count
            let w = weights ?? Array(repeating: 1, count: values.count)
            let total = w.reduce(0, +)
            var running = 0.0
            for (v, weight) in zip(values, w) {
                running += weight
                tables.seconds.append(v * unit.seconds)
                tables.cumulative.append(running / total)
            }
            self = .empirical(start: start, count: values.count)
        case .recordedGaps, .replay:
            preconditionFailure("recorded return processes are compiled from their loaded data")
        }
    }
}

/// Recorded users' visit times relative to their first visit, one user after the other.
@usableFromInline
struct ReplayTable: Sendable {
    @usableFromInline var offsets: [Double] = []
    @usableFromInline var starts: [Int] = []
    @usableFromInline var counts: [Int] = []
    var sourceUsers = 0
}

/// Recorded gaps of every empirical segment, one after the other: values in seconds and their
/// cumulative probabilities.
@usableFromInline
struct EmpiricalTables: Sendable {
    @usableFromInline var seconds: [Double] = []
    @usableFromInline var cumulative: [Double] = []

    /// The value whose cumulative probability first exceeds `u` among entries `start..<start+count`.
    @inlinable
    func sample(start: Int, count: Int, u: Double) -> Double {
        seconds.withUnsafeBufferPointer { seconds in
            cumulative.withUnsafeBufferPointer { cumulative in
                Self.sample(seconds: seconds, cumulative: cumulative, start: start, count: count, u: u)
            }
        }
    }

    /// Like `sample`, but the cumulative probabilities may stop short of 1: a draw beyond the
    /// last one is "never" (+infinity).
    @inlinable
    func sampleOrNever(start: Int, count: Int, u: Double) -> Double {
        seconds.withUnsafeBufferPointer { seconds in
            cumulative.withUnsafeBufferPointer { cumulative in
                Self.sampleOrNever(seconds: seconds, cumulative: cumulative, start: start, count: count, u: u)
            }
        }
    }

    /// `sample` on the tables' values and cumulative probabilities.
    @inlinable
    static func sample(seconds: UnsafeBufferPointer<Double>, cumulative: UnsafeBufferPointer<Double>,
                       start: Int, count: Int, u: Double) -> Double {
        var low = start, high = start + count - 1
        while low < high {
            let middle = (low + high) >> 1
            if cumulative[middle] > u { high = middle } else { low = middle + 1 }
        }
        return seconds[low]
    }

    /// `sampleOrNever` on the tables' values and cumulative probabilities.
    @inlinable
    static func sampleOrNever(seconds: UnsafeBufferPointer<Double>, cumulative: UnsafeBufferPointer<Double>,
                              start: Int, count: Int, u: Double) -> Double {
        guard u < cumulative[start + count - 1] else { return .infinity }
        return sample(seconds: seconds, cumulative: cumulative, start: start, count: count, u: u)
    }
}

/// The mixing distributions (BG/NBD or Pareto/NBD) from which each user of a segment draws a return
/// rate and a dropout; `unitSeconds` scales the rates.
@usableFromInline
struct PerUserMixing: Sendable {
    let draws: UserMixing
    let unitSeconds: Double

    init?(_ process: ReturnProcess) {
        guard case let .parametric(family, values, unit) = process, let mixing = family.mixing(values) else { return nil }
        draws = mixing
        unitSeconds = unit.seconds
    }

    /// Whether the user's own dropout can end the user right after the install (Pareto/NBD's lifetime
    /// can end before any repeat visit), and not only after a repeat visit (BG/NBD).
    var dropsAfterInstall: Bool {
        if case .dropoutRate = draws { return true }
        return false
    }

    /// The user's own exponential gap mean in seconds and chance of dropping out after a session.
    ///
    /// Pareto/NBD's visits at rate λ and lifetime at rate μ are two competing exponential clocks: from
    /// any session the next event comes after Exp(λ+μ) and ends the lifetime with chance μ/(λ+μ), so
    /// the visits are those of a user with gaps of mean 1/(λ+μ) who drops out with that chance.
    func draw(_ g: inout Xoshiro256) -> (gapMeanSeconds: Double, dropout: Double) {
        switch draws {
        case let .dropoutChance(rate, chance):
            // A rate of exactly 0 cannot be drawn from a continuous Gamma, but guard the division.
            let gapMean = unitSeconds / max(rate.sample(&g), .leastNormalMagnitude)
            return (gapMean, chance.sample(&g))
        case let .dropoutRate(rate, dropoutRate):
            let lambda = rate.sample(&g)
            let mu = dropoutRate.sample(&g)
            let total = max(lambda + mu, .leastNormalMagnitude)
            return (unitSeconds / total, mu / total)
        }
    }
}

/// One segment, ready for simulation.
@usableFromInline
struct CompiledSegment: Sendable {
    @usableFromInline let gaps: GapSampler
    @usableFromInline let mixing: PerUserMixing?
    /// The user's own dropout applies after the install too (Pareto/NBD), not only after repeat visits.
    @usableFromInline let ownDropoutAfterInstall: Bool
    @usableFromInline let dropoutPerSession: Double
    @usableFromInline let session: LogNormalDistribution
    @usableFromInline let coldLaunchSeconds: Double
}

/// An immutable copy of an array in memory of its own, freed with the owner: the simulation loop
/// holds plain pointers into it, which costs no reference counting per user.
@usableFromInline
final class FrozenBuffer<Element>: @unchecked Sendable {
    let buffer: UnsafeBufferPointer<Element>
    private let storage: UnsafeMutablePointer<Element>

    init(_ elements: [Element]) {
        storage = .allocate(capacity: max(elements.count, 1))
        storage.initialize(from: elements, count: elements.count)
        buffer = UnsafeBufferPointer(start: storage, count: elements.count)
    }

    deinit {
        storage.deinitialize(count: buffer.count)
        storage.deallocate()
    }
}

/// One configuration, ready for simulation: engines built, rules parsed, weights resolved by index.
public struct CompiledConfiguration: Sendable {
    public let spec: ConfigurationSpec
    @usableFromInline let reminders: [Reminder]
    @usableFromInline let cron: CronTable
    /// Response weight of each (reminder, message), flattened with `messageBase`.
    @usableFromInline let messageWeights: [Double]
    @usableFromInline let messageBase: [Int]
    @usableFromInline let periodBase: [Int]
    /// Whether any reminder picks its messages at random (and so needs the message stream).
    @usableFromInline let randomMessages: Bool
    /// The same tables, the reminders and the cron rules, frozen for the loop.
    let frozenReminders: FrozenBuffer<Reminder>
    let frozenRules: FrozenBuffer<CronRule>
    let cronTable: CronLaunchTable
    let frozenMessageBase: FrozenBuffer<Int>
    let frozenPeriodBase: FrozenBuffer<Int>
    let frozenMessageWeights: FrozenBuffer<Double>
    public let messageSlots: Int
    public let periodSlots: Int
    /// When notifications may be shown (extensions around the engines); empty for the holdout.
    @usableFromInline let delivery: DeliveryPolicy
    /// The cron rules whose block asks for the App Store review prompt, as bits.
    let reviewPrompts: UInt64
    /// `view`, kept at one address for the loop (a timeline points at it rather than copy it).
    let frozenView: FrozenBuffer<ConfigurationView>

    init(_ spec: ConfigurationSpec, weights: [String: Double], days: Int) throws {
        self.spec = spec
        delivery = spec.delivery
        reminders = try spec.reminders.indices.map { Reminder(try spec.reminderConfiguration($0)) }
        cron = try CronTable(rules: spec.cronRules.texts, mode: spec.cronMode)
        reviewPrompts = spec.cronRules.mask(of: .storeReview)
        var mb: [Int] = [], pb: [Int] = [], w: [Double] = []
        var m = 0, p = 0
        for r in spec.reminders {
            mb.append(m)
            pb.append(p)
            m += r.messages.count
            p += r.timePeriods.count
            w += r.messages.map { weights[$0] ?? 1 }
        }
        messageBase = mb
        periodBase = pb
        messageWeights = w
        randomMessages = spec.reminders.contains { $0.randomMessage }
        frozenReminders = FrozenBuffer(reminders)
        frozenRules = FrozenBuffer(cron.rules)
        cronTable = CronLaunchTable(rules: cron.rules, days: days)
        frozenMessageBase = FrozenBuffer(mb)
        frozenPeriodBase = FrozenBuffer(pb)
        frozenMessageWeights = FrozenBuffer(w)
        messageSlots = m
        periodSlots = p
        frozenView = FrozenBuffer([Self.view(frozenReminders, frozenRules, cronTable, frozenMessageBase, frozenPeriodBase,
                                             frozenMessageWeights, randomMessages, delivery, reviewPrompts)])
    }

    /// An empty configuration: the holdout.
    init(holdout: Void, days: Int) {
        spec = ConfigurationSpec(label: "holdout", reminders: [])
        delivery = DeliveryPolicy()
        reviewPrompts = 0
        reminders = []
        cron = try! CronTable(rules: [], mode: .documented)
        messageWeights = []
        messageBase = []
        periodBase = []
        randomMessages = false
        frozenReminders = FrozenBuffer([])
        frozenRules = FrozenBuffer([])
        cronTable = CronLaunchTable(rules: [], days: days)
        frozenMessageBase = FrozenBuffer([])
        frozenPeriodBase = FrozenBuffer([])
        frozenMessageWeights = FrozenBuffer([])
        messageSlots = 0
        periodSlots = 0
        frozenView = FrozenBuffer([Self.view(frozenReminders, frozenRules, cronTable, frozenMessageBase, frozenPeriodBase,
                                             frozenMessageWeights, randomMessages, delivery, reviewPrompts)])
    }

    private static func view(_ reminders: FrozenBuffer<Reminder>, _ rules: FrozenBuffer<CronRule>, _ cronTable: CronLaunchTable,
                             _ messageBase: FrozenBuffer<Int>, _ periodBase: FrozenBuffer<Int>,
                             _ messageWeights: FrozenBuffer<Double>, _ randomMessages: Bool, _ delivery: DeliveryPolicy,
                             _ reviewPrompts: UInt64) -> ConfigurationView {
        ConfigurationView(
            reminders: reminders.buffer, rules: rules.buffer, cronTable: cronTable.view, messageBase: messageBase.buffer,
            periodBase: periodBase.buffer, messageWeights: messageWeights.buffer,
            randomMessages: randomMessages, delivery: delivery, reviewPrompts: reviewPrompts)
    }
}

/// What the loop reads of a configuration, as plain pointers into its frozen buffers: copying it
/// costs no reference counting. Valid while the configuration lives.
struct ConfigurationView {
    let reminders: UnsafeBufferPointer<Reminder>
    let rules: UnsafeBufferPointer<CronRule>
    let cronTable: CronLaunchTable.View
    let messageBase: UnsafeBufferPointer<Int>
    let periodBase: UnsafeBufferPointer<Int>
    let messageWeights: UnsafeBufferPointer<Double>
    let randomMessages: Bool
    let delivery: DeliveryPolicy
    /// The cron rules whose block asks for the App Store review prompt, as bits.
    let reviewPrompts: UInt64
}

extension CompiledConfiguration {
    var view: ConfigurationView { frozenView.buffer[0] }
    /// The view at its one address, valid as long as the configuration.
    var viewPointer: UnsafePointer<ConfigurationView> { frozenView.buffer.baseAddress! }
}

/// A scenario turned into plain values the simulation loop can use without lookups.
public struct CompiledModel: Sendable {
    public let scenario: Scenario
    /// Holdout first, then the scenario's configurations in order.
    public let configurations: [CompiledConfiguration]
    @usableFromInline let segments: [CompiledSegment]
    /// The same, frozen for the loop.
    let frozenSegments: FrozenBuffer<CompiledSegment>
    @usableFromInline let empirical: EmpiricalTables
    /// The empirical tables' values and cumulative probabilities, frozen for the loop.
    let frozenSeconds: FrozenBuffer<Double>
    let frozenCumulative: FrozenBuffer<Double>
    /// The samplers of `GapSampler.other`, frozen for the loop.
    let frozenOtherGaps: FrozenBuffer<any ContinuousDistribution>
    @usableFromInline let replayTables: [ReplayTable]
    /// Each replay table's visit offsets, frozen for the loop.
    let frozenReplayOffsets: [FrozenBuffer<Double>]
    /// Per segment: where its recorded users' rows start in the run's `RecordedUserSums`, or −1 for a
    /// segment that does not replay. Segments replaying the same log share its rows.
    let recordedUserRowStart: [Int]
    /// Rows of the run's `RecordedUserSums`: the recorded users of every log replayed, each once.
    public let recordedUsers: Int
    @usableFromInline let segmentChoice: WeightedChoice
    /// The population's platforms, or one without rules; and the choice among them, nil without platforms.
    @usableFromInline let platforms: [CompiledPlatform]
    let frozenPlatforms: FrozenBuffer<CompiledPlatform>
    @usableFromInline let platformChoice: WeightedChoice?
    /// Whether users draw a platform (the population names platforms), and whether a platform sets
    /// its own segment shares.
    let drawsPlatformTraits: Bool
    let platformSegments: Bool
    @usableFromInline let offsetSeconds: [Double]
    @usableFromInline let offsetChoice: WeightedChoice
    /// Per `population.utcOffsets` entry, the index of its named zone in `zones`, or −1 for a fixed offset.
    let offsetZone: [Int]
    let zones: [CompiledZone]
    /// The return pattern, nil when returns are flat.
    let returnPattern: CompiledReturnPattern?
    @usableFromInline let installSpreadSeconds: Double
    public let horizonSeconds: Double
    public let horizonDays: Int
    @usableFromInline let response: CompiledResponse
    /// `response` where a timeline can point to it rather than copy it.
    let frozenResponse: FrozenBuffer<CompiledResponse>
    public let seed: UInt64
    /// The most sessions a user may have in this run (`Scenario.sessionLimit`).
    public let sessionLimit: Int

    /// Builds the model; the scenario must have passed validation (`Scenario.decode` or
    /// `semanticIssues()` empty), otherwise this throws its issues. The recorded logs its segments name
    /// come read in `recorded` (see `RecordedLogs.sources(of:)`); one that is not there is a
    /// `RecordedDataError`, as is a log that cannot serve the run.
    public init(_ scenario: Scenario, recorded: RecordedLogs = RecordedLogs()) throws {
        // What a run needs of the scenario; the limits on new runs and the decision's own checks are the
        // callers' (a stored scenario is compiled again without them).
        var issues = scenario.semanticIssues(relaxed: true, decides: false)
        // A stored scenario keeps the zones it ran with; one this machine's time zone database does not have
        // cannot be simulated here (its offsets would silently be UTC's).
        for (i, share) in scenario.population.utcOffsets.enumerated() {
            guard let zone = share.zone, TimeZone(identifier: zone) == nil else { continue }
            issues.append(ScenarioIssue(path: "population.utcOffsets[\(i)].zone",
                                        reason: "\(ScenarioIssue.quote(zone)) is a time zone this machine's time zone database does "
                                            + "not have, so its users cannot be simulated here"))
        }
        if !issues.isEmpty { throw ScenarioError(issues: issues) }
        self.scenario = scenario
        configurations = [CompiledConfiguration(holdout: (), days: scenario.horizonDays)]
            + (try scenario.expandedConfigurations.map {
                try CompiledConfiguration($0, weights: scenario.response.messageWeights, days: scenario.horizonDays)
            })
        var tables = EmpiricalTables()
        var others: [any ContinuousDistribution] = []
        var replays: [ReplayTable] = []
        var compiled: [CompiledSegment] = []
        var rowStarts: [Int] = [], sourceRows: [RecordedSource: Int] = [:], rows = 0
        for (i, segment) in scenario.population.segments.enumerated() {
            let gaps: GapSampler
            let at = "population.segments[\(i)].returns"
            switch segment.returns {
            case let .recordedGaps(source):
                gaps = try RecordedTables.kaplanMeier(source, at: at, in: recorded, into: &tables)
                rowStarts.append(-1)
            case let .replay(source):
                replays.append(try RecordedTables.replay(
                    source, at: at, in: recorded, horizonSeconds: Double(scenario.horizonDays) * 86_400))
                gaps = .replay(table: replays.count - 1)
                if let start = sourceRows[source] {
                    rowStarts.append(start)
                } else {
                    sourceRows[source] = rows
                    rowStarts.append(rows)
                    rows += replays[replays.count - 1].starts.count
                }
            default:
                gaps = GapSampler(segment.returns, tables: &tables, others: &others)
                rowStarts.append(-1)
            }
            compiled.append(CompiledSegment(
                gaps: gaps, mixing: PerUserMixing(segment.returns),
                ownDropoutAfterInstall: PerUserMixing(segment.returns)?.dropsAfterInstall ?? false,
                dropoutPerSession: segment.dropoutPerSession,
                session: LogNormalDistribution(median: segment.sessionLength.medianMinutes * 60, sigma: segment.sessionLength.sigma),
                coldLaunchSeconds: segment.coldLaunchAfterMinutes * 60))
        }
        segments = compiled
        frozenSegments = FrozenBuffer(compiled)
        empirical = tables
        frozenSeconds = FrozenBuffer(tables.seconds)
        frozenCumulative = FrozenBuffer(tables.cumulative)
        frozenOtherGaps = FrozenBuffer(others)
        replayTables = replays
        frozenReplayOffsets = replays.map { FrozenBuffer($0.offsets) }
        recordedUserRowStart = rowStarts
        recordedUsers = rows
        segmentChoice = WeightedChoice(weights: scenario.population.segments.map(\.weight))
        let named = scenario.population.platforms ?? []
        platforms = named.isEmpty ? [.unrestricted] : named.map { CompiledPlatform($0, segments: scenario.population.segments) }
        frozenPlatforms = FrozenBuffer(platforms)
        platformChoice = named.isEmpty ? nil : WeightedChoice(weights: named.map(\.weight))
        drawsPlatformTraits = !named.isEmpty
        platformSegments = named.contains { $0.segmentWeights != nil }
        let startDay = CalendarDate(iso: scenario.startDate)?.daysSinceEpoch ?? 0
        var zones: [CompiledZone] = [], offsetZone: [Int] = []
        for share in scenario.population.utcOffsets {
            guard let name = share.zone else { offsetZone.append(-1); continue }
            if let known = zones.firstIndex(where: { $0.name == name }) {
                offsetZone.append(known)
            } else {
                offsetZone.append(zones.count)
                zones.append(CompiledZone(name: name, startDay: startDay, days: scenario.horizonDays))
            }
        }
        self.zones = zones
        self.offsetZone = offsetZone
        offsetSeconds = scenario.population.utcOffsets.enumerated().map { i, share in
            offsetZone[i] < 0 ? share.hours * 3_600 : zones[offsetZone[i]].startOffset
        }
        returnPattern = scenario.population.returnPattern.flatMap {
            $0.isFlat ? nil : CompiledReturnPattern($0, startDay: startDay)
        }
        offsetChoice = WeightedChoice(weights: scenario.population.utcOffsets.map(\.weight))
        installSpreadSeconds = scenario.population.installSpreadDays * 86_400
        horizonDays = scenario.horizonDays
        horizonSeconds = Double(scenario.horizonDays) * 86_400
        response = CompiledResponse(scenario.response)
        frozenResponse = FrozenBuffer([response])
        seed = scenario.seed
        sessionLimit = Scenario.sessionLimit(days: scenario.horizonDays)
    }
}

@usableFromInline
struct CompiledResponse: Sendable {
    @usableFromInline let base: Double
    @usableFromInline let fatigue: Double
    @usableFromInline let quiet: QuietHours?
    @usableFromInline let quietFactor: Double
    @usableFromInline let dormantFactor: Double
    @usableFromInline let delay: ExponentialDistribution
    @usableFromInline let optOut: Double
    @usableFromInline let attributionSeconds: Double

    init(_ r: ResponseModel) {
        base = r.baseResponse
        fatigue = r.fatigue
        quiet = r.quietHours
        quietFactor = r.quietFactor
        dormantFactor = r.dormantFactor
        delay = ExponentialDistribution(mean: r.responseDelayMinutes * 60)
        optOut = r.optOutPerDelivery
        attributionSeconds = r.attributionWindowHours * 3_600
    }
}
