import Randomness
import Synchronization

/// The holdout's run of each user, kept from one run to the next of a search that simulates the
/// same users many times (a tune's racing batches, its stages and its checks on the same seed).
///
/// The holdout's run of a user depends on the seed, the population and the horizon only: not on
/// the configurations beside it, the user count or the response model (it sends nothing). So
/// where the configurations ride on the holdout's sessions (`RideAlong.swift`), the first run that
/// simulates a user keeps what the riders read of it: its sessions, its organic draws and the
/// organic stream after them, its outcome and its run days. Later runs take them from here instead
/// of running the holdout again, and count the holdout as its own run counts it (`addHoldout`).
/// The counts are the same, one for one, whether a user was kept or not, so which users are kept
/// (up to a memory budget, first come first kept) changes no result.
///
/// Only for runs of the scenario it was made for, as far as the holdout reads it (the seed, the
/// population, the horizon and start date); other runs leave it alone. Free it with
/// `deallocate()` once the last run is over.
public final class HoldoutCache: @unchecked Sendable {
    /// The seed the users were simulated on, and how many users (0..<users) it can keep.
    public let seed: UInt64
    public let users: Int
    private let population: Population
    private let horizonDays: Int
    private let startDate: String
    /// The most bytes the kept users may take.
    public let budget: Int
    private let used = Atomic<Int>(0)
    /// Per user: its kept run, or nil. Each user is written once, by the thread that first ran it,
    /// and read by later runs only (a run's threads have all finished before the next run starts).
    private let entries: UnsafeMutablePointer<UnsafeMutablePointer<Entry>?>

    struct Entry {
        var outcome: UserOutcome
        var stream: Xoshiro256
        var draws: UnsafeMutablePointer<OrganicDraws>
        var drawCount: Int
        var opens: UnsafeMutablePointer<Double>
        var cold: UnsafeMutablePointer<Bool>
        var count: Int
        var closes: UnsafeMutablePointer<Double>
        var dormant: UnsafeMutablePointer<Bool>
        var closed: Int
        var droppedOut: Bool
        var days: UnsafeMutablePointer<UInt64>
        var words: Int

        func deallocate() {
            draws.deallocate()
            opens.deallocate()
            cold.deallocate()
            closes.deallocate()
            dormant.deallocate()
            days.deallocate()
        }
    }

    /// A cache for users 0..<users of `scenario` (its seed, population, horizon and start date),
    /// keeping them up to `budget` bytes. It covers no more users than the budget could keep (each
    /// takes at least its entry), so that its table of entries stays within the budget's reach
    /// whatever the user count; users past them run as if not kept.
    public init(for scenario: Scenario, users: Int, budget: Int = 64 << 20) {
        seed = scenario.seed
        population = scenario.population
        horizonDays = scenario.horizonDays
        startDate = scenario.startDate
        self.budget = max(0, budget)
        self.users = min(max(0, users), self.budget / MemoryLayout<Entry>.stride)
        entries = .allocate(capacity: max(self.users, 1))
        entries.initialize(repeating: nil, count: max(self.users, 1))
    }

    public func deallocate() {
        for u in 0..<users {
            guard let e = entries[u] else { continue }
            e.pointee.deallocate()
            e.deallocate()
        }
        entries.deallocate()
    }

    /// Whether runs of `scenario` have the holdout runs this cache keeps.
    func fits(_ scenario: Scenario) -> Bool {
        scenario.seed == seed && scenario.horizonDays == horizonDays && scenario.startDate == startDate
            && scenario.population == population
    }

    /// The users kept so far, and the bytes they take.
    public var keptUsers: Int { (0..<users).reduce(0) { $0 + (entries[$1] == nil ? 0 : 1) } }
    public var bytesUsed: Int { used.load(ordering: .relaxed) }

    /// Keeps user `user`'s holdout run, just finished: its `sessions`, the `organic` draws, its
    /// `outcome` and its run days (`words` words), unless it is kept already, lies outside the
    /// cache, reached the session limit (its riders then run alone) or would pass the budget.
    func keep(_ user: Int, sessions s: HoldoutSessions, organic: OrganicDrawCache, outcome: UserOutcome,
              days: UnsafePointer<UInt64>, words: Int) {
        guard user >= 0, user < users, entries[user] == nil, !outcome.exceededSessionLimit else { return }
        let bytes = MemoryLayout<Entry>.stride + organic.count * MemoryLayout<OrganicDraws>.stride
            + (s.count + s.closed) * (MemoryLayout<Double>.stride + MemoryLayout<Bool>.stride) + words * 8
        guard used.wrappingAdd(bytes, ordering: .relaxed).oldValue <= budget - bytes else {
            used.wrappingSubtract(bytes, ordering: .relaxed)
            return
        }
        func copy<T>(_ p: UnsafePointer<T>, _ n: Int) -> UnsafeMutablePointer<T> {
            let q = UnsafeMutablePointer<T>.allocate(capacity: max(n, 1))
            q.initialize(from: p, count: n)
            return q
        }
        let e = UnsafeMutablePointer<Entry>.allocate(capacity: 1)
        e.initialize(to: Entry(
            outcome: outcome, stream: organic.stream, draws: copy(organic.draws, organic.count), drawCount: organic.count,
            opens: copy(s.opens, s.count), cold: copy(s.cold, s.count), count: s.count,
            closes: copy(s.closes, s.closed), dormant: copy(s.dormant, s.closed), closed: s.closed,
            droppedOut: s.droppedOut, days: copy(days, words), words: words))
        entries[user] = e
    }

    /// User `user`'s kept run put back where the holdout's own run leaves it: its sessions into
    /// `buffers.sessions`, its organic draws and stream into `buffers.organic`, its run days into
    /// `days`; returns its outcome, or nil when the user is not kept.
    func restore(_ user: Int, into buffers: TimelineBuffers, days: UnsafeMutablePointer<UInt64>) -> UserOutcome? {
        guard user >= 0, user < users, let e = entries[user]?.pointee else { return nil }
        buffers.sessions.pointee.load(opens: e.opens, cold: e.cold, count: e.count, closes: e.closes, dormant: e.dormant,
                                      closed: e.closed, droppedOut: e.droppedOut)
        // One read and one write of the buffers' draws: each access to a class's property is checked.
        var organic = buffers.organic
        organic.count = 0
        organic.reserve(e.drawCount)
        organic.draws.initialize(from: e.draws, count: e.drawCount)
        (organic.count, organic.stream) = (e.drawCount, e.stream)
        buffers.organic = organic
        days.update(from: e.days, count: e.words)
        return e.outcome
    }
}
