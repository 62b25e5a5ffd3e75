import CronEngine
import Foundation
import Randomness
import ReminderEngine

/// What one virtual user is, drawn once and shared by every configuration and the holdout.
public struct UserTraits: Equatable, Sendable {
    public var segment: Int
    public var utcOffsetSeconds: Double
    /// Install time, seconds from the run's start; the install is the first open.
    public var install: Double
    /// BG/NBD users: their own exponential gap mean (seconds) and dropout chance; 0 otherwise.
    public var gapMeanSeconds: Double
    public var repeatDropout: Double
    /// Replay segments: the recorded user this user follows (index into the segment's table); else −1.
    public var replayUser: Int = -1
}

/// One step of a user's timeline, for whoever watches it (the trace command); the batch run's
/// observer ignores them all, and the compiler removes the calls.
public enum TimelineEvent: Sendable {
    case open(time: Double, cause: OpenCause, coldLaunch: Bool)
    case cronRule(index: Int, matched: Bool)
    case reminderChecked(reminder: Int, state: ReminderState)
    case close(time: Double)
    case scheduled(reminder: Int, notification: PendingNotification, state: ReminderState)
    case ended(reminder: Int, notification: PendingNotification, outcome: NotificationOutcome)
    case responseDrawn(reminder: Int, responds: Bool, probability: Double, optOut: Bool)
    case droppedOut(time: Double)
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
    /// The last day k ≤ 30 that ends inside the horizon (0 if none): days 1...k can be measured.
    public var eligibleThrough: Int = 0
    /// Set when the user reached `Scenario.sessionLimit` and was stopped there: the run is refused.
    public var exceededSessionLimit = false

    @inlinable public func retained(day k: Int) -> Bool { k <= eligibleThrough && retainedDays & (1 << UInt32(k - 1)) != 0 }
    @inlinable public func eligible(day k: Int) -> Bool { k <= eligibleThrough }
}

/// Per-worker buffers reused from user to user, so the loop allocates nothing.
public struct TimelineScratch {
    @usableFromInline var states: [ReminderState] = []
    @usableFromInline var ruleRan: [Bool] = []

    public init() {}

    mutating func reset(reminders: Int, rules: Int) {
        if states.count != reminders { states = Array(repeating: ReminderState(), count: reminders) }
        for i in 0..<reminders { states[i] = ReminderState() }
        if ruleRan.count != rules { ruleRan = Array(repeating: false, count: rules) }
        for i in 0..<rules { ruleRan[i] = false }
    }
}

/// The retention curve runs to this day after install.
public let retentionCurveDays = 30

extension CompiledModel {
    /// Draws a user's traits from the user's own traits stream.

    public func traits(user: Int) -> UserTraits {
        var g = Xoshiro256(seed: seed, user: UInt64(user), purpose: .traits)
        let segment = segmentChoice.sample(&g)
        let offset = offsetSeconds[offsetChoice.sample(&g)]
        let install = g.nextUnit() * installSpreadSeconds
        var gapMean = 0.0, dropout = 0.0
        if case let .bgnbd(rate, p, unitSeconds) = segments[segment].gaps {
            // A rate of exactly 0 cannot be drawn from a continuous Gamma, but guard the division.
            gapMean = unitSeconds / max(rate.sample(&g), .leastNormalMagnitude)
            dropout = p.sample(&g)
        }
        var replayUser = -1
        if case let .replay(table) = segments[segment].gaps {
            replayUser = g.nextIndex(below: replayTables[table].starts.count)
        }
        return UserTraits(segment: segment, utcOffsetSeconds: offset, install: install,
                          gapMeanSeconds: gapMean, repeatDropout: dropout, replayUser: replayUser)
    }



    /// Simulates one user under one configuration and adds the user's counts to `counts`.
    ///
    /// The organic stream is drawn in the same order whatever the configuration (session length,
    /// dropout, gap at every session), so configurations share the holdout's randomness for as
    /// long as the reminders do not change what the user does.
    public func simulate<O: TimelineObserver>(
        user: Int, traits: UserTraits, configuration c: CompiledConfiguration, layout: TallyLayout,
        counts: UnsafeMutablePointer<Int64>, scratch: inout TimelineScratch, observer: inout O
    ) -> UserOutcome {
        scratch.reset(reminders: c.reminders.count, rules: c.cron.rules.count)
        // The per-user buffers leave `scratch` for the duration, so that pointers into them and
        // the cron callback never overlap an access to `scratch` itself.
        var states: [ReminderState] = []
        var ruleRan: [Bool] = []
        swap(&states, &scratch.states)
        swap(&ruleRan, &scratch.ruleRan)
        defer {
            swap(&states, &scratch.states)
            swap(&ruleRan, &scratch.ruleRan)
        }
        return c.reminders.withUnsafeBufferPointer { reminders in
            states.withUnsafeMutableBufferPointer { states in
                ruleRan.withUnsafeMutableBufferPointer { ruleRan in
                    simulate(user: user, traits: traits, c: c, reminders: reminders, states: states,
                             ruleRan: ruleRan, layout: layout, counts: counts, observer: &observer)
                }
            }
        }
    }

    private func simulate<O: TimelineObserver>(
        user: Int, traits: UserTraits, c: CompiledConfiguration, reminders: UnsafeBufferPointer<Reminder>,
        states: UnsafeMutableBufferPointer<ReminderState>, ruleRan: UnsafeMutableBufferPointer<Bool>,
        layout: TallyLayout, counts: UnsafeMutablePointer<Int64>, observer: inout O
    ) -> UserOutcome {
        let segment = segments[traits.segment]
        // The run covers [0, horizon): an event at the horizon itself is outside it.
        let horizon = horizonSeconds
        let offset = traits.utcOffsetSeconds
        var organic = Xoshiro256(seed: seed, user: UInt64(user), purpose: .organic)
        var responseStream = Xoshiro256(seed: seed, user: UInt64(user), purpose: .response)
        var messageStream = Xoshiro256(seed: seed, user: UInt64(user), purpose: .message)
        let reminderCount = reminders.count
        let cron = c.cron
        let ruleCount = cron.rules.count
        let messageBase = c.messageBase, periodBase = c.periodBase, messageWeights = c.messageWeights
        let response = self.response

        @inline(__always) func add(_ index: Int) { counts[index] &+= 1 }
        @inline(__always) func add(_ counter: Counter) { counts[counter.rawValue] &+= 1 }
        @inline(__always) func outcome(_ r: Int, _ n: PendingNotification, _ o: NotificationOutcome) {
            let slot: SlotCounter
            switch o {
            case .cancelled: slot = .cancelled; add(.cancelled)
            case .delivered: slot = .delivered; add(.delivered)
            case .foreground: slot = .foreground; add(.foreground)
            case .suppressed: slot = .suppressed; add(.suppressed)
            case .censored: slot = .censored; add(.censored)
            }
            add(layout.message(messageBase[r] + n.messageIndex, slot))
            add(layout.period(periodBase[r] + n.periodIndex, slot))
            observer.record(.ended(reminder: r, notification: n, outcome: o))
        }
        @inline(__always) func localDay(_ t: Double) -> Int { Int(((t + offset) / 86_400).rounded(.down)) }

        var result = UserOutcome()
        let installDay = localDay(traits.install)
        // Day k counts only if it ends inside the horizon.
        let lastWholeDay = Int(((horizon + offset) / 86_400).rounded(.down)) - 1 - installDay
        result.eligibleThrough = max(0, min(retentionCurveDays, lastWholeDay))
        add(.users)

        var openTime = traits.install
        var cause = OpenCause.install
        var coldLaunch = true
        var dormant = false
        var optedOut = false
        // fatigue^k, k = notifications delivered since the last organic open.
        var fatigueFactor = 1.0
        var unclaimedDelivery = -Double.infinity
        var lastDAUDay = -1
        var sessionIndex = 0
        var counters = LaunchCounters()
        // A replayed user's recorded visits, as run times; the first is the install.
        var recorded: ArraySlice<Double> = []
        var nextRecorded = 1
        if case let .replay(table) = segment.gaps {
            let t = replayTables[table]
            recorded = t.offsets[t.starts[traits.replayUser]..<(t.starts[traits.replayUser] + t.counts[traits.replayUser])]
        }

        while true {
            // A bounded number of sessions per user keeps every run's time proportional to users × days.
            if sessionIndex >= sessionLimit {
                result.exceededSessionLimit = true
                break
            }
            // The open.
            observer.record(.open(time: openTime, cause: cause, coldLaunch: coldLaunch))
            add(.opens)
            result.opens &+= 1
            if cause == .notification {
                add(.responseOpens)
            } else {
                add(.organicOpens)
                fatigueFactor = 1
            }
            let utcDay = Int(openTime / 86_400)
            if utcDay != lastDAUDay {
                lastDAUDay = utcDay
                add(layout.daily(utcDay))
            }
            let today = localDay(openTime)
            let sinceInstall = today - installDay
            if sinceInstall >= 1 && sinceInstall <= retentionCurveDays {
                result.retainedDays |= 1 << UInt32(sinceInstall - 1)
            }
            if openTime - unclaimedDelivery <= response.attributionSeconds {
                add(.attributed)
                unclaimedDelivery = -.infinity
            }
            if coldLaunch {
                add(.launches)
                if ruleCount > 0 {
                    cron.launch(onDay: today, counters: &counters) { rule, matched in
                        add(layout.rule(rule, .evaluated))
                        add(layout.rule(rule, matched ? .blockRuns : .elseRuns))
                        if matched && !ruleRan[rule] {
                            ruleRan[rule] = true
                            add(layout.rule(rule, .usersRan))
                            add(layout.firstRun(rule, day: min(max(sinceInstall, 0), layout.days)))
                        }
                        observer.record(.cronRule(index: rule, matched: matched))
                    }
                }
            }
            for r in 0..<reminderCount {
                // A notification that fired while the user was away was counted when it fired.
                reminders[r].becameActive(at: openTime, state: &states[r], coldLaunch: coldLaunch)
                observer.record(.reminderChecked(reminder: r, state: states[r]))
            }

            // The session, and the organic draws made after every session whatever happens next.
            let length = segment.session.sample(&organic)
            let dropoutDraw = organic.nextUnit()
            let repeatDropoutDraw = organic.nextUnit()
            let gap = sampleGap(segment.gaps, &organic, gapMean: traits.gapMeanSeconds)
            let close = openTime + length
            var organicNext = close + gap
            if !recorded.isEmpty {
                // Recorded visits that fell inside the session just closed are part of it; a visit a
                // notification brought in between recorded ones is an extra one.
                while nextRecorded < recorded.count, traits.install + recorded[recorded.startIndex + nextRecorded] <= close {
                    nextRecorded += 1
                }
                organicNext = nextRecorded < recorded.count
                    ? traits.install + recorded[recorded.startIndex + nextRecorded] : .infinity
            }
            if close >= horizon {
                // A session still open at the end never closes; what is pending fires in it or never.
                for r in 0..<reminderCount {
                    if let n = states[r].pending { outcome(r, n, n.fireTime >= horizon ? .censored : .foreground) }
                }
                observer.record(.horizon(time: horizon))
                break
            }
            observer.record(.close(time: close))
            for r in 0..<reminderCount {
                if let end = reminders[r].enteredBackground(at: close, state: &states[r], random: &messageStream) {
                    let n = end.notification
                    switch end {
                    case .cancelled: outcome(r, n, n.fireTime >= horizon ? .censored : .cancelled)
                    case .firedInForeground: outcome(r, n, .foreground)
                    case .firedInBackground: break
                    }
                }
                let n = states[r].pending!
                add(.scheduled)
                add(layout.message(messageBase[r] + n.messageIndex, .scheduled))
                add(layout.period(periodBase[r] + n.periodIndex, .scheduled))
                observer.record(.scheduled(reminder: r, notification: n, state: states[r]))
            }
            let wasDormant = dormant
            // An infinite gap is a draw past the longest return ever recorded: a dropout.
            if dropoutDraw < segment.dropoutPerSession
                || (sessionIndex > 0 && repeatDropoutDraw < traits.repeatDropout) || gap.isInfinite
            {
                dormant = true
            }
            if dormant && !wasDormant { observer.record(.droppedOut(time: close)) }
            sessionIndex += 1

            // Away: notifications fire in time order until the user opens again.
            var nextOpen = dormant ? Double.infinity : organicNext
            var nextCause = OpenCause.organic
            var responder = -1
            var fired: UInt64 = 0
            while true {
                var earliest = -1
                var earliestTime = Double.infinity
                for r in 0..<reminderCount where fired & (1 << UInt64(r)) == 0 {
                    if let n = states[r].pending, n.fireTime < earliestTime {
                        earliest = r
                        earliestTime = n.fireTime
                    }
                }
                // A fire at the very instant of the next open has fired: the engine's check at that open
                // sees no time left, so it is counted here.
                guard earliest >= 0, earliestTime <= nextOpen, earliestTime < horizon else { break }
                fired |= 1 << UInt64(earliest)
                let n = states[earliest].pending!
                if optedOut {
                    outcome(earliest, n, .suppressed)
                    continue
                }
                outcome(earliest, n, .delivered)
                unclaimedDelivery = n.fireTime
                var p = response.base * messageWeights[messageBase[earliest] + n.messageIndex] * fatigueFactor
                if let quiet = response.quiet {
                    let local = n.fireTime + offset
                    let secondOfDay = local - (local / 86_400).rounded(.down) * 86_400
                    if quiet.contains(hour: Int(secondOfDay / 3_600)) { p *= response.quietFactor }
                }
                if dormant { p *= response.dormantFactor }
                fatigueFactor *= response.fatigue
                let responds = responseStream.nextUnit() < p
                let optsOut = responseStream.nextUnit() < response.optOut
                let delay = response.delay.sample(&responseStream)
                observer.record(.responseDrawn(reminder: earliest, responds: responds, probability: min(p, 1), optOut: optsOut))
                if optsOut {
                    optedOut = true
                    add(.optOuts)
                }
                if responds {
                    let at = n.fireTime + delay
                    if at < nextOpen && at < horizon {
                        nextOpen = at
                        nextCause = .notification
                        responder = earliest
                    }
                }
            }
            if nextOpen >= horizon {
                for r in 0..<reminderCount {
                    if let n = states[r].pending, n.fireTime >= horizon { outcome(r, n, .censored) }
                }
                observer.record(.horizon(time: horizon))
                break
            }
            if nextCause == .notification {
                // The notification that brought the user back is the one whose response came first.
                let n = states[responder].pending!
                add(.responded)
                add(layout.message(messageBase[responder] + n.messageIndex, .responded))
                add(layout.period(periodBase[responder] + n.periodIndex, .responded))
                if dormant {
                    dormant = false
                    add(.revived)
                    observer.record(.revived(time: nextOpen))
                }
            }
            coldLaunch = nextOpen - close >= segment.coldLaunchSeconds
            openTime = nextOpen
            cause = nextCause
        }
        return result
    }

    @inline(__always)
    func sampleGap(_ gaps: GapSampler, _ g: inout Xoshiro256, gapMean: Double) -> Double {
        switch gaps {
        case let .exponential(d): return d.sample(&g)
        case let .weibull(d): return d.sample(&g)
        case let .lognormal(d): return d.sample(&g)
        case .bgnbd: return -gapMean * log(g.nextOpenUnit())
        case let .empirical(start, count): return empirical.sample(start: start, count: count, u: g.nextUnit())
        case let .kaplanMeier(start, count): return empirical.sampleOrNever(start: start, count: count, u: g.nextUnit())
        case .replay: return 0
        }
    }
}

