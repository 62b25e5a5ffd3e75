import CronEngine
import Randomness
import ReminderEngine

// Configurations that ride on the holdout's sessions.
//
// Under every configuration a user's opens are the holdout's until a notification first brings the
// user back (`RunWorkMeter` measures how much of a run that is: most of it). So the holdout's run
// of a user records its sessions, and a configuration of one reminder walks them instead of its
// own: at a session whose notification fires while the user is away it does what its own run does
// (the engine's check and schedule, the notification's end, the answer drawn), and over the
// sessions in between, where the user comes back before the fire time, the engine changes nothing
// but the fire time (`Reminder.reschedulesUnchangedWhilePending`), so those sessions are counted
// without calling it. At the first answer that brings the user back, the configuration takes the
// user as the holdout's run left them and goes on alone. The counts are those of its own run, one
// for one (tests hold the two equal on every kind of scenario).
//
// A configuration rides when it has one reminder and no delivery policy (its cron rules run at each
// cold launch as in its own run; with messages picked at random each quiet session's close draws
// the message as the engine does; under the README wiring a quiet session's cold launch moves the
// message on, or, where that does not cover it, each quiet session's open and close go through the
// engine); users ride when they live at a fixed offset, return with no pattern, are
// on a platform without rules and do not replay a recorded user.

/// The holdout's sessions of the current user, as its run recorded them: each open's time and
/// whether it was a cold launch; each close's time and whether the user had dropped out by then.
/// The last session has no close when it is still open at the horizon; no open follows the last
/// close when the user dropped out or the next open falls after the horizon.
struct HoldoutSessions {
    var opens: UnsafeMutablePointer<Double>
    var cold: UnsafeMutablePointer<Bool>
    var closes: UnsafeMutablePointer<Double>
    var dormant: UnsafeMutablePointer<Bool>
    var count = 0
    var closed = 0
    var capacity: Int
    var droppedOut = false

    init(capacity: Int) {
        self.capacity = capacity
        opens = .allocate(capacity: capacity)
        cold = .allocate(capacity: capacity)
        closes = .allocate(capacity: capacity)
        dormant = .allocate(capacity: capacity)
    }

    func deallocate() {
        opens.deallocate()
        cold.deallocate()
        closes.deallocate()
        dormant.deallocate()
    }

    mutating func reset() {
        (count, closed, droppedOut) = (0, 0, false)
    }

    private mutating func grow() {
        let larger = 2 * capacity
        func moved<T>(_ p: UnsafeMutablePointer<T>, _ n: Int) -> UnsafeMutablePointer<T> {
            let q = UnsafeMutablePointer<T>.allocate(capacity: larger)
            q.moveInitialize(from: p, count: n)
            p.deallocate()
            return q
        }
        (opens, cold) = (moved(opens, count), moved(cold, count))
        (closes, dormant) = (moved(closes, closed), moved(dormant, closed))
        capacity = larger
    }

    mutating func open(at t: Double, coldLaunch: Bool) {
        if count == capacity { grow() }
        (opens + count).initialize(to: t)
        (cold + count).initialize(to: coldLaunch)
        count += 1
    }

    mutating func close(at t: Double) {
        if closed == capacity { grow() }
        (closes + closed).initialize(to: t)
        (dormant + closed).initialize(to: droppedOut)
        closed += 1
    }

    /// Another run's sessions of the same user (`HoldoutCache`), in place of these.
    mutating func load(opens o: UnsafePointer<Double>, cold c: UnsafePointer<Bool>, count n: Int,
                       closes e: UnsafePointer<Double>, dormant d: UnsafePointer<Bool>, closed m: Int, droppedOut: Bool) {
        (count, closed) = (0, 0)
        while capacity < max(n, m) { grow() }
        opens.update(from: o, count: n)
        cold.update(from: c, count: n)
        closes.update(from: e, count: m)
        dormant.update(from: d, count: m)
        (count, closed, self.droppedOut) = (n, m, droppedOut)
    }

    /// The user dropped out at the last close.
    mutating func dropOut() {
        droppedOut = true
        if closed > 0 { dormant[closed - 1] = true }
    }
}

/// Records the holdout's run of a user into `HoldoutSessions`.
struct SessionLog: TimelineObserver {
    let sessions: UnsafeMutablePointer<HoldoutSessions>

    mutating func record(_ event: @autoclosure () -> TimelineEvent) {
        switch event() {
        case let .open(time, _, coldLaunch): sessions.pointee.open(at: time, coldLaunch: coldLaunch)
        case let .close(time): sessions.pointee.close(at: time)
        case .droppedOut: sessions.pointee.dropOut()
        default: break
        }
    }
}

/// The cron rules' answers at the holdout's opens of the current user, worked out once for all the
/// riders whose rules are the same (`CompiledModel.launchGroups`).
///
/// While a configuration rides, its opens are the holdout's, so are its cold launches, its launch
/// counters and which rules match at each: nothing a reminder does changes them. So instead of
/// running the rules at every cold launch, each rider takes from here where they stand after the
/// last open it rides: the counters, the block runs per rule, the rules whose block has run and
/// the day each first ran, as its own launches would have left them. The riders' rules may not ask
/// for the review prompt, whose log depends on when it was shown.
struct LaunchTrace {
    /// After open j: the launch counters, the rules that matched at it (none at a warm open), and
    /// the rules whose block has run by then.
    private(set) var counters: UnsafeMutablePointer<LaunchCounters>
    private(set) var matched: UnsafeMutablePointer<UInt64>
    private(set) var ran: UnsafeMutablePointer<UInt64>
    private var capacity: Int
    /// The opens traced.
    private(set) var count = 0
    /// Per rule: the day since the install its block first ran (clamped as `launchRules` clamps it),
    /// and its block runs over all the opens.
    let firstDay: UnsafeMutablePointer<Int>
    let totals: UnsafeMutablePointer<Int64>

    init() {
        capacity = 256
        counters = .allocate(capacity: capacity)
        matched = .allocate(capacity: capacity)
        ran = .allocate(capacity: capacity)
        firstDay = .allocate(capacity: ConfigurationSpec.maximumCronRules)
        firstDay.initialize(repeating: 0, count: ConfigurationSpec.maximumCronRules)
        totals = .allocate(capacity: ConfigurationSpec.maximumCronRules)
        totals.initialize(repeating: 0, count: ConfigurationSpec.maximumCronRules)
    }

    func deallocate() {
        deallocatePerOpen()
        firstDay.deallocate()
        totals.deallocate()
    }

    private func deallocatePerOpen() {
        counters.deallocate()
        matched.deallocate()
        ran.deallocate()
    }

    /// Starts a trace of `opens` opens and `rules` rules. Past the room for opens, the per-open
    /// entries move to larger storage; the per-rule ones stay.
    mutating func reset(opens: Int, rules: Int) {
        if opens > capacity {
            deallocatePerOpen()
            capacity = max(2 * capacity, opens)
            counters = .allocate(capacity: capacity)
            matched = .allocate(capacity: capacity)
            ran = .allocate(capacity: capacity)
        }
        count = opens
        totals.update(repeating: 0, count: rules)
    }

    /// Open j's entries.
    mutating func set(_ j: Int, counters c: LaunchCounters, matched m: UInt64, ran r: UInt64) {
        (counters + j).initialize(to: c)
        (matched + j).initialize(to: m)
        (ran + j).initialize(to: r)
    }
}

/// A worker's launch traces, one per group of riders sharing rules, traced afresh for each user.
struct LaunchTraces {
    private var traces: [LaunchTrace] = []
    /// Per group: whether its trace is for the current user.
    private var current: [Bool] = []

    /// Makes room for `groups` groups and marks every trace stale (a new user).
    mutating func beginUser(groups: Int) {
        while traces.count < groups {
            traces.append(LaunchTrace())
            current.append(false)
        }
        for g in 0..<groups { current[g] = false }
    }

    /// Group g's trace, and whether it still has to be traced for the current user (it is then
    /// marked done: the caller traces it).
    mutating func trace(_ g: Int) -> (UnsafeMutablePointer<LaunchTrace>, fresh: Bool) {
        let fresh = !current[g]
        current[g] = true
        return traces.withUnsafeMutableBufferPointer { ($0.baseAddress! + g, fresh) }
    }

    func deallocate() {
        for t in traces { t.deallocate() }
    }
}

/// Where a configuration's walk on the holdout's sessions stopped (`UserTimeline.walk`).
enum RideStop {
    /// After session k a notification is due while the user is away.
    case due
    /// Session k is still open at the horizon.
    case inSession
    /// The user is away from session k past the horizon, or dropped out.
    case afterHorizon
}

/// The walks of one user's riders (`UserTimeline.walk`), shared by riders that walk alike: the first
/// of a group walks, the others take where it stopped. Most of a racing batch's candidates share
/// their first periods, and walk alike until their periods part.
///
/// From an open onwards to the next notification due while the user is away, a rider whose engine
/// reschedules unchanged while a notification is pending and that does not run its cron rules on
/// the way does what any other such rider does from the same state: at each close the engine ends
/// the pending notification and schedules the next message with the delay of its period, and at
/// each open before the fire time its check only records that nothing fired. So the walk is fixed
/// by the session it starts from, the engine's state there, the delay that state schedules with,
/// the number of messages (where the next message wraps) and the delivery an open may still claim
/// (`Key`); it ends with the state, the notifications' counts, and the session where it stopped.
///
/// Riders are grouped before the run by the engine's states at the start of their first `levels`
/// walks (`CompiledModel.walkGroups`): the state after the install's open, then after each open
/// that finds a notification fired; riders that stay with the holdout through the same opens meet
/// the same states there, at the same sessions. A walk is taken only when its key is the one kept,
/// and walked otherwise. Kept for runs without the tallies' detail, whose message and period slots
/// differ between configurations.
struct RideWalks {
    /// What a walk starts from, its fields laid out as integers so that keys compare without branches.
    struct Key: Equatable {
        private var session: Int, delay: UInt64, messages: Int, unclaimedDelivery: UInt64
        private var periodIndex: Int, nextMessageIndex: Int, sawFire: Bool
        /// The pending notification's fire time, message and period; `Int.min` and 0 for none.
        private var fireTime: UInt64, message: Int, period: Int

        @inline(__always) init(session: Int, state: ReminderState, delay: Double, messages: Int, unclaimedDelivery: Double) {
            (self.session, self.delay, self.messages, self.unclaimedDelivery) =
                (session, delay.bitPattern, messages, unclaimedDelivery.bitPattern)
            (periodIndex, nextMessageIndex, sawFire) = (state.periodIndex, state.nextMessageIndex ?? Int.min, state.lastCheckSawFire)
            if let n = state.pending {
                (fireTime, message, period) = (n.fireTime.bitPattern, n.messageIndex, n.periodIndex)
            } else {
                (fireTime, message, period) = (0, Int.min, Int.min)
            }
        }

        @inline(__always) static func == (a: Key, b: Key) -> Bool {
            (a.session ^ b.session) | (a.messages ^ b.messages) | (a.periodIndex ^ b.periodIndex)
                | (a.nextMessageIndex ^ b.nextMessageIndex) | (a.message ^ b.message) | (a.period ^ b.period) == 0
                && (a.delay ^ b.delay) | (a.unclaimedDelivery ^ b.unclaimedDelivery) | (a.fireTime ^ b.fireTime) == 0
                && a.sawFire == b.sawFire
        }
    }

    /// What a walk adds to the counters it can change: no notification is delivered on the way, so
    /// those are the schedules, the ends of the notifications the user came back before (cancelled,
    /// fired in the app, or due past the horizon) and the opens that claim an earlier delivery.
    struct Added: Equatable {
        var scheduled: Int64 = 0, cancelled: Int64 = 0, foreground: Int64 = 0, censored: Int64 = 0, attributed: Int64 = 0

        /// The counters' values in `counts`.
        @inline(__always) init(_ counts: UnsafeMutablePointer<Int64>) {
            (scheduled, cancelled, foreground, censored, attributed) = (
                counts[Counter.scheduled.rawValue], counts[Counter.cancelled.rawValue], counts[Counter.foreground.rawValue],
                counts[Counter.censored.rawValue], counts[Counter.attributed.rawValue])
        }

        init(scheduled: Int64, cancelled: Int64, foreground: Int64, censored: Int64, attributed: Int64) {
            (self.scheduled, self.cancelled, self.foreground, self.censored, self.attributed) =
                (scheduled, cancelled, foreground, censored, attributed)
        }

        /// What the counts in `counts` gained since these.
        @inline(__always) func gained(_ counts: UnsafeMutablePointer<Int64>) -> Added {
            let now = Added(counts)
            return Added(scheduled: now.scheduled &- scheduled, cancelled: now.cancelled &- cancelled,
                         foreground: now.foreground &- foreground, censored: now.censored &- censored,
                         attributed: now.attributed &- attributed)
        }

        @inline(__always) func add(to counts: UnsafeMutablePointer<Int64>) {
            counts[Counter.scheduled.rawValue] &+= scheduled
            counts[Counter.cancelled.rawValue] &+= cancelled
            counts[Counter.foreground.rawValue] &+= foreground
            counts[Counter.censored.rawValue] &+= censored
            counts[Counter.attributed.rawValue] &+= attributed
        }

        /// Whether `counter` is one of these.
        static func holds(_ counter: Counter) -> Bool {
            [.scheduled, .cancelled, .foreground, .censored, .attributed].contains(counter)
        }
    }

    /// One group's walk for the current user.
    struct Walk {
        var made = false
        var key = Key(session: 0, state: ReminderState(), delay: 0, messages: 0, unclaimedDelivery: 0)
        var session = 0
        var stop = RideStop.afterHorizon
        var state = ReminderState()
        var added = Added(scheduled: 0, cancelled: 0, foreground: 0, censored: 0, attributed: 0)
    }

    /// The walks shared: a rider's first, from the install, and those after its first notifications,
    /// before the riders' periods part.
    static let levels = 3

    /// Per level, per configuration: where its group's walk lies in `walks`, or −1.
    private let place: UnsafeMutablePointer<Int>
    private let levels: Int, configurations: Int
    private let walks: UnsafeMutablePointer<Walk>
    private let count: Int

    /// For `groups`, per level, per configuration: its group, or −1 (`CompiledModel.walkGroups`).
    init(groups: [[Int]], configurations: Int) {
        (levels, self.configurations) = (groups.count, configurations)
        place = .allocate(capacity: max(groups.count * configurations, 1))
        place.initialize(repeating: -1, count: max(groups.count * configurations, 1))
        var total = 0
        for (level, group) in groups.enumerated() {
            for (i, g) in group.enumerated() where g >= 0 { place[level * configurations + i] = total + g }
            total += (group.max() ?? -1) + 1
        }
        count = total
        walks = .allocate(capacity: max(total, 1))
        walks.initialize(repeating: Walk(), count: max(total, 1))
    }

    func deallocate() {
        walks.deinitialize(count: max(count, 1))
        walks.deallocate()
        place.deallocate()
    }

    /// Whether any rider shares a walk.
    var isEmpty: Bool { count == 0 }

    /// Marks every walk stale (a new user).
    func beginUser() {
        for j in 0..<count { walks[j].made = false }
    }

    /// The walk configuration `i` shares at `level`, if any.
    @inline(__always) func walk(level: Int, configuration i: Int) -> UnsafeMutablePointer<Walk>? {
        guard level < levels else { return nil }
        let w = place[level &* configurations &+ i]
        return w < 0 ? nil : walks + w
    }
}

extension CompiledModel {
    /// Per configuration, the group of riders among `riders` whose cron rules it shares, or −1: the
    /// riders with rules, none of them asking for the review prompt, grouped by equal rules; only
    /// groups of two or more, numbered from 0 in order.
    static func launchGroups(_ views: [ConfigurationView], riders: [Int]) -> [Int] {
        groupsOfTwoOrMore(riders.filter { !views[$0].rules.isEmpty && views[$0].reviewPrompts == 0 }, count: views.count) {
            views[$0].rules.elementsEqual(views[$1].rules)
        }
    }

    /// Per configuration (of `count`), its group among `members` by `alike`, or −1: only groups of two
    /// or more, numbered from 0 in the order of their first members.
    static func groupsOfTwoOrMore(_ members: [Int], count: Int, alike: (Int, Int) -> Bool) -> [Int] {
        var group = Array(repeating: -1, count: count)
        var owners: [Int] = [], sizes: [Int] = []
        for i in members {
            if let g = owners.firstIndex(where: { alike($0, i) }) {
                group[i] = g
                sizes[g] += 1
            } else {
                group[i] = owners.count
                owners.append(i)
                sizes.append(1)
            }
        }
        var number = Array(repeating: -1, count: owners.count), next = 0
        for g in owners.indices where sizes[g] >= 2 {
            number[g] = next
            next += 1
        }
        return group.map { $0 < 0 ? -1 : number[$0] }
    }

    /// Per level, per configuration: the group of riders among `riders` whose walk at that level it
    /// shares (see `RideWalks`), or −1. The riders whose engine reschedules unchanged while a
    /// notification is pending and that do not run their cron rules on the way (none, or answers
    /// from a `LaunchTrace`, `launchGroups`), grouped by the engine's states at the start of their
    /// walks up to that level: after the install's open, then after each open that finds the
    /// notification fired, with the delay each schedules with, and by their number of `messages`;
    /// only groups of two or more, numbered from 0 in order. None when the tallies keep their detail.
    static func walkGroups(_ views: [ConfigurationView], messages: [Int], riders: [Int], launchGroups: [Int], detail: Bool,
                           levels: Int = RideWalks.levels) -> [[Int]] {
        guard !detail else { return [] }
        // Each rider's states at its walks' starts, worked out by the engine on a timeline where every
        // notification fires: an open, a close, an open after the fire time, and so on.
        var paths = Array(repeating: [(ReminderState, Double)](), count: views.count)
        for i in riders where views[i].rules.isEmpty || launchGroups[i] >= 0 {
            // A rider has one reminder (`ridesOnHoldout`).
            let reminder = views[i].reminders[0]
            guard reminder.reschedulesUnchangedWhilePending else { continue }
            var state = ReminderState(), now = 0.0
            var unused = Xoshiro256(state: (1, 0, 0, 0))  // messages in order draw nothing
            reminder.becameActive(at: now, state: &state, coldLaunch: true)
            for level in 0..<levels {
                paths[i].append((state, reminder.nextDelay(for: state)))
                guard level + 1 < levels else { break }
                now += 1
                reminder.enteredBackground(at: now, state: &state, random: &unused)
                now = (state.pending?.fireTime ?? now) + 1
                reminder.becameActive(at: now, state: &state, coldLaunch: true)
            }
        }
        return (0..<levels).map { level in
            groupsOfTwoOrMore(views.indices.filter { paths[$0].count > level }, count: views.count) { a, b in
                messages[a] == messages[b]
                    && paths[a][0...level].elementsEqual(paths[b][0...level], by: { $0.0 == $1.0 && $0.1 == $1.1 })
            }
        }
    }

    /// Whether configuration `c` can ride on the holdout's sessions.
    static func ridesOnHoldout(_ c: ConfigurationView) -> Bool {
        c.reminders.count == 1 && c.delivery.isEmpty
    }

    /// Set by tests to run every configuration on its own, to check that riding changes nothing.
    nonisolated(unsafe) static var ridesAlong = true

    /// Configuration `c`'s run of the user whose holdout's sessions `scratch` holds (the holdout's
    /// outcome `holdout`, its run days `holdoutDays`), counted into `counts`.
    func rideAlong(user: Int, traits: UserTraits, configuration c: UnsafePointer<ConfigurationView>, layout: TallyLayout,
                   counts: UnsafeMutablePointer<Int64>, activeDays: UnsafeMutablePointer<UInt64>, holdout: UserOutcome,
                   holdoutDays: UnsafePointer<UInt64>, launches: (UnsafeMutablePointer<LaunchTrace>, fresh: Bool)? = nil,
                   walks: (UnsafePointer<RideWalks>, configuration: Int)? = nil, installDay: Int? = nil,
                   scratch: inout TimelineScratch) -> UserOutcome {
        let buffers = scratch.buffers
        var observer = NoTimelineObserver()
        var timeline = UserTimeline<OneReminder, PlainRules>(
            model: self, user: user, traits: traits, configuration: c, organic: buffers.organic, states: buffers.states(1),
            ruleBlockRuns: buffers.ruleBlockRuns(c.pointee.rules.count), deliveryLog: nil, layout: layout, counts: counts, activeDays: activeDays,
            holdoutStart: nil, pendingScratch: buffers.pendingScratch, countsDetail: scratch.countsDetail, installDay: installDay)
        defer { buffers.organic = timeline.organic }
        if let (trace, fresh) = launches, fresh { timeline.traceLaunches(buffers.sessions.pointee, into: trace) }
        return timeline.ride(on: UnsafePointer(buffers.sessions), holdout: holdout, holdoutDays: holdoutDays,
                             launches: launches.map { UnsafePointer($0.0) }, walks: walks, &observer)
    }
}

extension UserTimeline where Count == OneReminder, Rules == PlainRules {
    /// The run on the holdout's sessions `h` (see above); `holdout` and `holdoutDays` are the holdout's
    /// outcome and run days, the configuration's own while no notification brings the user back.
    ///
    /// With `launches`, the cron rules' answers at the holdout's launches are taken from there (see
    /// `LaunchTrace`) instead of worked out at each cold launch. With `walks`, the walks this
    /// configuration shares (`RideWalks`) are taken from there when another configuration walked
    /// them for this user, and left there otherwise.
    mutating func ride<O: TimelineObserver>(on h: UnsafePointer<HoldoutSessions>, holdout: UserOutcome,
                                            holdoutDays: UnsafePointer<UInt64>, launches: UnsafePointer<LaunchTrace>? = nil,
                                            walks: (UnsafePointer<RideWalks>, configuration: Int)? = nil,
                                            _ observer: inout O) -> UserOutcome {
        let s = h.pointee
        launchesAlone = !config.rules.isEmpty && launches == nil
        var level = 0
        var (k, stop) = walk(from: 0, s, walks.flatMap { $0.0.pointee.walk(level: 0, configuration: $0.configuration) },
                             installing: true, &observer)
        while true {
            switch stop {
            case .inSession:
                endInSession(&observer)
            case .afterHorizon:
                censorAfterHorizon(&observer)
            case .due:
                dormant = s.dormant[k]
                let (at, responder) = fire(until: k + 1 < s.count ? s.opens[k + 1] : Double.infinity, &observer)
                if let (r, n) = responder {
                    return leave(after: k, s, brought: r, by: n, at: at, launches: launches, &observer)
                }
                guard k + 1 < s.count else {
                    censorAfterHorizon(&observer)
                    break
                }
                k += 1
                openRiding(at: s.opens[k], coldLaunch: s.cold[k], &observer)
                level += 1
                (k, stop) = walk(from: k, s, walks.flatMap { $0.0.pointee.walk(level: level, configuration: $0.configuration) },
                                 &observer)
                continue
            }
            break
        }
        result = holdout
        activeDays.update(from: holdoutDays, count: layout.activeDayWords)
        if let launches { takeLaunches(through: s.count - 1, launches) }
        return finish()
    }

    /// From session k, opened: its close and the quiet sessions after it, and so on to the first
    /// session after which a notification is due while the user is away, or to the end of the
    /// holdout's sessions (still in a session at the horizon, or away past it). Returns that session.
    /// With `shared`, taken from there when it is this walk, or left there (see `RideWalks`). With
    /// `installing`, the walk starts with the install's open (session 0), from a new user's state.
    @inline(__always)
    mutating func walk<O: TimelineObserver>(from k: Int, _ s: HoldoutSessions, _ shared: UnsafeMutablePointer<RideWalks.Walk>?,
                                            installing: Bool = false, _ observer: inout O) -> (Int, RideStop) {
        guard let shared else {
            if installing { openRiding(at: s.opens[0], coldLaunch: s.cold[0], &observer) }
            return walk(from: k, s, &observer)
        }
        // The state the walk starts from: before the install's open, when it is part of the walk.
        let key = RideWalks.Key(session: k, state: states[0], delay: config.reminders[0].nextDelay(for: states[0]),
                                messages: layout.messageSlots, unclaimedDelivery: unclaimedDelivery)
        let made = shared.pointee.made
        if made && shared.pointee.key == key {
            states[0] = shared.pointee.state
            fatigueFactor = 1
            shared.pointee.added.add(to: counts)
            return (shared.pointee.session, shared.pointee.stop)
        }
        // Riders of a group meet the same walk; anything else is walked (and was not expected).
        assert(!made, "RideWalks: a group's riders start a walk from different states")
        let before = RideWalks.Added(counts)
        #if DEBUG
        let all = (0..<Counter.allCases.count).map { counts[$0] }, unclaimed = unclaimedDelivery
        #endif
        if installing { openRiding(at: s.opens[0], coldLaunch: s.cold[0], &observer) }
        let (end, stop) = walk(from: k, s, &observer)
        #if DEBUG
        for c in Counter.allCases where !RideWalks.Added.holds(c) {
            assert(counts[c.rawValue] == all[c.rawValue], "a walk counted \(c), which RideWalks does not keep")
        }
        assert(fatigueFactor == 1 && unclaimedDelivery.bitPattern == unclaimed.bitPattern,
               "a walk left a fatigue factor or claimed a delivery")
        #endif
        if !made {
            shared.pointee = RideWalks.Walk(made: true, key: key, session: end, stop: stop, state: states[0],
                                            added: before.gained(counts))
        }
        return (end, stop)
    }

    /// `walk(from:_:_:_:)` on this configuration's own.
    @inline(__always)
    mutating func walk<O: TimelineObserver>(from k: Int, _ s: HoldoutSessions, _ observer: inout O) -> (Int, RideStop) {
        var k = k
        while true {
            guard k < s.closed else { return (k, .inSession) }
            closeApp(at: s.closes[k], &observer)
            k = quietSessions(after: k, s, &observer)
            if dueBefore(k + 1 < s.count ? s.opens[k + 1] : Double.infinity) { return (k, .due) }
            guard k + 1 < s.count else { return (k, .afterHorizon) }
            k += 1
            openRiding(at: s.opens[k], coldLaunch: s.cold[k], &observer)
        }
    }

    /// The cron rules at the holdout's opens `s` under this configuration's rules, into `t` (see
    /// `LaunchTrace`): what `launch` does at each cold launch, from a new user's counters.
    mutating func traceLaunches(_ s: HoldoutSessions, into t: UnsafeMutablePointer<LaunchTrace>) {
        t.pointee.reset(opens: s.count, rules: config.rules.count)
        var c = LaunchCounters(), ran: UInt64 = 0
        for j in 0..<s.count {
            var matched: UInt64 = 0
            if s.cold[j] {
                let today = localDay(s.opens[j])
                c.recordLaunch(onDay: today)
                matched = config.cronTable.matches(config.rules, c)
                var bits = matched
                while bits != 0 {
                    t.pointee.totals[bits.trailingZeroBitCount] &+= 1
                    bits &= bits &- 1
                }
                var first = matched & ~ran
                ran |= matched
                while first != 0 {
                    t.pointee.firstDay[first.trailingZeroBitCount] = min(max(today - installDay, 0), layout.days)
                    first &= first &- 1
                }
            }
            t.pointee.set(j, counters: c, matched: matched, ran: ran)
        }
    }

    /// The cron rules as the holdout's opens 0...k left them, from the trace `t`: the launch counters,
    /// the block runs, the rules whose block has run and their first runs' counts.
    mutating func takeLaunches(through k: Int, _ t: UnsafePointer<LaunchTrace>) {
        let trace = t.pointee
        counters = trace.counters[k]
        if k == trace.count - 1 {
            ruleBlockRuns.baseAddress!.update(from: trace.totals, count: config.rules.count)
        } else {
            for j in 0...k {
                var bits = trace.matched[j]
                while bits != 0 {
                    ruleBlockRuns[bits.trailingZeroBitCount] &+= 1
                    bits &= bits &- 1
                }
            }
        }
        rulesRan = trace.ran[k]
        var first = rulesRan
        while first != 0 {
            let rule = first.trailingZeroBitCount
            add(layout.rule(rule, .usersRan))
            add(layout.firstRun(rule, day: trace.firstDay[rule]))
            first &= first &- 1
        }
    }

    /// An organic open: what `open` does under the configuration (fatigue, attribution, the cron rules
    /// on a cold launch, the engine's check).
    @inline(__always)
    mutating func openRiding<O: TimelineObserver>(at t: Double, coldLaunch: Bool, _ observer: inout O) {
        fatigueFactor = 1
        if t - unclaimedDelivery <= response.attributionSeconds {
            add(.attributed)
            unclaimedDelivery = -.infinity
        }
        if coldLaunch && launchesAlone { launch(at: t, &observer) }
        config.reminders[0].becameActive(at: t, state: &states[0], coldLaunch: coldLaunch)
    }

    /// A cold launch through the launch counters and the cron rules, as `open` runs it.
    @inline(__always)
    mutating func launch<O: TimelineObserver>(at t: Double, _ observer: inout O) {
        let today = localDay(t)
        counters.recordLaunch(onDay: today)
        launchRules(at: t, onDay: today, sinceInstall: today - installDay, &observer)
    }

    /// The sessions after session k whose open comes before the pending notification's fire time and
    /// that close before the horizon: each ends the notification (cancelled, censored past the horizon,
    /// or fired while the app was open) and schedules a notification at the same period again, the
    /// period's delay after its close. Counts them and returns the last one (k when none).
    @inline(__always)
    mutating func quietSessions<O: TimelineObserver>(after k: Int, _ s: HoldoutSessions, _ observer: inout O) -> Int {
        let reminder = config.reminders[0]
        if reminder.reschedulesUnchangedWhilePending { return quietSessions(after: k, s, messages: .kept, &observer) }
        // Not under the README wiring: the messages are drawn at random.
        if reminder.keepsPendingUntilItsFireTime { return quietRandomSessions(after: k, s, &observer) }
        if reminder.movesMessageOnAtColdLaunchWhilePending { return quietColdLaunchSessions(after: k, s, &observer) }
        return quietCloses(after: k, s, &observer)
    }

    /// `quietSessions` for a reminder that draws each message at random, kept out of line.
    @inline(never)
    mutating func quietRandomSessions<O: TimelineObserver>(after k: Int, _ s: HoldoutSessions, _ observer: inout O) -> Int {
        quietSessions(after: k, s, messages: .drawn, &observer)
    }

    /// `quietSessions` for a reminder under the README wiring whose cold launches move the message on,
    /// kept out of line.
    @inline(never)
    mutating func quietColdLaunchSessions<O: TimelineObserver>(after k: Int, _ s: HoldoutSessions, _ observer: inout O) -> Int {
        quietSessions(after: k, s, messages: .movedOnAtColdLaunch, &observer)
    }

    /// How the message of the notification a quiet session's close schedules follows from the one
    /// before: the same (`Reminder.reschedulesUnchangedWhilePending`), drawn at random, or the next
    /// one after a cold launch and the same otherwise (`Reminder.movesMessageOnAtColdLaunchWhilePending`).
    enum QuietMessages {
        case kept, drawn, movedOnAtColdLaunch
    }

    /// The quiet sessions (see above) counted without calling the engine, which would change nothing
    /// but the fire time and the message as `messages` says: a drawn message comes from the same
    /// stream, in the same way, as `enteredBackground` draws it, and a message moved on is the one
    /// `enteredBackground` picks after a check that saw a fire; the message slots are then counted
    /// session by session. Otherwise the same message is scheduled again.
    @inline(__always)
    mutating func quietSessions<O: TimelineObserver>(after k: Int, _ s: HoldoutSessions, messages change: QuietMessages,
                                                     _ observer: inout O) -> Int {
        guard var n = states[0].pending else { return k }
        let delay = config.reminders[0].nextDelay(for: states[0])
        // One reminder: its messages are the configuration's message slots.
        let messages = layout.messageSlots
        let base = config.messageBase[0]
        var j = k
        var fire = n.fireTime, message = n.messageIndex
        // The engine's stored next message; a close sets it whenever it schedules.
        var next = states[0].nextMessageIndex ?? 0
        // Counted without branches (which session fires in the foreground is as good as random); the
        // others are cancelled.
        var foreground: Int64 = 0, censored: Int64 = 0
        let (opens, closes, cold, last, end) = (s.opens, s.closes, s.cold, s.closed - 1, horizon)
        while j < last {
            let open = opens[j + 1]
            guard fire > open else { break }
            // No attribution to check: no notification was delivered since open k, which checked it.
            if launchesAlone && cold[j + 1] { launch(at: open, &observer) }
            let close = closes[j + 1]
            let inForeground = fire <= close, pastHorizon = fire >= end
            foreground &+= inForeground ? 1 : 0
            censored &+= !inForeground && pastHorizon ? 1 : 0
            if change != .kept {
                let slot: SlotCounter = inForeground ? .foreground : pastHorizon ? .censored : .cancelled
                if countsDetail { counts[layout.message(base + message, slot)] &+= 1 }
                if change == .drawn {
                    message = Int(messageStream.next(upperBound: UInt64(messages)))
                } else {
                    // `enteredBackground`: the stored next after a check that saw a fire, the same
                    // message otherwise, the first when past the last.
                    let m = cold[j + 1] ? next : next &- 1
                    message = m >= messages || m < 0 ? 0 : m
                    next = message &+ 1
                }
                if countsDetail { counts[layout.message(base + message, .scheduled)] &+= 1 }
            }
            fire = close + delay
            j += 1
        }
        let cancelled = Int64(j - k) &- foreground &- censored
        guard j > k else { return k }
        fatigueFactor = 1
        // The last open's check: under the README wiring a cold launch's check records a fire.
        states[0].lastCheckSawFire = change == .movedOnAtColdLaunch && cold[j]
        if change != .kept { states[0].nextMessageIndex = message + 1 }
        (n.fireTime, n.messageIndex) = (fire, message)
        states[0].pending = n
        let period = config.periodBase[0] + n.periodIndex
        func count(_ counter: Counter, _ slot: SlotCounter, _ x: Int64) {
            counts[counter.rawValue] &+= x
            guard countsDetail else { return }
            if change == .kept { counts[layout.message(base + message, slot)] &+= x }
            counts[layout.period(period, slot)] &+= x
        }
        count(.cancelled, .cancelled, cancelled)
        count(.foreground, .foreground, foreground)
        count(.censored, .censored, censored)
        count(.scheduled, .scheduled, Int64(j - k))
        return j
    }

    /// The same sessions for a reminder under the README wiring that the shortcuts above do not cover
    /// (the default `appDomain`, periods that wrap, or messages at random): each open and each close
    /// go through the engine.
    @inline(never)
    mutating func quietCloses<O: TimelineObserver>(after k: Int, _ s: HoldoutSessions, _ observer: inout O) -> Int {
        let reminder = config.reminders[0]
        var j = k
        while j + 1 < s.closed, let n = states[0].pending, n.fireTime > s.opens[j + 1] {
            // No attribution to check: no notification was delivered since open k, which checked it.
            let open = s.opens[j + 1]
            if s.cold[j + 1] && launchesAlone { launch(at: open, &observer) }
            reminder.becameActive(at: open, state: &states[0], coldLaunch: s.cold[j + 1])
            closeApp(at: s.closes[j + 1], &observer)
            j += 1
        }
        if j > k { fatigueFactor = 1 }
        return j
    }

    /// Reminder r's notification n brings the user back at `at`, while away after session k: the
    /// user as the holdout's run left them there (its opens 0...k), then on alone to the horizon.
    mutating func leave<O: TimelineObserver>(after k: Int, _ s: HoldoutSessions, brought r: Int, by n: PendingNotification,
                                             at: Double, launches: UnsafePointer<LaunchTrace>?, _ observer: inout O) -> UserOutcome {
        result = UserOutcome()
        startOutcome()
        activeDays.update(repeating: 0, count: layout.activeDayWords)
        for j in 0...k {
            _ = openUser(at: s.opens[j], cause: j == 0 ? .install : .organic)
            if s.cold[j] { result.launches &+= 1 }
        }
        if let launches { takeLaunches(through: k, launches) }
        (drawn, sessionIndex, dormant) = (k + 1, k + 1, s.dormant[k])
        brought(back: r, by: n, at: at, &observer)
        live(from: at, cause: .notification, coldLaunch: at - s.closes[k] >= segment.pointee.coldLaunchSeconds, &observer)
        return finish()
    }
}
