import CronEngine
import Foundation
import Randomness
import ReminderEngine

/// What one virtual user is, drawn once and shared by every configuration and the holdout.
public struct UserTraits: Equatable, Sendable {
    public var segment: Int
    /// The user's UTC offset; for a user in a named zone, the offset at the run's start.
    public var utcOffsetSeconds: Double
    /// The user's named time zone (an index into the model's zones), or −1 at a fixed offset.
    public var zone: Int = -1
    /// Install time, seconds from the run's start; the install is the first open.
    public var install: Double
    /// BG/NBD and Pareto/NBD users: their own exponential gap mean (seconds) and dropout chance; 0 otherwise.
    public var gapMeanSeconds: Double
    public var repeatDropout: Double
    /// Replay segments: the recorded user this user follows (index into the segment's table); else −1.
    public var replayUser: Int = -1
    /// The user's platform and answers to it.
    public var platform = PlatformTraits()

    /// The local calendar day of the install, counted from the run's start, for a user at the fixed
    /// offset `utcOffsetSeconds` (see `UserTimeline.localDay`).
    @inlinable var installDayAtFixedOffset: Int { Int(install + (utcOffsetSeconds + 86_400)) / 86_400 - 1 }
}

/// One step of a user's timeline, for whoever watches it (the trace command); the batch run's
/// observer ignores them all, and the compiler removes the calls.
public enum TimelineEvent: Sendable {
    case open(time: Double, cause: OpenCause, coldLaunch: Bool)
    case cronRule(index: Int, matched: Bool)
    /// Rule `index`'s block asked for the App Store review prompt: shown, or not because the user was
    /// shown three in the last 365 days.
    case reviewPrompt(index: Int, shown: Bool)
    case reminderChecked(reminder: Int, state: ReminderState)
    case close(time: Double)
    case scheduled(reminder: Int, notification: PendingNotification, state: ReminderState)
    case ended(reminder: Int, notification: PendingNotification, outcome: NotificationOutcome)
    /// A delivery policy moved a notification's fire time: into the send window, out of quiet hours.
    case moved(reminder: Int, from: Double, to: Double, shifted: Bool, deferred: Bool)
    /// A frequency cap kept a notification from being shown at its fire time.
    case capped(reminder: Int, notification: PendingNotification)
    case responseDrawn(reminder: Int, responds: Bool, probability: Double, optOut: Bool)
    case droppedOut(time: Double)
    /// Platforms: the permission prompt shown, and the answer; a notification not shown for want of
    /// permission; an alarm the system fires later than set; a notification the system discarded
    /// past its pending limit, and its end.
    case permissionAsked(time: Double, granted: Bool)
    case unpermitted(reminder: Int, notification: PendingNotification)
    case alarmDelayed(reminder: Int, from: Double, to: Double, dozed: Bool)
    case dropped(reminder: Int, notification: PendingNotification)
    case discarded(reminder: Int, notification: PendingNotification)
    case revived(time: Double)
    case horizon(time: Double)
}

public enum OpenCause: String, Sendable {
    case install, organic, notification
}

/// Receives timeline events.
public protocol TimelineObserver {
    mutating func record(_ event: @autoclosure () -> TimelineEvent)
}

/// The batch run's observer: records nothing.
public struct NoTimelineObserver: TimelineObserver {
    public init() {}
    public mutating func record(_ event: @autoclosure () -> TimelineEvent) {}
}

/// What a user's run under one configuration tells the paired comparison with the holdout.
public struct UserOutcome: Equatable, Sendable {
    public var opens: Int64 = 0
    /// Bit k − 1 set when the user opened on local day k after install, for k in 1...30.
    public var retainedDays: UInt32 = 0
    /// The opens before the first one a notification brought, set when one does.
    @usableFromInline var opensBeforeFirstResponse: Int32 = 0
    /// The last day k ≤ 30 that ends inside the horizon (0 if none): days 1...k can be measured.
    public var eligibleThrough: Int = 0
    /// Set when the user reached `Scenario.sessionLimit` and was stopped there: the run is refused.
    public var exceededSessionLimit = false
    /// Cold launches, and opens a notification brought.
    public var launches: Int64 = 0
    public var responseOpens: Int64 = 0

    /// Whether the user's opens were the holdout's, one for one: none was brought by a
    /// notification, and the run was not stopped at the session limit.
    @inlinable public var hasHoldoutSessions: Bool { responseOpens == 0 && !exceededSessionLimit }

    /// The opens before the first one a notification brought (all of them if none did): the part of
    /// the run that is the holdout's, open for open. Measures a run's work (`RunWorkMeter`). Worked
    /// out when read, so that a run's end writes nothing into the outcome it returns (the caller's
    /// copy of it would wait for that store).
    @inlinable public var opensBeforeResponse: Int32 {
        responseOpens == 0 ? Int32(truncatingIfNeeded: opens) : opensBeforeFirstResponse
    }

    /// Whether the user opened on day k, for k in 1...30.
    @inlinable public func retained(day k: Int) -> Bool {
        // One test, not two: whether day k is retained is as good as random.
        // Masking shifts: k − 1 and eligibleThrough lie in 0...30.
        retainedDays & (1 &<< UInt32(truncatingIfNeeded: k &- 1)) & ((1 &<< UInt32(truncatingIfNeeded: eligibleThrough)) &- 1) != 0
    }
    @inlinable public func eligible(day k: Int) -> Bool { k <= eligibleThrough }
}

/// Per-worker buffers reused from user to user, so the loop allocates nothing.
public struct TimelineScratch {
    let buffers = TimelineBuffers()
    /// A frequency cap's recent deliveries, sized for the largest cap.
    @usableFromInline var deliveryLog = DeliveryLog(capacity: DeliveryPolicy.FrequencyCap.largestMax)
    /// Whether timelines add the tally's detail counts (per message and period slot, per hour, per
    /// run day, the retention curve): false for a run without the detail (`RunOptions.keepsDetail`),
    /// which leaves them zero.
    var countsDetail = true

    public init() {}

    /// Starts a user: the organic draws cached for the previous one are dropped.
    mutating func beginUser(seed: UInt64, user: Int) {
        buffers.organic.count = 0
        buffers.organic.stream = Xoshiro256(seed: seed, user: UInt64(user), purpose: .organic)
    }
}

extension CompiledModel {
    /// Words of a bitset with one bit per run day.
    var activeDayWords: Int { (horizonDays + 63) / 64 }
}

/// Adds one user's count, opens (organic and brought by a notification), cold launches and daily
/// active users (one on each run day with an open, from the bitset `activeDays`) under one
/// configuration. The timeline counts them once the user's run is over, not open by open.
func addOpens(of o: UserOutcome, activeDays: UnsafePointer<UInt64>, layout: TallyLayout,
              counts: UnsafeMutablePointer<Int64>, detail: Bool) {
    counts[Counter.users.rawValue] &+= 1
    counts[Counter.opens.rawValue] &+= o.opens
    counts[Counter.organicOpens.rawValue] &+= o.opens &- o.responseOpens
    counts[Counter.responseOpens.rawValue] &+= o.responseOpens
    counts[Counter.launches.rawValue] &+= o.launches
    guard detail else { return }
    for w in 0..<layout.activeDayWords {
        var days = activeDays[w]
        while days != 0 {
            counts[layout.daily(w &* 64 &+ days.trailingZeroBitCount)] &+= 1
            days &= days &- 1
        }
    }
}

/// Where the holdout's run of a user can take over from a configuration's: the configuration's
/// state just before a notification first brought the user back. Up to there the two runs are the
/// same, open for open (see `CompiledModel.addHoldout`); from there the holdout goes on to the
/// organic open the notification came before, with the same draws.
struct HoldoutStart {
    /// Sessions so far, and organic draws used; 0 when nothing is kept.
    var sessions = 0
    /// The holdout's next open (infinite if the user had dropped out), and whether it is cold.
    var open = 0.0
    var coldLaunch = false
    /// A replayed user's next recorded visit.
    var nextRecorded = 1
    /// The outcome so far, and the run days with an open (the run's `activeDayWords` words).
    var outcome = UserOutcome()
    let activeDays: UnsafeMutablePointer<UInt64>

    init(activeDays: UnsafeMutablePointer<UInt64>) {
        self.activeDays = activeDays
    }
}

/// A configuration's number of reminders, as the timeline's loops read it.
protocol ReminderCount {
    static func of(_ c: ConfigurationView) -> Int
}

enum NoReminder: ReminderCount {
    @inline(__always) static func of(_ c: ConfigurationView) -> Int { 0 }
}

enum OneReminder: ReminderCount {
    @inline(__always) static func of(_ c: ConfigurationView) -> Int { 1 }
}

enum AnyReminderCount: ReminderCount {
    @inline(__always) static func of(_ c: ConfigurationView) -> Int { c.reminders.count }
}

/// Which rules a user's run may meet, as the timeline's steps read it: most users live at a fixed
/// offset, return with no weekly pattern and are on a platform without rules, and their runs are
/// compiled with none of the checks the others need.
protocol TimelineRules {
    static var general: Bool { get }
}

/// A fixed offset, flat returns, a platform without rules.
enum PlainRules: TimelineRules {
    @inline(__always) static var general: Bool { false }
}

/// Any user: named zones, the return pattern and the platform's rules are checked as the run goes.
enum GeneralRules: TimelineRules {
    @inline(__always) static var general: Bool { true }
}

/// Organic draws are made this many sessions at a time.
let organicBlock = 4

/// The retention curve runs to this day after install.
public let retentionCurveDays = 30

extension CompiledModel {
    /// Draws a user's traits from the user's own traits stream.

    public func traits(user: Int) -> UserTraits {
        var g = Xoshiro256(seed: seed, user: UInt64(user), purpose: .traits)
        let platform = drawsPlatformTraits ? platformTraits(user: user) : PlatformTraits()
        let segment = platformSegments ? (platforms[platform.platform].segmentChoice ?? segmentChoice).sample(&g)
            : segmentChoice.sample(&g)
        let place = offsetChoice.sample(&g)
        let offset = offsetSeconds[place]
        let install = g.nextUnit() * installSpreadSeconds
        var gapMean = 0.0, dropout = 0.0
        if let mixing = segments[segment].mixing {
            (gapMean, dropout) = mixing.draw(&g)
        }
        var replayUser = -1
        if case let .replay(table) = segments[segment].gaps {
            replayUser = g.nextIndex(below: replayTables[table].starts.count)
        }
        return UserTraits(segment: segment, utcOffsetSeconds: offset, zone: offsetZone[place], install: install,
                          gapMeanSeconds: gapMean, repeatDropout: dropout, replayUser: replayUser, platform: platform)
    }

    /// The UTC offset in seconds of a user with `traits` at time `t`, as the run reckons local time.
    public func utcOffset(of traits: UserTraits, at t: Double) -> Double {
        traits.zone < 0 ? traits.utcOffsetSeconds : zones[traits.zone].offset(at: t)
    }

    /// The zone a user's local time follows: its name, or nil at a fixed offset.
    public func zoneName(of traits: UserTraits) -> String? {
        traits.zone < 0 ? nil : zones[traits.zone].name
    }

    /// Whether a user's run needs the general timeline: a named zone, a return pattern, or a
    /// platform with rules.
    func needsGeneralRules(_ traits: UserTraits) -> Bool {
        traits.zone >= 0 || returnPattern != nil || platforms[traits.platform.platform].hasRules
            || Self.forcesGeneralRules
    }

    /// Tests set it to check that the plain timeline and the general one agree.
    nonisolated(unsafe) static var forcesGeneralRules = false



    /// Simulates one user under one configuration and adds the user's counts to `counts`.
    ///
    /// The organic stream is drawn in the same order whatever the configuration (session length,
    /// dropout, gap at every session), so configurations share the holdout's randomness for as
    /// long as the reminders do not change what the user does.
    public func simulate<O: TimelineObserver>(
        user: Int, traits: UserTraits, configuration c: CompiledConfiguration, layout: TallyLayout,
        counts: UnsafeMutablePointer<Int64>, scratch: inout TimelineScratch, observer: inout O
    ) -> UserOutcome {
        scratch.beginUser(seed: seed, user: user)
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: activeDayWords) { days in
            withExtendedLifetime(c) {
                simulateSharingDraws(user: user, traits: traits, configuration: c.viewPointer, layout: layout, counts: counts,
                                     activeDays: days.baseAddress!, scratch: &scratch, observer: &observer)
            }
        }
    }

    /// `simulate`, reusing the organic draws already in `scratch` for this user (the k-th session
    /// draws the same values under every configuration, so they are drawn once per user and read
    /// back by the other configurations). The caller starts each user with `beginUser` and keeps
    /// the configuration of `c` alive. The run days (UTC) the user opens the app are set as bits
    /// in `activeDays` (`activeDayWords` words, cleared here).
    ///
    /// A configuration's run keeps in `keep` where the holdout's run can start from (see
    /// `HoldoutStart`); the holdout's run starts `from` there, or at the install when it is nil.
    func simulateSharingDraws<O: TimelineObserver>(
        user: Int, traits: UserTraits, configuration c: UnsafePointer<ConfigurationView>, layout: TallyLayout,
        counts: UnsafeMutablePointer<Int64>, activeDays: UnsafeMutablePointer<UInt64>,
        scratch: inout TimelineScratch, observer: inout O,
        keep: UnsafeMutablePointer<HoldoutStart>? = nil, from start: UnsafePointer<HoldoutStart>? = nil
    ) -> UserOutcome {
        activeDays.update(repeating: 0, count: activeDayWords)
        let buffers = scratch.buffers
        let states = buffers.states(c.pointee.reminders.count)
        let ruleBlockRuns = buffers.ruleBlockRuns(c.pointee.rules.count)
        var organic = buffers.organic
        // The buffer may have moved as it grew: its owner keeps the new one.
        defer { buffers.organic = organic }
        guard c.pointee.delivery.frequencyCap != nil else {
            return run(user: user, traits: traits, c, states, ruleBlockRuns, &organic, log: nil, layout: layout,
                       counts: counts, activeDays: activeDays, keep: keep, from: start,
                       pendingScratch: buffers.pendingScratch, countsDetail: scratch.countsDetail, &observer)
        }
        // Only a frequency cap needs the log of recent deliveries: it leaves `scratch` like the buffers.
        var log = DeliveryLog.unused
        swap(&log, &scratch.deliveryLog)
        defer { swap(&log, &scratch.deliveryLog) }
        log.reset()
        return withUnsafeMutablePointer(to: &log) { log in
            run(user: user, traits: traits, c, states, ruleBlockRuns, &organic, log: log, layout: layout, counts: counts,
                activeDays: activeDays, keep: keep, from: start, pendingScratch: buffers.pendingScratch,
                countsDetail: scratch.countsDetail, &observer)
        }
    }

    private func run<O: TimelineObserver>(
        user: Int, traits: UserTraits, _ c: UnsafePointer<ConfigurationView>, _ states: UnsafeMutableBufferPointer<ReminderState>,
        _ ruleBlockRuns: UnsafeMutableBufferPointer<Int64>, _ organic: inout OrganicDrawCache,
        log: UnsafeMutablePointer<DeliveryLog>?, layout: TallyLayout, counts: UnsafeMutablePointer<Int64>,
        activeDays: UnsafeMutablePointer<UInt64>, keep: UnsafeMutablePointer<HoldoutStart>?,
        from start: UnsafePointer<HoldoutStart>?, pendingScratch: PendingScratch, countsDetail: Bool, _ observer: inout O
    ) -> UserOutcome {
        // Most configurations have one reminder, the holdout none: with the count known to the
        // compiler, the loops over reminders disappear from the loop over sessions.
        func run<Count: ReminderCount, Rules: TimelineRules>(_: Count.Type, _: Rules.Type) -> UserOutcome {
            var timeline = UserTimeline<Count, Rules>(
                model: self, user: user, traits: traits, configuration: c, organic: organic, states: states,
                ruleBlockRuns: ruleBlockRuns, deliveryLog: log, layout: layout, counts: counts, activeDays: activeDays,
                holdoutStart: keep, pendingScratch: pendingScratch, countsDetail: countsDetail)
            defer { organic = timeline.organic }
            return timeline.run(&observer, from: start)
        }
        if needsGeneralRules(traits) {
            switch c.pointee.reminders.count {
            case 0: return run(NoReminder.self, GeneralRules.self)
            case 1: return run(OneReminder.self, GeneralRules.self)
            default: return run(AnyReminderCount.self, GeneralRules.self)
            }
        }
        switch c.pointee.reminders.count {
        case 0: return run(NoReminder.self, PlainRules.self)
        case 1: return run(OneReminder.self, PlainRules.self)
        default: return run(AnyReminderCount.self, PlainRules.self)
        }
    }
}

/// The organic draws of one session, made in this order after every session whatever happens next:
/// its length, whether the user drops out after it, and the gap to the next organic open.
struct OrganicDraws {
    var length: Double
    var gap: Double
    var dropsOut: Bool
}

/// One user's organic draws so far, session after session, and the organic stream after them.
///
/// The buffer is plain memory, so that the loop writes and reads it with no reference counting
/// or uniqueness checks; it only grows, is reused from user to user, and belongs to an
/// worker's `TimelineBuffers`, which take the cache back (with the buffer wherever it moved) after
/// each run and free it at the end.
struct OrganicDrawCache {
    var draws: UnsafeMutablePointer<OrganicDraws>
    var count = 0
    var capacity: Int
    var stream = Xoshiro256(state: (1, 0, 0, 0))

    /// Makes room for `n` more draws.
    mutating func reserve(_ n: Int) {
        guard count + n > capacity else { return }
        let larger = max(2 * capacity, count + n)
        let moved = UnsafeMutablePointer<OrganicDraws>.allocate(capacity: larger)
        moved.moveInitialize(from: draws, count: count)
        draws.deallocate()
        (draws, capacity) = (moved, larger)
    }
}

/// A worker's per-user buffers in plain memory, so that the loop reads and writes them with no
/// reference counting or uniqueness checks: the organic draws (`OrganicDrawCache`), and room for the
/// reminder states and per-rule block runs of the largest configuration a scenario may have.
final class TimelineBuffers {
    var organic: OrganicDrawCache
    private let states: UnsafeMutablePointer<ReminderState>
    private let blockRuns: UnsafeMutablePointer<Int64>
    /// Room for the platform's pending limit: which notifications the system discarded, and an order.
    let pendingScratch: PendingScratch
    /// The holdout's sessions of the current user, for the configurations that ride on them.
    let sessions: UnsafeMutablePointer<HoldoutSessions>

    init() {
        let capacity = 256
        organic = OrganicDrawCache(draws: .allocate(capacity: capacity), capacity: capacity)
        states = .allocate(capacity: ConfigurationSpec.maximumReminders)
        states.initialize(repeating: ReminderState(), count: ConfigurationSpec.maximumReminders)
        blockRuns = .allocate(capacity: ConfigurationSpec.maximumCronRules)
        blockRuns.initialize(repeating: 0, count: ConfigurationSpec.maximumCronRules)
        pendingScratch = PendingScratch(
            dropped: .allocate(capacity: ConfigurationSpec.maximumReminders),
            order: .allocate(capacity: ConfigurationSpec.maximumReminders), alarms: .allocate(capacity: 1),
            responseStart: .allocate(capacity: 1))
        pendingScratch.alarms.initialize(to: AlarmDraws(seed: 0, user: 0))
        pendingScratch.responseStart.initialize(to: StreamStart(seed: 0, user: 0))
        pendingScratch.dropped.initialize(repeating: false, count: ConfigurationSpec.maximumReminders)
        pendingScratch.order.initialize(repeating: 0, count: ConfigurationSpec.maximumReminders)
        sessions = .allocate(capacity: 1)
        sessions.initialize(to: HoldoutSessions(capacity: 256))
    }

    deinit {
        sessions.pointee.deallocate()
        sessions.deallocate()
        organic.draws.deallocate()
        states.deallocate()
        blockRuns.deallocate()
        pendingScratch.dropped.deallocate()
        pendingScratch.order.deallocate()
        pendingScratch.alarms.deallocate()
        pendingScratch.responseStart.deallocate()
    }

    /// The first `n` reminder states, each as a new reminder's.
    func states(_ n: Int) -> UnsafeMutableBufferPointer<ReminderState> {
        precondition(n <= ConfigurationSpec.maximumReminders, "TimelineBuffers: too many reminders")
        let b = UnsafeMutableBufferPointer(start: states, count: n)
        b.update(repeating: ReminderState())
        return b
    }

    /// The first `n` rules' block runs, all zero.
    func ruleBlockRuns(_ n: Int) -> UnsafeMutableBufferPointer<Int64> {
        precondition(n <= ConfigurationSpec.maximumCronRules, "TimelineBuffers: too many cron rules")
        let b = UnsafeMutableBufferPointer(start: blockRuns, count: n)
        b.update(repeating: 0)
        return b
    }
}

/// Per-worker memory a timeline writes besides its counts: where the pending limit keeps its marks
/// (per reminder, whether the system discarded its notification, and room to order the pending
/// ones), the platform's alarm draws, and the user's response stream at its start.
struct PendingScratch {
    let dropped: UnsafeMutablePointer<Bool>
    let order: UnsafeMutablePointer<Int>
    let alarms: UnsafeMutablePointer<AlarmDraws>
    /// The response stream's start for the last (seed, user) that asked: the same under every
    /// configuration of a user, so it is worked out once per user rather than once per configuration.
    let responseStart: UnsafeMutablePointer<StreamStart>
}

/// A stream's state at its start, and the key it was made for.
struct StreamStart {
    var seed: UInt64
    var user: UInt64
    var made = false
    var stream = Xoshiro256(state: (1, 0, 0, 0))
}

/// What the platform's rules act on after a close, apart from the timeline.
struct PlatformStep {
    let states: UnsafeMutableBufferPointer<ReminderState>
    let count: Int
    let delaysAlarms, mayDrop: Bool
    let alarms: UnsafeMutablePointer<AlarmDraws>
    let platform: UnsafePointer<CompiledPlatform>
    let phase: Double
    let counts: UnsafeMutablePointer<Int64>
    let scratch: PendingScratch
}

/// A session just closed: when, when the user would come back on their own, and whether the user
/// dropped out after it.
struct ClosedSession {
    var close: Double
    var organicNext: Double
    var dropsOut: Bool
}

/// One user's run under one configuration: the constants the loop reads and the user's state, so
/// that each step is a method of its own and, once inlined into `run()`, the state lives in
/// registers.
///
/// The steps, in the order of a user's life: `open` (counts, cron rules, the reminder engine's
/// check), `session` (its length and the organic draws), `close` (the reminder engine schedules),
/// `fire` (notifications fire in time order while the user is away) with `respond` (whether a
/// delivered one brings the user back), then the next open or the end of the horizon.
struct UserTimeline<Count: ReminderCount, Rules: TimelineRules> {
    // Constants of the run.
    /// The user's segment: return process, session lengths, dropout, cold-launch threshold.
    let segment: UnsafePointer<CompiledSegment>
    let empiricalSeconds: UnsafeBufferPointer<Double>
    let empiricalCumulative: UnsafeBufferPointer<Double>
    /// The samplers of segments whose gaps are `GapSampler.other`.
    let otherGaps: UnsafeBufferPointer<any ContinuousDistribution>
    let responsePointer: UnsafePointer<CompiledResponse>
    @inline(__always) var response: CompiledResponse { _read { yield responsePointer.pointee } }
    /// The run covers [0, horizon): an event at the horizon itself is outside it.
    let horizon: Double
    /// The most sessions the user may have (`Scenario.sessionLimit`).
    let sessionLimit: Int
    /// The UTC offset plus one day: `t + dayOrigin` is positive for every time of the run (offsets
    /// lie within −12...14 hours), so whole seconds are found by truncation and days by integer
    /// division, ⌊⌊y⌋ / 86,400⌋ = ⌊y / 86,400⌋, with no call to `floor` and no floating division.
    /// For a user in a named zone, the offset at the run's start: `localSeconds` reads the zone.
    let dayOrigin: Double
    /// The user's named zone, whose offset changes with daylight saving time; nil at a fixed offset.
    let zone: ZoneView?
    /// The return pattern, nil when returns are flat.
    let pattern: PatternView?
    /// The user's install time, BG/NBD gap mean and repeat dropout.
    let traits: UserTraits
    let installDay: Int
    /// The configuration: its reminders, cron rules (in registration order) and which of them match
    /// at a launch, message and period slots, and the delivery policies around the engines; read
    /// where it lies (`CompiledConfiguration.viewPointer`) rather than copied.
    let configPointer: UnsafePointer<ConfigurationView>
    @inline(__always) var config: ConfigurationView { _read { yield configPointer.pointee } }
    let states: UnsafeMutableBufferPointer<ReminderState>
    /// Per cron rule, the user's block runs so far.
    let ruleBlockRuns: UnsafeMutableBufferPointer<Int64>
    let layout: TallyLayout
    let counts: UnsafeMutablePointer<Int64>
    /// Whether to add the tally's detail counts (`TimelineScratch.countsDetail`).
    let countsDetail: Bool
    /// The run days (UTC) the user opened the app, as bits.
    let activeDays: UnsafeMutablePointer<UInt64>
    let movesFireTimes: Bool
    /// Set when the configuration has a frequency cap.
    let deliveryLog: UnsafeMutablePointer<DeliveryLog>?
    /// Where to keep the holdout's start, if the caller wants it.
    let holdoutStart: UnsafeMutablePointer<HoldoutStart>?

    // The user's random streams.
    /// The user's organic draws, shared with the other configurations; `drawn` of them used here.
    var organic: OrganicDrawCache
    var drawn = 0
    /// Seeded at the first delivery: most users of most configurations never need it.
    var responseStream = Xoshiro256(state: (1, 0, 0, 0))
    var responseSeeded = false
    /// Seeded only when a reminder picks messages at random.
    var messageStream = Xoshiro256(state: (1, 0, 0, 0))
    let seed: UInt64
    let user: UInt64

    // The user's state.
    var result = UserOutcome()
    var dormant = false
    var optedOut = false
    /// fatigue^k, k = notifications delivered since the last organic open.
    var fatigueFactor = 1.0
    var unclaimedDelivery = -Double.infinity
    /// Local minute of the day of the most recent organic open (the install included), for a send
    /// window at the user's usual hour.
    var usualMinute: Int?
    var sessionIndex = 0
    var counters = LaunchCounters()
    /// The cron rules whose block has run for the user, as bits.
    var rulesRan: UInt64 = 0
    /// The App Store review prompts the user was shown, and the rules that had one shown, as bits.
    var reviewPromptLog = ReviewPromptLog()
    var rulesShown: UInt64 = 0
    /// Whether a configuration riding on the holdout's sessions runs its cron rules at their cold
    /// launches itself, rather than taking their answers from a `LaunchTrace`.
    var launchesAlone = true
    /// A replayed user's recorded visits, as times since install; the first is the install.
    var recorded = UnsafeBufferPointer<Double>(start: nil, count: 0)
    var nextRecorded = 1
    /// A live test's plan switches the configuration at the user's first open at or after this time
    /// (`CompiledModel.simulateLiveTest`): the run stops before that open and keeps it in `handOver`.
    /// Infinite for every other run.
    var switchTime = Double.infinity
    var handOver: HandOver?

    // The platform's rules (docs/scenario.md, "Platforms").
    let platform: UnsafePointer<CompiledPlatform>
    /// Notifications firing before this time find no permission: −∞ when the user may receive them
    /// from the install, +∞ until the user allows them (for good if the user never does).
    var permittedFrom = -Double.infinity
    /// Set until the permission prompt's rule first matches.
    var askPending = false
    /// Whether the configuration may have more notifications pending than the platform keeps.
    let mayDrop: Bool
    let pendingScratch: PendingScratch
    /// Whether the platform moves alarms (Android's inexact alarms), and the stream of their delays,
    /// seeded at the first one.
    let delaysAlarms: Bool
    /// The stream of the alarms' delays, in the worker's buffers, so that the rare steps that use
    /// it never need the whole timeline in memory.
    let alarms: UnsafeMutablePointer<AlarmDraws>

    init(model: CompiledModel, user: Int, traits: UserTraits, configuration cp: UnsafePointer<ConfigurationView>,
         organic: OrganicDrawCache, states: UnsafeMutableBufferPointer<ReminderState>,
         ruleBlockRuns: UnsafeMutableBufferPointer<Int64>, deliveryLog: UnsafeMutablePointer<DeliveryLog>?, layout: TallyLayout,
         counts: UnsafeMutablePointer<Int64>, activeDays: UnsafeMutablePointer<UInt64>,
         holdoutStart: UnsafeMutablePointer<HoldoutStart>?, pendingScratch: PendingScratch, countsDetail: Bool = true,
         installDay knownInstallDay: Int? = nil) {
        alarms = pendingScratch.alarms
        segment = model.frozenSegments.buffer.baseAddress! + traits.segment
        empiricalSeconds = model.frozenSeconds.buffer
        empiricalCumulative = model.frozenCumulative.buffer
        otherGaps = model.frozenOtherGaps.buffer
        responsePointer = model.frozenResponse.buffer.baseAddress!
        horizon = model.horizonSeconds
        sessionLimit = model.sessionLimit
        dayOrigin = traits.utcOffsetSeconds + 86_400
        zone = Rules.general && traits.zone >= 0 ? model.zones[traits.zone].view : nil
        pattern = Rules.general ? model.returnPattern?.view : nil
        self.traits = traits
        assert(knownInstallDay == nil || knownInstallDay == Self.installDay(traits, zone: zone), "another install day")
        installDay = knownInstallDay ?? Self.installDay(traits, zone: zone)
        self.states = states
        self.ruleBlockRuns = ruleBlockRuns
        configPointer = cp
        self.layout = layout
        self.counts = counts
        self.countsDetail = countsDetail
        self.activeDays = activeDays
        self.organic = organic
        movesFireTimes = cp.pointee.delivery.movesFireTimes
        self.deliveryLog = deliveryLog
        self.holdoutStart = holdoutStart
        platform = model.frozenPlatforms.buffer.baseAddress! + traits.platform.platform
        mayDrop = cp.pointee.reminders.count > platform.pointee.pendingLimit
        delaysAlarms = platform.pointee.delaysAlarms
        self.pendingScratch = pendingScratch
        if mayDrop { pendingScratch.dropped.update(repeating: false, count: cp.pointee.reminders.count) }
        if delaysAlarms { alarms.pointee = AlarmDraws(seed: model.seed, user: UInt64(user)) }
        seed = model.seed
        self.user = UInt64(user)
        if cp.pointee.randomMessages {
            messageStream = Xoshiro256(seed: model.seed, user: UInt64(user), purpose: .message)
        }
        if case let .replay(table) = segment.pointee.gaps {
            let t = model.replayTables[table]
            let first = t.starts[traits.replayUser]
            recorded = UnsafeBufferPointer(rebasing: model.frozenReplayOffsets[table].buffer[first..<(first + t.counts[traits.replayUser])])
        }
    }

    /// The local calendar day of the install, counted from the run's start (see `localDay`).
    @inline(__always)
    static func installDay(_ traits: UserTraits, zone: ZoneView?) -> Int {
        zone.map { Int(traits.install + ($0.offset(at: traits.install) + 86_400)) / 86_400 - 1 } ?? traits.installDayAtFixedOffset
    }

    /// The configuration's number of reminders.
    @inline(__always) var reminderCount: Int { Count.of(config) }
    @inline(__always) func add(_ index: Int) { counts[index] &+= 1 }
    @inline(__always) func add(_ counter: Counter) { counts[counter.rawValue] &+= 1 }
    /// The user's UTC offset at time `t`.
    @inline(__always) func offset(at t: Double) -> Double {
        if Rules.general, let zone { return zone.offset(at: t) }
        return dayOrigin - 86_400
    }
    /// The local clock at time `t` (≥ 0) in seconds from the run's start day's local midnight, plus one day.
    @inline(__always) func localSeconds(_ t: Double) -> Double {
        if Rules.general, let zone { return t + (zone.offset(at: t) + 86_400) }
        return t + dayOrigin
    }
    /// The local calendar day of time `t` (≥ 0), counted from the run's start.
    @inline(__always) func localDay(_ t: Double) -> Int { Int(localSeconds(t)) / 86_400 - 1 }
    /// The local clock hour (0...23) of time `t` (≥ 0).
    @inline(__always) func localHour(_ t: Double) -> Int { Int(localSeconds(t)) % 86_400 / 3_600 }

    /// Counts how a notification of reminder `r` ended.
    @inline(__always)
    mutating func outcome<O: TimelineObserver>(
        _ r: Int, _ n: PendingNotification, _ o: NotificationOutcome, _ observer: inout O
    ) {
        let slot: SlotCounter
        if Rules.general && mayDrop && pendingScratch.dropped[r] {
            // The system discarded it when it was scheduled: whatever the engine thinks became of it,
            // it was never shown.
            pendingScratch.dropped[r] = false
            slot = .dropped
            add(.dropped)
            observer.record(.discarded(reminder: r, notification: n))
        } else {
            switch o {
            case .cancelled: slot = .cancelled; add(.cancelled)
            case .delivered: slot = .delivered; add(.delivered)
            case .foreground: slot = .foreground; add(.foreground)
            case .suppressed: slot = .suppressed; add(.suppressed)
            case .censored: slot = .censored; add(.censored)
            }
            observer.record(.ended(reminder: r, notification: n, outcome: o))
        }
        if countsDetail {
            add(layout.message(config.messageBase[r] + n.messageIndex, slot))
            add(layout.period(config.periodBase[r] + n.periodIndex, slot))
        }
    }

    /// The whole timeline, from the install (or from where the holdout takes over a configuration's
    /// run, `start`) to the horizon.
    @inline(__always)
    mutating func run<O: TimelineObserver>(_ observer: inout O, from start: UnsafePointer<HoldoutStart>?) -> UserOutcome {
        startOutcome()
        if let start {
            let s = start.pointee
            precondition(config.reminders.isEmpty && config.rules.isEmpty, "UserTimeline: only the holdout takes over")
            (result, sessionIndex, drawn, nextRecorded) = (s.outcome, s.sessions, s.sessions, s.nextRecorded)
            activeDays.update(from: s.activeDays, count: layout.activeDayWords)
            if s.open < horizon {
                live(from: s.open, cause: .organic, coldLaunch: s.coldLaunch, &observer)
            } else {
                endAtHorizon(&observer)
            }
        } else {
            if Rules.general && reminderCount > 0 && platform.pointee.asksPermission { awaitPermission(&observer) }
            live(from: traits.install, cause: .install, coldLaunch: true, &observer)
        }
        return finish()
    }

    /// The outcome before the first open: the days of the retention curve the horizon lets it show.
    @inline(__always)
    mutating func startOutcome() {
        // Day k counts only if it ends inside the horizon.
        let lastWholeDay = localDay(horizon) - 1 - installDay
        result.eligibleThrough = max(0, min(retentionCurveDays, lastWholeDay))
    }

    /// The run is over: counts what is counted once per user (opens, daily active users, the cron
    /// rules' evaluations), and returns the outcome.
    @inline(__always)
    mutating func finish() -> UserOutcome {
        addOpens(of: result, activeDays: activeDays, layout: layout, counts: counts, detail: countsDetail)
        // Every rule is evaluated at every launch, so its evaluations are the user's launches, and
        // those where its block did not run ran its else-block.
        let launches = Int64(counters.totalLaunches)
        for rule in 0..<config.rules.count {
            counts[layout.rule(rule, .evaluated)] &+= launches
            counts[layout.rule(rule, .blockRuns)] &+= ruleBlockRuns[rule]
            counts[layout.rule(rule, .elseRuns)] &+= launches &- ruleBlockRuns[rule]
        }
        return result
    }

    /// Session after session, from an open at `openTime` (before the horizon) to the horizon.
    @inline(__always)
    mutating func live<O: TimelineObserver>(from openTime: Double, cause: OpenCause, coldLaunch: Bool, _ observer: inout O) {
        var openTime = openTime, cause = cause, coldLaunch = coldLaunch
        while true {
            // A bounded number of sessions per user keeps every run's time proportional to users × days.
            if sessionIndex >= sessionLimit {
                result.exceededSessionLimit = true
                break
            }
            if openTime >= switchTime {
                handOver = HandOver(open: openTime, cause: cause, coldLaunch: coldLaunch)
                break
            }
            open(at: openTime, cause: cause, coldLaunch: coldLaunch, &observer)
            guard let session = session(openedAt: openTime, &observer) else { break }
            close(session, &observer)
            // When the user would be back on their own; most sessions end with nothing due before
            // it, and then there is no need to walk `fire`.
            let organicOpen = dormant ? Double.infinity : session.organicNext
            let (next, responder) = dueBefore(organicOpen) ? fire(until: organicOpen, &observer) : (organicOpen, nil)
            if next >= horizon {
                endAtHorizon(&observer)
                break
            }
            if case let (r, n)? = responder {
                if result.responseOpens == 0 && holdoutStart != nil {
                    keepHoldoutStart(organicOpen, after: session)
                }
                brought(back: r, by: n, at: next, &observer)
            }
            coldLaunch = next - session.close >= segment.pointee.coldLaunchSeconds
            openTime = next
            cause = responder == nil ? .organic : .notification
        }
    }

    /// A notification is about to bring the user back for the first time, before `organicOpen`,
    /// when the user would have come back on their own after `session`: up to here the holdout's
    /// run is this one. Kept if it goes further than what another configuration kept.
    @inline(never)
    mutating func keepHoldoutStart(_ organicOpen: Double, after session: ClosedSession) {
        guard let h = holdoutStart, sessionIndex > h.pointee.sessions else { return }
        h.pointee.sessions = sessionIndex
        h.pointee.open = organicOpen
        h.pointee.coldLaunch = organicOpen - session.close >= segment.pointee.coldLaunchSeconds
        h.pointee.nextRecorded = nextRecorded
        h.pointee.outcome = result
        h.pointee.activeDays.update(from: activeDays, count: layout.activeDayWords)
    }

    /// The app opens: counts, the cron rules on a cold launch, and the reminder engine's check.
    @inline(__always)
    mutating func open<O: TimelineObserver>(
        at openTime: Double, cause: OpenCause, coldLaunch: Bool, _ observer: inout O
    ) {
        observer.record(.open(time: openTime, cause: cause, coldLaunch: coldLaunch))
        let today = openUser(at: openTime, cause: cause)
        let sinceInstall = today - installDay
        if cause != .notification {
            fatigueFactor = 1
            if movesFireTimes { usualMinute = Int(localSeconds(openTime)) % 86_400 / 60 }
        }
        if openTime - unclaimedDelivery <= response.attributionSeconds {
            add(.attributed)
            unclaimedDelivery = -.infinity
        }
        if coldLaunch {
            result.launches &+= 1
            // The launch counters: for the cron rules, and for a permission prompt asked by a rule.
            if !config.rules.isEmpty || (Rules.general && askPending) {
                counters.recordLaunch(onDay: today)
                if !config.rules.isEmpty { launchRules(at: openTime, onDay: today, sinceInstall: sinceInstall, &observer) }
                // Asked at the install: at the first launch, whatever the counters.
                if Rules.general && askPending, platform.pointee.askRule?.matches(counters) ?? true { ask(at: openTime, &observer) }
            }
        }
        for r in 0..<reminderCount {
            // A notification that fired while the user was away was counted when it fired.
            config.reminders[r].becameActive(at: openTime, state: &states[r], coldLaunch: coldLaunch)
            let state = states[r]
            observer.record(.reminderChecked(reminder: r, state: state))
        }
    }

    /// What an open changes of the user whatever the configuration (but a cold launch's count):
    /// opens, run days and retention days, counted once the user's run is over by `addOpens`.
    /// Returns the open's local day.
    @inline(__always)
    mutating func openUser(at openTime: Double, cause: OpenCause) -> Int {
        result.opens &+= 1
        if cause == .notification { result.responseOpens &+= 1 }
        // Whether an open falls on days 1...30 is as good as random, so it is recorded without a
        // branch the processor would mispredict.
        let utcDay = Int(openTime) / 86_400
        activeDays[utcDay &>> 6] |= 1 &<< UInt64(utcDay & 63)
        let today = localDay(openTime)
        let bit = UInt32(truncatingIfNeeded: today - installDay &- 1)
        result.retainedDays |= bit < UInt32(retentionCurveDays) ? 1 << bit : 0
        return today
    }

    /// A cold launch through the cron engine, as `CronTable.launch` does it: the launch is counted
    /// (by the caller), then each rule's block or else-block runs (`CronLaunchTable` gives which, as the engine
    /// answers). The block runs are kept per user and counted, with the else-block runs and the
    /// evaluations, in `run()`. Rules marked for the review prompt whose block ran ask for it.
    @inline(__always)
    mutating func launchRules<O: TimelineObserver>(at time: Double, onDay today: Int, sinceInstall: Int, _ observer: inout O) {
        let matched = config.cronTable.matches(config.rules, counters)
        var ran = matched
        while ran != 0 {
            ruleBlockRuns[ran.trailingZeroBitCount] &+= 1
            ran &= ran &- 1
        }
        for rule in 0..<config.rules.count {
            observer.record(.cronRule(index: rule, matched: matched & 1 << UInt64(rule) != 0))
        }
        let asked = matched & config.reviewPrompts
        if asked != 0 { askForReview(asked, at: time, &observer) }
        // The rules whose block runs for the user's first time.
        var first = matched & ~rulesRan
        if first != 0 {
            rulesRan |= first
            let day = min(max(sinceInstall, 0), layout.days)
            while first != 0 {
                let rule = first.trailingZeroBitCount
                add(layout.rule(rule, .usersRan))
                add(layout.firstRun(rule, day: day))
                first &= first &- 1
            }
        }
    }

    /// The rules in `asked` ask for the App Store review prompt at `time`, in rule order: each is shown
    /// while the user was shown fewer than three in the last 365 days (`ReviewPromptLog`), else not.
    /// The engine ran their blocks either way.
    @inline(never)
    mutating func askForReview<O: TimelineObserver>(_ asked: UInt64, at time: Double, _ observer: inout O) {
        var asked = asked
        while asked != 0 {
            let rule = asked.trailingZeroBitCount
            asked &= asked &- 1
            let shown = reviewPromptLog.ask(at: time)
            observer.record(.reviewPrompt(index: rule, shown: shown))
            guard shown else { continue }
            add(layout.prompt(rule, .shown))
            let bit: UInt64 = 1 << UInt64(rule)
            if rulesShown & bit == 0 {
                rulesShown |= bit
                add(layout.prompt(rule, .usersShown))
            }
        }
    }

    /// The session opened at `openTime`, and the organic draws made after every session whatever
    /// happens next. Nil when the session is still open at the horizon: it never closes, and what
    /// is pending fires in it or never.
    @inline(__always)
    mutating func session<O: TimelineObserver>(openedAt openTime: Double, _ observer: inout O) -> ClosedSession? {
        let draws = drawOrganic()
        let length = draws.length, gap = draws.gap
        let close = openTime + length
        var organicNext = close + gap
        if Rules.general, let pattern {
            organicNext = patterned(close: close, gap: gap, pattern)
        }
        if !recorded.isEmpty {
            // Recorded visits that fell inside the session just closed are part of it; a visit a
            // notification brought in between recorded ones is an extra one.
            while nextRecorded < recorded.count, traits.install + recorded[nextRecorded] <= close {
                nextRecorded += 1
            }
            organicNext = nextRecorded < recorded.count
                ? traits.install + recorded[nextRecorded] : .infinity
        }
        if close >= horizon {
            endInSession(&observer)
            let end = horizon
            observer.record(.horizon(time: end))
            return nil
        }
        return ClosedSession(close: close, organicNext: organicNext, dropsOut: draws.dropsOut)
    }

    /// The session is still open at the horizon: what is pending fires in it (while the app is in
    /// use) or after the horizon.
    @inline(__always)
    mutating func endInSession<O: TimelineObserver>(_ observer: inout O) {
        for r in 0..<reminderCount {
            if let n = states[r].pending {
                outcome(r, n, n.fireTime >= horizon ? .censored : .foreground, &observer)
            }
        }
    }

    /// One session's organic draws: its length, whether the user drops out, the gap to the next
    /// organic open.
    @inline(__always)
    mutating func drawOrganic() -> OrganicDraws {
        drawn += 1
        if drawn > organic.count { drawOrganicBlock() }
        return organic.draws[drawn &- 1]
    }

    /// The next `organicBlock` sessions' organic draws, in the stream's order. The draws of one
    /// session depend on nothing the simulation does, so drawing several in a row lets the
    /// processor overlap them; the few drawn past the user's last session are never read. The
    /// session lengths' exponentials, the slowest part, are taken after the block's draws, in a
    /// loop of their own with nothing between them.
    @inline(never)
    mutating func drawOrganicBlock() {
        organic.reserve(organicBlock)
        // The stream and the constants are read into locals: the compiler cannot tell the block's
        // stores from `self`, and would otherwise keep the stream's state in memory between draws.
        var stream = organic.stream
        defer { organic.stream = stream }
        let block = organic.draws + organic.count
        let first = organic.count
        organic.count &+= organicBlock
        let session = segment.pointee.session
        // Only BG/NBD and Pareto/NBD users have a chance of dropping out of their own.
        let repeatDropout = traits.repeatDropout > 0
        // An infinite gap (a draw past the longest return ever recorded, or an exponential that
        // overflows) is a dropout.
        switch segment.pointee.gaps {
        case let .exponential(d):
            fill(block, first, &stream, session, repeatDropout) { d.sample(&$0) }
        case let .weibull(d):
            fill(block, first, &stream, session, repeatDropout, final: false) { d.exponentSample(&$0) }
            for k in 0..<organicBlock {
                block[k].gap = d.value(ofExponent: block[k].gap)
                block[k].dropsOut = block[k].dropsOut || block[k].gap.isInfinite
            }
        case let .lognormal(d):
            fill(block, first, &stream, session, repeatDropout, final: false) { d.logSample(&$0) }
            for k in 0..<organicBlock {
                block[k].gap = d.value(ofLog: block[k].gap)
                block[k].dropsOut = block[k].dropsOut || block[k].gap.isInfinite
            }
        case .bgnbd:
            let (mean, exponential) = (traits.gapMeanSeconds, Ziggurat.exponential)
            fill(block, first, &stream, session, repeatDropout) { mean * $0.nextStandardExponential(using: exponential) }
        case let .empirical(start, count):
            let (seconds, cumulative) = (empiricalSeconds, empiricalCumulative)
            fill(block, first, &stream, session, repeatDropout) {
                EmpiricalTables.sample(seconds: seconds, cumulative: cumulative, start: start, count: count, u: $0.nextUnit())
            }
        case let .kaplanMeier(start, count):
            let (seconds, cumulative) = (empiricalSeconds, empiricalCumulative)
            fill(block, first, &stream, session, repeatDropout) {
                EmpiricalTables.sampleOrNever(seconds: seconds, cumulative: cumulative, start: start, count: count,
                                              u: $0.nextUnit())
            }
        case .replay:
            fill(block, first, &stream, session, repeatDropout) { _ in 0 }
        case let .other(index):
            // A sampler known only by its protocol, drawn from through `sample`.
            let d = otherGaps[index]
            fill(block, first, &stream, session, repeatDropout) { d.sample(&$0) }
        }
    }

    /// Fills `block`, the draws of sessions `first...` of the user, with `organicBlock` sessions'
    /// draws in the stream's order (the length's logarithm, the dropout draws, the gap or, for
    /// Weibull and lognormal gaps, the exponent whose exponential the caller takes), then takes the
    /// lengths' exponentials in a loop of their own. The user drops out after a session with
    /// the segment's chance, after a repeat visit (every session but the first) with the user's
    /// own BG/NBD chance (after the install too for Pareto/NBD), and, when `final` says the gap drawn
    /// is the gap, if it is infinite.
    @inline(__always)
    func fill(_ block: UnsafeMutablePointer<OrganicDraws>, _ first: Int, _ stream: inout Xoshiro256,
              _ session: LogNormalDistribution, _ repeatDropout: Bool, final: Bool = true,
              gap: (inout Xoshiro256) -> Double) {
        let dropoutPerSession = segment.pointee.dropoutPerSession, repeatChance = traits.repeatDropout
        let ownDropoutFrom = segment.pointee.ownDropoutAfterInstall ? 0 : 1
        for k in 0..<organicBlock {
            let logLength = session.logSample(&stream)
            let dropout = stream.nextUnit()
            let again = repeatDropout ? stream.nextUnit() : 1
            let g = gap(&stream)
            let dropsOut = dropout < dropoutPerSession || (first &+ k >= ownDropoutFrom && again < repeatChance)
                || (final && g.isInfinite)
            block[k] = OrganicDraws(length: logLength, gap: g, dropsOut: dropsOut)
        }
        for k in 0..<organicBlock { block[k].length = session.value(ofLog: block[k].length) }
    }

    /// The app goes to the background: each reminder replaces its notification by a new one.
    @inline(__always)
    mutating func close<O: TimelineObserver>(_ session: ClosedSession, _ observer: inout O) {
        observer.record(.close(time: session.close))
        closeApp(at: session.close, &observer)
        // Dropping out is as good as random: no branch on it when nobody watches.
        if session.dropsOut && !dormant { observer.record(.droppedOut(time: session.close)) }
        dormant = dormant || session.dropsOut
        sessionIndex += 1
    }

    /// The app goes to the background at `close` under the configuration: the reminder engine
    /// schedules, and the platform's rules act on what it scheduled.
    @inline(__always)
    mutating func closeApp<O: TimelineObserver>(at close: Double, _ observer: inout O) {
        for r in 0..<reminderCount {
            if let end = config.reminders[r].enteredBackground(at: close, state: &states[r], random: &messageStream) {
                let n = end.notification
                switch end {
                case .cancelled: outcome(r, n, n.fireTime >= horizon ? .censored : .cancelled, &observer)
                case .firedInForeground: outcome(r, n, .foreground, &observer)
                case .firedInBackground: break
                }
            }
            guard var n = states[r].pending else { continue }
            if movesFireTimes { n = move(r, n, &observer) }
            add(.scheduled)
            if countsDetail {
                add(layout.message(config.messageBase[r] + n.messageIndex, .scheduled))
                add(layout.period(config.periodBase[r] + n.periodIndex, .scheduled))
            }
            let state = states[r]
            observer.record(.scheduled(reminder: r, notification: n, state: state))
        }
        // The platform's rules on what was just scheduled: Android's alarm delays, iOS's pending limit.
        if Rules.general && (delaysAlarms || mayDrop) {
            Self.applyPlatformRules(PlatformStep(states: states, count: reminderCount, delaysAlarms: delaysAlarms, mayDrop: mayDrop,
                                                 alarms: alarms, platform: platform, phase: traits.platform.maintenancePhase,
                                                 counts: counts, scratch: pendingScratch), &observer)
        }
    }

    /// Whether a pending notification fires before `nextOpen`, when the user would be back on
    /// their own (or at that very instant), and inside the horizon: when none does, `fire` would
    /// only return that open.
    @inline(__always)
    func dueBefore(_ nextOpen: Double) -> Bool {
        for r in 0..<reminderCount {
            if let n = states[r].pending, n.fireTime <= nextOpen, n.fireTime < horizon { return true }
        }
        return false
    }

    /// Away: notifications fire in time order until the user opens again, on their own at
    /// `organicOpen` or earlier because of one. Returns the next open (the horizon or later if
    /// none) and, if a notification brought it, which one.
    @inline(__always)
    mutating func fire<O: TimelineObserver>(until organicOpen: Double, _ observer: inout O)
        -> (Double, (Int, PendingNotification)?)
    {
        var nextOpen = organicOpen
        var responder: (Int, PendingNotification)?
        // Reminders whose notification fired, as bits: reminders 0..<64, then 64..<128.
        var fired: UInt64 = 0, firedHigh: UInt64 = 0
        while true {
            var earliest = -1
            var notification = PendingNotification(fireTime: .infinity, messageIndex: 0, periodIndex: 0)
            for r in 0..<reminderCount where (r < 64 ? fired >> UInt64(r) : firedHigh >> UInt64(r &- 64)) & 1 == 0 {
                if let n = states[r].pending, n.fireTime < notification.fireTime {
                    earliest = r
                    notification = n
                }
            }
            // A fire at the very instant of the next open has fired: the engine's check at that
            // open sees no time left, so it is counted here.
            guard earliest >= 0, notification.fireTime <= nextOpen, notification.fireTime < horizon else { break }
            if earliest < 64 { fired |= 1 << UInt64(earliest) } else { firedHigh |= 1 << UInt64(earliest &- 64) }
            if Rules.general && mayDrop && pendingScratch.dropped[earliest] {
                // Discarded by the system: counted as dropped by `outcome`.
                outcome(earliest, notification, .delivered, &observer)
                continue
            }
            if optedOut {
                outcome(earliest, notification, .suppressed, &observer)
                continue
            }
            // Without permission a notification is not shown, or shown quietly (iOS provisional
            // authorisation), answered less often.
            let quiet = Rules.general && notification.fireTime < permittedFrom
            if quiet && !platform.pointee.provisional {
                add(.noPermission)
                observer.record(.unpermitted(reminder: earliest, notification: notification))
                outcome(earliest, notification, .suppressed, &observer)
                continue
            }
            if let log = deliveryLog, let cap = config.delivery.frequencyCap {
                guard log.pointee.allows(notification.fireTime, cap: cap) else {
                    capped(earliest, notification, &observer)
                    continue
                }
                log.pointee.record(notification.fireTime)
            }
            outcome(earliest, notification, .delivered, &observer)
            if countsDetail { add(layout.hour(localHour(notification.fireTime), .delivered)) }
            unclaimedDelivery = notification.fireTime
            if quiet { add(.quietDelivered) }
            let factor = quiet ? platform.pointee.provisionalFactor : 1
            if let at = respond(to: notification, of: earliest, factor: factor, &observer), at < nextOpen && at < horizon {
                nextOpen = at
                responder = (earliest, notification)
            }
        }
        return (nextOpen, responder)
    }

    /// A delivered notification: whether the user answers it (and when) and whether it makes the
    /// user turn notifications off.
    @inline(__always)
    mutating func respond<O: TimelineObserver>(
        to n: PendingNotification, of r: Int, factor: Double, _ observer: inout O
    ) -> Double? {
        var p = response.base * config.messageWeights[config.messageBase[r] + n.messageIndex] * fatigueFactor
        // 1 unless delivered quietly: multiplying by it changes nothing then.
        p *= factor
        if let quiet = response.quiet {
            if quiet.contains(hour: localHour(n.fireTime)) { p *= response.quietFactor }
        }
        if dormant { p *= response.dormantFactor }
        fatigueFactor *= response.fatigue
        if !responseSeeded {
            let start = pendingScratch.responseStart
            if !start.pointee.made || start.pointee.user != user || start.pointee.seed != seed {
                start.pointee = StreamStart(seed: seed, user: user, made: true,
                                            stream: Xoshiro256(seed: seed, user: user, purpose: .response))
            }
            responseStream = start.pointee.stream
            responseSeeded = true
        }
        let responds = responseStream.nextUnit() < p
        let optsOut = responseStream.nextUnit() < response.optOut
        let delay = response.delay.sample(&responseStream)
        observer.record(.responseDrawn(reminder: r, responds: responds, probability: min(p, 1), optOut: optsOut))
        if optsOut {
            optedOut = true
            add(.optOuts)
        }
        return responds ? n.fireTime + delay : nil
    }

    /// The user comes back because of reminder `r`'s notification `n`.
    @inline(__always)
    mutating func brought<O: TimelineObserver>(
        back r: Int, by n: PendingNotification, at time: Double, _ observer: inout O
    ) {
        if result.responseOpens == 0 { result.opensBeforeFirstResponse = Int32(truncatingIfNeeded: result.opens) }
        add(.responded)
        if countsDetail {
            add(layout.hour(localHour(n.fireTime), .responded))
            add(layout.message(config.messageBase[r] + n.messageIndex, .responded))
            add(layout.period(config.periodBase[r] + n.periodIndex, .responded))
        }
        if dormant {
            dormant = false
            add(.revived)
            observer.record(.revived(time: time))
        }
    }

    /// A delivery policy moves reminder `r`'s new notification, as an app would reschedule it: into the
    /// send window, then out of quiet hours. The engine's state holds the moved time, so its checks
    /// see what the app scheduled.
    mutating func move<O: TimelineObserver>(_ r: Int, _ n: PendingNotification, _ observer: inout O) -> PendingNotification {
        let before = offset(at: n.fireTime)
        var moved = config.delivery.fireTime(for: n.fireTime, utcOffsetSeconds: before, usualMinute: usualMinute)
        if Rules.general, let zone {
            // Moved across a change of offset: the same local clock time at the offset it falls in.
            let after = offset(at: moved.time)
            if after != before {
                let same = moved.time + (before - after)
                if offset(at: same) == after {
                    moved.time = same
                } else if let change = zone.firstChange(after: same), change <= moved.time {
                    // A clock time the change skips (clocks set forward over it): the first instant after it is
                    // the change itself, from which the policy applies again (the window or the end of quiet
                    // hours it named may lie within the skipped span), at the offset from then on.
                    let again = config.delivery.fireTime(for: change, utcOffsetSeconds: after, usualMinute: usualMinute)
                    moved = DeliveryPolicy.Move(time: again.time, shifted: moved.shifted || again.shifted,
                                                deferred: moved.deferred || again.deferred)
                }
            }
        }
        // Not moved (the local clock's round trip can change the last bit of the time): the engine's own time.
        guard moved.shifted || moved.deferred, moved.time != n.fireTime else { return n }
        if moved.shifted { add(.shifted) }
        if moved.deferred { add(.deferred) }
        observer.record(.moved(reminder: r, from: n.fireTime, to: moved.time, shifted: moved.shifted, deferred: moved.deferred))
        var m = n
        m.fireTime = moved.time
        states[r].pending = m
        return m
    }

    /// A notification past the frequency cap: not shown. The engine cannot tell it from one that fired.
    mutating func capped<O: TimelineObserver>(_ r: Int, _ n: PendingNotification, _ observer: inout O) {
        add(.capped)
        if countsDetail {
            add(layout.message(config.messageBase[r] + n.messageIndex, .capped))
            add(layout.period(config.periodBase[r] + n.periodIndex, .capped))
        }
        observer.record(.capped(reminder: r, notification: n))
    }

    /// The platform asks the user for permission: at the install (the first launch), or at the first
    /// cold launch its rule matches (`open`). Until then no notification finds permission.
    mutating func awaitPermission<O: TimelineObserver>(_ observer: inout O) {
        permittedFrom = .infinity
        askPending = true
    }

    /// The permission prompt is shown: notifications firing from now on find permission if the
    /// user allows them, and none ever does otherwise.
    @inline(__always)
    mutating func ask<O: TimelineObserver>(at time: Double, _ observer: inout O) {
        askPending = false
        add(.permissionAsked)
        if traits.platform.grants {
            permittedFrom = time
            add(.permissionGranted)
        }
        observer.record(.permissionAsked(time: time, granted: traits.platform.grants))
    }

    /// Android fires each alarm just scheduled later than set (`AlarmDraws`); then iOS keeps the
    /// soonest-firing ones up to its limit. Out of line, as most runs have neither.
    @inline(never)
    static func applyPlatformRules<O: TimelineObserver>(_ p: PlatformStep, _ observer: inout O) {
        if p.delaysAlarms {
            for r in 0..<p.count {
                guard var n = p.states[r].pending else { continue }
                let (t, dozed) = p.alarms.pointee.delayed(n.fireTime, p.platform, phase: p.phase)
                if dozed { p.counts[Counter.dozed.rawValue] &+= 1 }
                observer.record(.alarmDelayed(reminder: r, from: n.fireTime, to: t, dozed: dozed))
                n.fireTime = t
                p.states[r].pending = n
            }
        }
        if p.mayDrop { limitPending(p.states, p.count, p.platform.pointee.pendingLimit, p.scratch, &observer) }
    }

    /// The system keeps the `limit` soonest-firing notifications (earlier reminders first among
    /// equal times) and discards the rest; one discarded stays discarded until it ends.
    @inline(never)
    static func limitPending<O: TimelineObserver>(
        _ states: UnsafeMutableBufferPointer<ReminderState>, _ count: Int, _ limit: Int, _ scratch: PendingScratch,
        _ observer: inout O
    ) {
        let order = scratch.order, dropped = scratch.dropped
        var held = 0
        for r in 0..<count where !dropped[r] {
            guard let t = states[r].pending?.fireTime else { continue }
            // Insertion by fire time: a sequence's steps come in order, so this is one pass.
            var k = held
            while k > 0, let u = states[order[k &- 1]].pending?.fireTime, u > t {
                order[k] = order[k &- 1]
                k &-= 1
            }
            order[k] = r
            held &+= 1
        }
        guard held > limit else { return }
        for k in limit..<held {
            let r = order[k]
            dropped[r] = true
            if let n = states[r].pending { observer.record(.dropped(reminder: r, notification: n)) }
        }
    }

    /// The organic open after a session closed at `close`, `gap` seconds later in the pattern's
    /// time (`CompiledReturnPattern`): the pattern runs on the user's local clock.
    @inline(never)
    func patterned(close: Double, gap: Double, _ pattern: PatternView) -> Double {
        let off = offset(at: close)
        let local = pattern.advance(local: close + off, by: gap)
        guard local.isFinite else { return .infinity }
        var t = local - off
        if let zone {
            // At the offset the open falls in; a local time the clock skips keeps the earlier offset.
            let other = zone.offset(at: t)
            if other != off, zone.offset(at: local - other) == other { t = local - other }
        }
        return max(t, close)
    }

    /// Notifications still pending at the end, due after the horizon: censored.
    @inline(__always)
    mutating func censorAfterHorizon<O: TimelineObserver>(_ observer: inout O) {
        for r in 0..<reminderCount {
            if let n = states[r].pending, n.fireTime >= horizon { outcome(r, n, .censored, &observer) }
        }
    }

    /// Nobody opens again before the horizon: notifications due after it are censored.
    @inline(__always)
    mutating func endAtHorizon<O: TimelineObserver>(_ observer: inout O) {
        censorAfterHorizon(&observer)
        let end = horizon
        observer.record(.horizon(time: end))
    }
}
