import Dispatch
import Synchronization

/// Where a user's run stopped for a switch of configuration: the first open at or after the switch.
struct HandOver {
    var open: Double
    var cause: OpenCause
    var coldLaunch: Bool
}

/// What a live test's plan reads of a user during the test.
public enum InTestValue: Sendable {
    /// Opens; notifications delivered; whether the user turned notifications off (0 or 1).
    case opens, delivered, optedOut

    /// The value behind a per-user measure; nil for a retention rate, which counts days after install
    /// and so has no value for users who installed before the test.
    public init?(_ m: PairMeasure) {
        switch m {
        case .opensPerUser: self = .opens
        case .deliveredPerUser: self = .delivered
        case .optOutRate: self = .optedOut
        case .retentionD7, .retentionD30: return nil
        }
    }
}

/// One arm's sums over users of x, the user's opens before the test, and y, the user's value during
/// it: what its means, variances and covariance come from. Integers, so any split of the users adds
/// up to the same sums.
public struct CovariateSums: Equatable, Sendable {
    public var users: Int64 = 0
    public var x: Int64 = 0, xx: Int64 = 0
    public var y: Int64 = 0, yy: Int64 = 0
    public var xy: Int64 = 0

    public init() {}

    public init(users: Int64, x: Int64, xx: Int64, y: Int64, yy: Int64, xy: Int64) {
        (self.users, self.x, self.xx, self.y, self.yy, self.xy) = (users, x, xx, y, yy, xy)
    }

    public mutating func add(x a: Int64, y b: Int64) {
        users &+= 1
        x &+= a
        xx &+= a &* a
        y &+= b
        yy &+= b &* b
        xy &+= a &* b
    }

    public mutating func merge(_ o: CovariateSums) {
        users &+= o.users
        x &+= o.x
        xx &+= o.xx
        y &+= o.y
        yy &+= o.yy
        xy &+= o.xy
    }
}

/// The sums of each arm of a simulated live test, and the first user who reached the session limit.
public struct LiveTestSums: Equatable, Sendable {
    /// In the order of the arms asked for.
    public var arms: [CovariateSums]
    public var sessionLimitBreach: SessionLimitBreach?

    public init(arms: [CovariateSums], sessionLimitBreach: SessionLimitBreach? = nil) {
        (self.arms, self.sessionLimitBreach) = (arms, sessionLimitBreach)
    }

    mutating func merge(_ o: LiveTestSums) {
        for k in arms.indices { arms[k].merge(o.arms[k]) }
        if let b = o.sessionLimitBreach, sessionLimitBreach.map(b.precedes) ?? true { sessionLimitBreach = b }
    }
}

extension CompiledModel {
    /// A live test of users who already have the app: each user lives under configuration `baseline`
    /// (what ships today) from the install to the first open at or after `testStartDay`; from that
    /// open on, as an app takes a new configuration when it opens, each arm's configuration takes
    /// over, with notifications the baseline scheduled and not yet fired withdrawn. The user's
    /// organic draws are shared by every arm (each arm is the same users, so its moments are those of
    /// an arm of a live test), and the arm that is the baseline goes on as if nothing switched.
    ///
    /// x is the user's opens before that open (all before the test's start), y the user's `value`
    /// from it to the horizon. A user who never opens in the test has y = 0.
    public func simulateLiveTest(baseline: Int, arms: [Int], testStartDay: Int, value: InTestValue,
                                 users range: Range<Int>, threads: Int) -> LiveTestSums {
        let chunkSize = 1_024
        let chunks = (range.count + chunkSize - 1) / chunkSize
        let next = Atomic<Int>(0)
        let results = Mutex<[LiveTestSums]>([])
        let switchTime = Double(testStartDay) * 86_400
        // The baseline's own arm first: the others reset the reminder states it goes on with.
        let order = arms.indices.filter { arms[$0] == baseline } + arms.indices.filter { arms[$0] != baseline }
        DispatchQueue.concurrentPerform(iterations: min(max(1, threads), max(chunks, 1))) { _ in
            let counts = WorkerCounts(layouts: configurations.indices.map { layout($0) }, activeDayWords: activeDayWords)
            defer { counts.deallocate() }
            // The baseline's log of recent deliveries (for a frequency cap), and an arm's own.
            let logs = UnsafeMutablePointer<DeliveryLog>.allocate(capacity: 2)
            logs.initialize(repeating: DeliveryLog(capacity: DeliveryPolicy.FrequencyCap.largestMax), count: 2)
            defer { logs.deinitialize(count: 2); logs.deallocate() }
            var scratch = TimelineScratch()
            var mine = LiveTestSums(arms: Array(repeating: CovariateSums(), count: arms.count))
            while true {
                let chunk = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard chunk < chunks else { break }
                let lower = range.lowerBound + chunk * chunkSize
                for user in lower..<min(lower + chunkSize, range.upperBound) {
                    let breach = liveTestUser(user, baseline: baseline, arms: arms, order: order, switchTime: switchTime,
                                              value: value, counts: counts, logs: logs, scratch: &scratch, into: &mine.arms)
                    if let breach, mine.sessionLimitBreach.map(breach.precedes) ?? true { mine.sessionLimitBreach = breach }
                }
            }
            results.withLock { $0.append(mine) }
        }
        var total = LiveTestSums(arms: Array(repeating: CovariateSums(), count: arms.count))
        for r in results.withLock({ $0 }) { total.merge(r) }
        return total
    }

    /// One user of `simulateLiveTest`, added to `sums` unless the user reached the session limit.
    private func liveTestUser(_ user: Int, baseline: Int, arms: [Int], order: [Int], switchTime: Double,
                              value: InTestValue, counts: WorkerCounts, logs: UnsafeMutablePointer<DeliveryLog>,
                              scratch: inout TimelineScratch, into sums: inout [CovariateSums]) -> SessionLimitBreach? {
        let t = traits(user: user)
        scratch.beginUser(seed: seed, user: user)
        let buffers = scratch.buffers
        var observer = NoTimelineObserver()
        counts.activeDays.update(repeating: 0, count: activeDayWords)
        func timeline(_ c: Int, log: UnsafeMutablePointer<DeliveryLog>) -> UserTimeline<AnyReminderCount, GeneralRules> {
            let view = configurations[c].viewPointer
            log.pointee.reset()
            return UserTimeline<AnyReminderCount, GeneralRules>(
                model: self, user: user, traits: t, configuration: view, organic: buffers.organic,
                states: buffers.states(view.pointee.reminders.count), ruleBlockRuns: buffers.ruleBlockRuns(view.pointee.rules.count),
                deliveryLog: view.pointee.delivery.frequencyCap == nil ? nil : log, layout: counts.layouts[c], counts: counts.base(c),
                activeDays: counts.activeDays, holdoutStart: nil, pendingScratch: buffers.pendingScratch)
        }
        // Before the test: the baseline, to the first open at or after its start.
        var before = timeline(baseline, log: logs)
        before.switchTime = switchTime
        if before.platform.pointee.asksPermission { before.awaitPermission(&observer) }
        before.live(from: t.install, cause: .install, coldLaunch: true, &observer)
        buffers.organic = before.organic
        // Android's alarm delays drawn so far belong to the device: each arm goes on from them.
        let alarmsAtSwitch = buffers.pendingScratch.alarms.pointee
        if before.result.exceededSessionLimit { return SessionLimitBreach(user: user, configuration: baseline) }
        let x = before.result.opens
        var ys = Array(repeating: Int64(0), count: arms.count)
        if let h = before.handOver {
            for k in order {
                let c = arms[k]
                var during = before
                if c != baseline {
                    during = timeline(c, log: logs + 1)
                    during.takeOver(from: before)
                }
                during.organic = buffers.organic
                buffers.pendingScratch.alarms.pointee = alarmsAtSwitch
                (during.switchTime, during.handOver) = (.infinity, nil)
                let delivered = counts.base(c)[Counter.delivered.rawValue]
                during.live(from: h.open, cause: h.cause, coldLaunch: h.coldLaunch, &observer)
                buffers.organic = during.organic
                if during.result.exceededSessionLimit { return SessionLimitBreach(user: user, configuration: c) }
                switch value {
                case .opens: ys[k] = during.result.opens &- x
                case .delivered: ys[k] = counts.base(c)[Counter.delivered.rawValue] &- delivered
                case .optedOut: ys[k] = during.optedOut && !before.optedOut ? 1 : 0
                }
            }
        }
        for k in arms.indices { sums[k].add(x: x, y: ys[k]) }
        return nil
    }
}

extension UserTimeline {
    /// Takes over the user as `other` left them at a switch of configuration: what belongs to the
    /// person and the device (opens and sessions so far, the organic and response draws used, whether
    /// the user dropped out or turned notifications off, the fatigue, the launch counters, the review
    /// prompts the system showed the app) goes on; this configuration's reminders and cron rules start afresh.
    mutating func takeOver<C, R>(from other: UserTimeline<C, R>) {
        (result, drawn, sessionIndex) = (other.result, other.drawn, other.sessionIndex)
        reviewPromptLog = other.reviewPromptLog
        (dormant, optedOut, fatigueFactor) = (other.dormant, other.optedOut, other.fatigueFactor)
        (unclaimedDelivery, usualMinute, counters) = (other.unclaimedDelivery, other.usualMinute, other.counters)
        (responseStream, responseSeeded, nextRecorded) = (other.responseStream, other.responseSeeded, other.nextRecorded)
        // The permission and the device's alarms belong to the user too.
        (permittedFrom, askPending) = (other.permittedFrom, other.askPending)
        // The alarms' stream lives in the worker's buffers, shared by both timelines: it goes on as it is.
    }
}
