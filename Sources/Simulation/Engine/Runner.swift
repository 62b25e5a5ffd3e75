import Dispatch
import Foundation
import Synchronization

/// How to run: threads, which users, and who hears about progress.
public struct RunOptions: Sendable {
    /// Worker threads; results do not depend on it.
    public var threads: Int
    /// The user indices to simulate: all of them, or one shard's share.
    public var users: Range<Int>?
    /// Users per unit of work handed to a thread, at most: a run of fewer than eight of them a thread is cut finer.
    public var chunkSize: Int
    /// Called from worker threads with the number of users just finished.
    public var progress: (@Sendable (Int) -> Void)?
    /// Which pairs of configurations the sums over users keep.
    public var pairs: PairChoice
    /// Whether the run keeps the sums over users behind the intervals; a caller that reads only the
    /// counts (`calibrate`'s moments) saves their work.
    public var keepsSums: Bool
    /// Whether those sums include the detail (`UserSumsLayout.keepsDetail`: per message and period,
    /// per day, per segment and platform), and the tallies theirs (per message and period slot, per
    /// hour, per run day, the retention curve; zero without it): a caller that reads
    /// configuration-level estimates and pairs only (a tune's racing batch) saves their work.
    public var keepsDetail = true
    /// Where the run adds up its work, if anyone asks (`run --stats`).
    public var meter: RunWorkMeter?
    /// Where the run keeps every user's pair inputs, to add pairs chosen after it (see
    /// `PairInputStore`); filled only when the run keeps sums and replays no recorded users.
    public var pairInputs: PairInputStore?
    /// Where the holdout's run of each user is kept for the next run of the same users, and taken
    /// from when an earlier run kept it (see `HoldoutCache`); used only by runs of the scenario it
    /// was made for (as far as the holdout reads it).
    public var holdoutCache: HoldoutCache?

    public init(threads: Int = ProcessInfo.processInfo.activeProcessorCount, users: Range<Int>? = nil,
                chunkSize: Int = 2_048, progress: (@Sendable (Int) -> Void)? = nil, pairs: PairChoice = .all,
                keepsSums: Bool = true) {
        self.threads = max(1, threads)
        self.users = users
        self.chunkSize = max(1, chunkSize)
        self.progress = progress
        self.pairs = pairs
        self.keepsSums = keepsSums
    }
}

/// Which pairs of configurations a run keeps the per-user differences of.
public enum PairChoice: Sendable {
    /// Every pair: work and storage grow with the square of the configurations.
    case all
    /// Every pair when there are at most `PairSet.everyPairUpTo` configurations; otherwise every
    /// configuration against the holdout, the baseline, the recommendation and the runner-up, found
    /// in two passes over the users (see `CompiledModel.run`).
    case decision
    /// Every configuration against the holdout and each of these configurations, in one pass: for a
    /// caller that knows the comparisons it will read (a tune's racing batch reads each candidate
    /// against the baseline and the leader), so that the work grows with the configurations.
    case references([Int])
}

/// The first user (and configuration) of a run that reached the session limit.
public struct SessionLimitBreach: Equatable, Sendable {
    public let user: Int
    public let configuration: Int

    public init(user: Int, configuration: Int) {
        self.user = user
        self.configuration = configuration
    }

    func precedes(_ other: SessionLimitBreach) -> Bool {
        (user, configuration) < (other.user, other.configuration)
    }
}

extension CompiledModel {
    /// Why a run that reached the session limit is refused, naming the user, the configuration and
    /// the segment whose fields to look at; `label`, the configuration's, when the run's own differs (a
    /// tune's runs number their candidates).
    public func explain(_ breach: SessionLimitBreach, label shown: String? = nil) -> String {
        let segment = traits(user: breach.user).segment
        let label = shown ?? configurations[breach.configuration].spec.label
        return "user \(breach.user) (segment \"\(scenario.population.segments[segment].name)\", "
            + (breach.configuration == 0 ? "holdout" : "configuration \"\(label)\"")
            + ") reached \(TextLimit.grouped(sessionLimit)) sessions, the limit of \(TextLimit.grouped(Scenario.maximumSessionsPerDay)) a day on average "
            + "over \(TextLimit.days(horizonDays)): population.segments[\(segment)] returns, session lengths or the response "
            + "delays give more sessions than a person can have; lengthen them"
    }
}

/// The counts a run produced: one tally per configuration, the holdout first, and the sums over
/// users that clustered intervals, paired comparisons and segments need (nil for a run stored
/// before they were kept).
public struct RunTallies: Equatable, Sendable {
    public var tallies: [Tally]
    public var users: Range<Int>
    public var sums: UserSums?
    /// For a run whose population replays recorded users: the totals per recorded user behind the
    /// intervals clustered by recorded user (nil otherwise, and for a run stored before they were kept).
    public var recordedUserSums: RecordedUserSums?
    /// Set when a user reached the session limit: the counts are then incomplete and the run must be
    /// refused. It is the breach of the lowest user index, whatever the threads.
    public var sessionLimitBreach: SessionLimitBreach?

    public init(tallies: [Tally], users: Range<Int>, sums: UserSums? = nil, recordedUserSums: RecordedUserSums? = nil) {
        self.tallies = tallies
        self.users = users
        self.sums = sums
        self.recordedUserSums = recordedUserSums
    }

    public mutating func merge(_ other: RunTallies) {
        precondition(tallies.count == other.tallies.count, "RunTallies.merge: configuration counts differ")
        for i in tallies.indices { tallies[i].merge(other.tallies[i]) }
        if let theirs = other.sums, sums != nil { sums!.merge(theirs) } else { sums = nil }
        if let theirs = other.recordedUserSums, recordedUserSums?.layout == theirs.layout {
            recordedUserSums!.merge(theirs)
        } else {
            recordedUserSums = nil
        }
        if let breach = other.sessionLimitBreach, sessionLimitBreach.map(breach.precedes) ?? true {
            sessionLimitBreach = breach
        }
    }
}

extension CompiledModel {
    /// The layout of configuration `index`'s tally (0 is the holdout).
    public func layout(_ index: Int) -> TallyLayout {
        let c = configurations[index]
        return TallyLayout(messageSlots: c.messageSlots, periodSlots: c.periodSlots, cronRules: c.cron.rules.count,
                           days: horizonDays)
    }

    /// The layout of the run's sums over users, holding every pair.
    public var userSumsLayout: UserSumsLayout { userSumsLayout(pairs: .all) }

    /// The layout of the run's sums over users holding `pairs`.
    public func userSumsLayout(pairs: PairSet, keepsDetail: Bool = true) -> UserSumsLayout {
        let layouts = configurations.indices.map { layout($0) }
        return UserSumsLayout(segments: segments.count, platforms: scenario.population.platforms?.count ?? 0, messageSlots: layouts.map(\.messageSlots),
                              periodSlots: layouts.map(\.periodSlots), days: horizonDays, pairs: pairs, keepsDetail: keepsDetail)
    }

    func emptyTallies(users: Range<Int>, sums: UserSumsLayout) -> RunTallies {
        RunTallies(tallies: configurations.indices.map { Tally(layout: layout($0)) }, users: users,
                   sums: UserSums(layout: sums), recordedUserSums: recordedUserSumsLayout(sums).map { RecordedUserSums(layout: $0) })
    }

    /// The layout of the totals per recorded user beside sums of layout `sums`: nil for a run without
    /// replay, and for one whose totals would hold more than `RecordedUserSumsLayout.maximumCount`.
    func recordedUserSumsLayout(_ sums: UserSumsLayout) -> RecordedUserSumsLayout? {
        guard recordedUsers > 0 else { return nil }
        let layout = RecordedUserSumsLayout(clusters: recordedUsers, sums: sums)
        return layout.count <= RecordedUserSumsLayout.maximumCount ? layout : nil
    }

    /// Simulates users `range` under every configuration and the holdout, adding into `counts`; stops at
    /// the first user who reaches the session limit, and returns who.
    func simulate(users range: Range<Int>, into counts: WorkerCounts, sums: inout UserSums, recorder: UserSumsRecorder?,
                  replay: RecordedUserRecorder?, pairInputs: PairInputStore? = nil, holdoutCache: HoldoutCache? = nil,
                  scratch: inout TimelineScratch) -> SessionLimitBreach? {
        let pairInputs = recordedUsers == 0 ? pairInputs : nil
        var observer = NoTimelineObserver()
        var outcomes = Array(repeating: UserOutcome(), count: configurations.count)
        // Pointers into the configurations' frozen buffers: `self` keeps them alive for the call.
        let views = configurations.map(\.view)
        let viewPointers = configurations.map(\.viewPointer)
        let sumsLayout = sums.layout
        // The configurations that can ride on the holdout's sessions (worth it from two on), and the others.
        let riders = Self.ridesAlong ? configurations.indices.dropFirst().filter { Self.ridesOnHoldout(views[$0]) } : []
        let alone = configurations.indices.dropFirst().filter { !riders.contains($0) }
        let everyOne = Array(configurations.indices.dropFirst())
        // Riders with the same cron rules take their answers from one trace per user.
        let launchGroups = Self.launchGroups(views, riders: riders)
        let groups = (launchGroups.max() ?? -1) + 1
        var traces = LaunchTraces()
        defer { traces.deallocate() }
        // Riders that walk alike take each shared walk from the first of them.
        let walks = UnsafeMutablePointer<RideWalks>.allocate(capacity: 1)
        walks.initialize(to: RideWalks(groups: Self.walkGroups(views, messages: counts.layouts.map(\.messageSlots), riders: riders,
                                                               launchGroups: launchGroups, detail: scratch.countsDetail),
                                       configurations: configurations.count))
        defer {
            walks.pointee.deallocate()
            walks.deinitialize(count: 1).deallocate()
        }
        let sharesWalks = !walks.pointee.isEmpty
        return sums.counts.withUnsafeMutableBufferPointer { sumsBuffer in
            let s = sumsBuffer.baseAddress!
            return outcomes.withUnsafeMutableBufferPointer { outcomes in
                // Configuration i's outcome for the user, with the user's sums recorded around it.
                func arm(_ i: Int, _ body: () -> UserOutcome) {
                    recorder?.begin(i, counts.base(i))
                    outcomes[i] = body()
                    recorder?.end(i, counts.base(i), activeDays: counts.activeDays, into: s, sumsLayout)
                }
                for user in range {
                    let t = traits(user: user)
                    scratch.beginUser(seed: seed, user: user)
                    // A replaying user: its terms also go to the totals of the recorded user it follows.
                    let row = t.replayUser >= 0 ? recordedUserRowStart[t.segment] + t.replayUser : -1
                    if row >= 0 { replay?.begin(segment: t.segment, sums: s) }
                    // The configurations first: the first one under which no notification brought
                    // the user back gives the holdout's counts without simulating it again.
                    // Otherwise the holdout takes over from the configuration that went furthest with
                    // the holdout's opens.
                    var holdoutDone = false
                    counts.holdoutStart.pointee.sessions = 0
                    let riding = riders.count >= 2 && t.replayUser < 0 && !needsGeneralRules(t)
                    if riding {
                        // The holdout first, its sessions recorded (or taken from an earlier run that
                        // kept them); the riders on them, then the others alone.
                        if let kept = holdoutCache?.restore(user, into: scratch.buffers, days: counts.activeDays) {
                            arm(0) {
                                addHoldout(following: kept, activeDays: counts.activeDays, layout: counts.layouts[0],
                                           counts: counts.base(0), detail: scratch.countsDetail)
                            }
                        } else {
                            let sessions = scratch.buffers.sessions
                            sessions.pointee.reset()
                            var log = SessionLog(sessions: sessions)
                            arm(0) {
                                simulateSharingDraws(
                                    user: user, traits: t, configuration: viewPointers[0], layout: counts.layouts[0],
                                    counts: counts.base(0), activeDays: counts.activeDays, scratch: &scratch, observer: &log)
                            }
                            holdoutCache?.keep(user, sessions: sessions.pointee, organic: scratch.buffers.organic,
                                               outcome: outcomes[0], days: counts.activeDays, words: activeDayWords)
                        }
                        holdoutDone = true
                        counts.holdoutDays.update(from: counts.activeDays, count: activeDayWords)
                        let holdout = outcomes[0]
                        if !holdout.exceededSessionLimit {
                            traces.beginUser(groups: groups)
                            if sharesWalks { walks.pointee.beginUser() }
                            // Riders are users at a fixed offset: their install day is worked out once.
                            let installDay = t.installDayAtFixedOffset
                            for i in riders {
                                let launches = launchGroups[i] >= 0 ? traces.trace(launchGroups[i]) : nil
                                arm(i) {
                                    rideAlong(user: user, traits: t, configuration: viewPointers[i], layout: counts.layouts[i],
                                              counts: counts.base(i), activeDays: counts.activeDays, holdout: holdout,
                                              holdoutDays: counts.holdoutDays, launches: launches, walks: sharesWalks ? (UnsafePointer(walks), i) : nil,
                                              installDay: installDay, scratch: &scratch)
                                }
                            }
                        }
                    }
                    // A holdout past the session limit leaves the riders to run alone, and to stop there too.
                    for i in riding && !outcomes[0].exceededSessionLimit ? alone : everyOne {
                        arm(i) {
                            simulateSharingDraws(
                                user: user, traits: t, configuration: viewPointers[i], layout: counts.layouts[i],
                                counts: counts.base(i), activeDays: counts.activeDays, scratch: &scratch,
                                observer: &observer, keep: holdoutDone ? nil : counts.holdoutStart)
                        }
                        if !holdoutDone && outcomes[i].hasHoldoutSessions {
                            arm(0) { addHoldout(following: outcomes[i], activeDays: counts.activeDays,
                                                layout: counts.layouts[0], counts: counts.base(0), detail: scratch.countsDetail) }
                            holdoutDone = true
                        }
                    }
                    if !holdoutDone {
                        let start = counts.holdoutStart.pointee.sessions > 0 ? UnsafePointer(counts.holdoutStart) : nil
                        arm(0) {
                            simulateSharingDraws(
                                user: user, traits: t, configuration: viewPointers[0], layout: counts.layouts[0],
                                counts: counts.base(0), activeDays: counts.activeDays, scratch: &scratch,
                                observer: &observer, from: start)
                        }
                    }
                    if let i = outcomes.firstIndex(where: \.exceededSessionLimit) {
                        return SessionLimitBreach(user: user, configuration: i)
                    }
                    for i in configurations.indices {
                        addPaired(outcomes[i], holdout: outcomes[0], layout: counts.layouts[i], counts: counts.base(i),
                                  detail: scratch.countsDetail)
                    }
                    if counts.meters {
                        for i in configurations.indices.dropFirst() {
                            counts.configurationOpens &+= outcomes[i].opens
                            counts.opensBeforeResponse &+= Int64(outcomes[i].opensBeforeResponse)
                        }
                    }
                    guard let recorder else { continue }
                    recorder.finish(segment: t.segment, outcomes: UnsafeBufferPointer(outcomes), into: s, sumsLayout)
                    if platformChoice != nil {
                        // The platforms' rows follow the segments' in the same sums.
                        recorder.finish(segment: segments.count + t.platform.platform, outcomes: UnsafeBufferPointer(outcomes),
                                        into: s, sumsLayout, groupOnly: true)
                    }
                    if row >= 0 { replay?.end(segment: t.segment, row: row, sums: s) }
                    pairInputs?.record(user: user, configurations: outcomes.count, recorder: recorder)
                }
                return nil
            }
        }
    }

    /// Adds the holdout's counts of a user whose run under a configuration (`o`, with its run days
    /// in `activeDays`) had no open a notification brought, and returns the holdout's outcome.
    ///
    /// Such a run is the holdout's, open for open: the organic draws are the same under every
    /// configuration, notifications that nobody answers change no open, no session and no
    /// dropout, and the holdout counts nothing but opens. So its counts are the configuration's
    /// opens, cold launches and daily active users.
    func addHoldout(following o: UserOutcome, activeDays: UnsafePointer<UInt64>, layout: TallyLayout,
                    counts: UnsafeMutablePointer<Int64>, detail: Bool) -> UserOutcome {
        addOpens(of: o, activeDays: activeDays, layout: layout, counts: counts, detail: detail)
        return o
    }

    /// The paired comparison of one user's outcome under a configuration with the holdout's; with
    /// `detail`, the retention curve's counts too.
    @inline(__always)
    func addPaired(_ o: UserOutcome, holdout: UserOutcome, layout: TallyLayout, counts: UnsafeMutablePointer<Int64>,
                   detail: Bool) {
        let lift = o.opens - holdout.opens
        counts[Counter.opensLiftSum.rawValue] &+= lift
        counts[Counter.opensLiftSquares.rawValue] &+= lift * lift
        // D1, D7 and D30, each written out so that its day's bit is a constant.
        @inline(__always) func retention(_ day: Int, _ retained: Counter, _ eligible: Counter, _ gained: Counter, _ lost: Counter) {
            guard o.eligible(day: day) else { return }
            counts[eligible.rawValue] &+= 1
            let here = o.retained(day: day), there = holdout.retained(day: day)
            counts[retained.rawValue] &+= one(here)
            counts[gained.rawValue] &+= one(here && !there)
            counts[lost.rawValue] &+= one(there && !here)
        }
        retention(1, .retainedD1, .eligibleD1, .gainedD1, .lostD1)
        retention(7, .retainedD7, .eligibleD7, .gainedD7, .lostD7)
        retention(30, .retainedD30, .eligibleD30, .gainedD30, .lostD30)
        guard detail else { return }
        // The curve: users retained on each day, and how many days each user can show.
        var days = o.retainedDays & ((UInt32(1) << UInt32(o.eligibleThrough)) &- 1)
        while days != 0 {
            counts[layout.curveRetained(day: days.trailingZeroBitCount + 1)] &+= 1
            days &= days &- 1
        }
        counts[layout.curveEligibleThrough(o.eligibleThrough)] &+= 1
    }

    /// Runs the scenario's users (or `options.users`) on `options.threads` threads.
    ///
    /// Work is handed out in chunks; each thread keeps its own tallies and they are added at the
    /// end. Every count is an integer, so the result is the same for any thread count or order.
    ///
    /// A user who reaches the session limit stops the run early: chunks after the first one that
    /// found such a user are not started. Chunks are handed out in order, so every chunk before it
    /// is finished and the breach reported is the lowest user's, whatever the threads.
    ///
    /// With `.decision` pairs and more than `PairSet.everyPairUpTo` configurations, the pairs the
    /// decision needs are found in two passes, so that the work grows with the configurations rather
    /// than their square: the first keeps every configuration against the holdout and the baseline,
    /// which is all the decision reads; the second simulates the same users again, whose draws are
    /// the same, keeping every configuration against the recommendation and the runner-up. The second
    /// pass is skipped when those are already references, and its tallies equal the first's.
    public func run(options: RunOptions = RunOptions()) -> RunTallies {
        if case let .references(references) = options.pairs {
            let kept = Set([0] + references.filter { configurations.indices.contains($0) }).sorted()
            return run(options: options, sums: userSumsLayout(pairs: .against(kept), keepsDetail: options.keepsDetail))
        }
        guard case .decision = options.pairs, configurations.count - 1 > PairSet.everyPairUpTo else {
            return run(options: options, sums: userSumsLayout(pairs: .all, keepsDetail: options.keepsDetail))
        }
        let first = RunTallies.firstReferences(scenario)
        let pass = run(options: options, sums: userSumsLayout(pairs: .against(first), keepsDetail: options.keepsDetail))
        guard pass.sessionLimitBreach == nil, let sums = pass.sums else { return pass }
        let more = pass.laterReferences(scenario: scenario, first: first)
        guard !more.isEmpty else { return pass }
        var again = options
        again.progress = nil
        again.pairInputs = nil
        let second = run(options: again, sums: userSumsLayout(pairs: .against(more), keepsDetail: options.keepsDetail))
        var out = pass
        out.sums = second.sums.flatMap { sums.gathering(.against((first + more).sorted()), from: [$0]) }
        out.recordedUserSums = out.sums.flatMap { all in
            pass.recordedUserSums.flatMap { p in second.recordedUserSums.flatMap { p.gathering(all.layout, from: [$0]) } }
        }
        return out
    }

    /// Set by tests to add the pairs' terms user by user, to check that gathering them changes nothing.
    nonisolated(unsafe) static var gathersPairs = true

    /// One pass over the users keeping the sums of layout `sumsLayout`.
    func run(options: RunOptions, sums sumsLayout: UserSumsLayout) -> RunTallies {
        let range = options.users ?? 0..<scenario.users
        // A small run is cut finer, at least eight chunks a thread, so that every thread has work and the
        // progress moves; the counts are integers, the same for any cut.
        let chunkSize = max(1, min(options.chunkSize, range.count / (max(options.threads, 1) * 8)))
        let chunks = (range.count + chunkSize - 1) / chunkSize
        let next = Atomic<Int>(0)
        let lastChunk = Atomic<Int>(Int.max)
        let results = Mutex<[RunTallies]>([])
        let threads = min(options.threads, max(chunks, 1))
        let holdoutCache = options.holdoutCache.flatMap { $0.fits(scenario) ? $0 : nil }
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            let counts = WorkerCounts(layouts: configurations.indices.map { layout($0) }, activeDayWords: activeDayWords)
            defer { counts.deallocate() }
            counts.meters = options.meter != nil
            var scratch = TimelineScratch()
            scratch.countsDetail = options.keepsDetail
            var sums = UserSums(layout: sumsLayout)
            let replay = options.keepsSums ? recordedUserSumsLayout(sumsLayout).map {
                RecordedUserRecorder(layout: $0, sums: sumsLayout, keepsOwnSquares: recordedUserRowStart.contains(-1))
            } : nil
            defer { replay?.deallocate() }
            // The pairs' terms are gathered unless replaying users read them user by user.
            let recorder = options.keepsSums ? UserSumsRecorder(
                layouts: counts.layouts, detail: sumsLayout.keepsDetail, segments: recordedUserSumsLayout(sumsLayout) != nil,
                gatheredPairs: replay == nil && Self.gathersPairs ? sumsLayout.pairList.count : nil) : nil
            defer { recorder?.deallocate() }
            var breach: SessionLimitBreach?
            while true {
                let chunk = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard chunk < chunks, chunk <= lastChunk.load(ordering: .relaxed) else { break }
                let lower = range.lowerBound + chunk * chunkSize
                let upper = min(lower + chunkSize, range.upperBound)
                breach = simulate(users: lower..<upper, into: counts, sums: &sums, recorder: recorder, replay: replay,
                                  pairInputs: options.pairInputs, holdoutCache: holdoutCache, scratch: &scratch)
                if breach != nil {
                    _ = lastChunk.min(chunk, ordering: .relaxed)
                    break
                }
                options.progress?(upper - lower)
            }
            if let recorder {
                sums.counts.withUnsafeMutableBufferPointer { if let s = $0.baseAddress { recorder.addGatheredPairs(into: s, sumsLayout) } }
            }
            options.meter?.add(configurationOpens: counts.configurationOpens, beforeResponse: counts.opensBeforeResponse)
            var mine = RunTallies(tallies: configurations.indices.map { counts.tally($0) }, users: range, sums: sums,
                                  recordedUserSums: replay?.sums())
            mine.sessionLimitBreach = breach
            results.withLock { $0.append(mine) }
        }
        var total = emptyTallies(users: range, sums: sumsLayout)
        for r in results.withLock({ $0 }) { total.merge(r) }
        if !options.keepsSums { (total.sums, total.recordedUserSums) = (nil, nil) }
        return total
    }
}

/// One worker's counts of every configuration in one flat buffer, configuration after
/// configuration in each `Tally`'s layout, so the loop adds through plain pointers; and the bitset
/// of the run days the current user opened the app under the configuration being simulated.
final class WorkerCounts {
    let layouts: [TallyLayout]
    private let starts: [Int]
    private let storage: UnsafeMutablePointer<Int64>
    let activeDays: UnsafeMutablePointer<UInt64>
    /// The holdout's run days of the current user, for the configurations that ride on its sessions.
    let holdoutDays: UnsafeMutablePointer<UInt64>
    /// The configurations' opens (the holdout's aside) and those before each one's first open a
    /// notification brought, for `RunWorkMeter`.
    var meters = false
    var configurationOpens: Int64 = 0
    var opensBeforeResponse: Int64 = 0
    /// Where the holdout's run of the current user can take over from a configuration's.
    let holdoutStart: UnsafeMutablePointer<HoldoutStart>

    init(layouts: [TallyLayout], activeDayWords: Int) {
        activeDays = .allocate(capacity: activeDayWords)
        activeDays.initialize(repeating: 0, count: activeDayWords)
        holdoutDays = .allocate(capacity: activeDayWords)
        holdoutDays.initialize(repeating: 0, count: activeDayWords)
        let startDays = UnsafeMutablePointer<UInt64>.allocate(capacity: activeDayWords)
        startDays.initialize(repeating: 0, count: activeDayWords)
        holdoutStart = .allocate(capacity: 1)
        holdoutStart.initialize(to: HoldoutStart(activeDays: startDays))
        self.layouts = layouts
        var starts: [Int] = [], total = 0
        for layout in layouts {
            starts.append(total)
            total += layout.count
        }
        self.starts = starts
        storage = .allocate(capacity: max(total, 1))
        storage.initialize(repeating: 0, count: max(total, 1))
    }

    /// Where configuration `i`'s counts start.
    @inline(__always) func base(_ i: Int) -> UnsafeMutablePointer<Int64> { storage + starts[i] }

    /// Configuration `i`'s counts as a `Tally`.
    func tally(_ i: Int) -> Tally {
        var tally = Tally(layout: layouts[i])
        for k in 0..<layouts[i].count { tally.counts[k] = storage[starts[i] + k] }
        return tally
    }

    func deallocate() {
        storage.deallocate()
        activeDays.deallocate()
        holdoutDays.deallocate()
        holdoutStart.pointee.activeDays.deallocate()
        holdoutStart.deallocate()
    }
}

/// What a run did, for `run --stats`: the sessions walked under the configurations (the holdout's
/// aside), and how many of them came before the configuration's first open a notification brought,
/// while its timeline was still the holdout's, open for open. That share is the part of the work a
/// configuration repeats of the holdout's.
public final class RunWorkMeter: Sendable {
    private let counts = Mutex<(opens: Int64, beforeResponse: Int64)>((0, 0))

    public init() {}

    func add(configurationOpens: Int64, beforeResponse: Int64) {
        counts.withLock { $0 = ($0.opens &+ configurationOpens, $0.beforeResponse &+ beforeResponse) }
    }

    /// Sessions walked under the configurations, and those before each one's first divergence from the holdout.
    public var configurationSessions: Int64 { counts.withLock { $0.opens } }
    public var sessionsBeforeDivergence: Int64 { counts.withLock { $0.beforeResponse } }
}
