import Dispatch
import Synchronization

/// What a racing stage's runs counted of each configuration over the stage's users, kept for the
/// next stage, whose users begin with the same ones.
///
/// A configuration's run of a user depends on the user, the seed and the configuration, not on the
/// configurations run beside it. So the next stage, on users 0..<n′ of the same seed, need simulate
/// only users n..<n′ and add what this stage counted over 0..<n: each configuration's tally and its
/// own terms of the sums over users (`UserSumsLayout.ownRanges`), and, for the pairs, each user's
/// pair inputs (`PairInputStore`), from which the pairs with whatever the next stage pairs it with
/// (its leader may be another) are summed again. Every one of them is an integer sum over users, so
/// the next stage's counts are those of a run of all its users, count for count.
///
/// Memory grows with the users × the configurations kept: the caller keeps no more than
/// `fitting` says fit in `maximumBytes`, the best of them (a run of the next stage takes its users
/// from here only when it finds every one of its configurations kept). Used by one thread, which
/// hands its larger loops to up to `threads`.
final class StageShares {
    struct Share {
        /// The tally's nonzero counts (index, count), and its length.
        let tally: [(Int32, Int64)]
        let tallyCount: Int
        /// The nonzero own terms of the sums, by position in `UserSumsLayout.ownRanges` laid end to
        /// end, and the ranges' lengths.
        let sums: [(Int32, Int64)]
        let sumsLengths: [Int]
        /// The pair inputs of users 0..<users, in user order.
        let inputs: [PairInputStore.Packed]
        /// Whether the run counted the detail (`RunOptions.keepsDetail`): only a run that counts it
        /// the same way can take the share.
        let detail: Bool

        var bytes: Int {
            (tally.count + sums.count) * MemoryLayout<(Int32, Int64)>.stride
                + inputs.count * MemoryLayout<PairInputStore.Packed>.stride + 128
        }
    }

    /// The users kept: 0..<users.
    let users: Int
    private var shares: [Int: Share] = [:]
    private(set) var bytes = 0
    /// The most memory the shares of one stage may take: 32 MiB, some 4 million configuration-users
    /// (while a stage runs, it holds the stage before's and its own). Set lower by tests.
    nonisolated(unsafe) static var maximumBytes = 32 << 20
    /// The keys of the holdout and the baseline; the candidates' are their indices.
    static let holdout = -1, baseline = -2

    let threads: Int

    init(users: Int, threads: Int = 1) {
        self.users = users
        self.threads = max(1, threads)
    }

    func contains(_ key: Int) -> Bool { shares[key] != nil }

    var keys: Set<Int> { Set(shares.keys) }

    /// How many candidates' shares fit in `maximumBytes` beside the holdout's and the baseline's,
    /// each about as large as those kept (or a user's pair inputs per user when none is).
    var fitting: Int {
        let candidates = shares.keys.filter { $0 >= 0 }.count
        let each = candidates > 0 ? max(1, bytes / max(1, shares.count)) : users * MemoryLayout<PairInputStore.Packed>.stride + 128
        return max(0, Self.maximumBytes / each - 2)
    }

    /// Keeps, under `key`, configuration i of a run over users 0..<users: its counts in `run`, its
    /// pair inputs in `store`. Keeps nothing when the key is kept already, when the run or the store
    /// is of other users or misses an input, or when the run replays recorded users (whose clustered
    /// totals are not kept).
    func keep(_ key: Int, configuration i: Int, of run: RunTallies, store: PairInputStore?) {
        keep([(key, i)], of: run, store: store)
    }

    /// `keep` for each (key, configuration) of `items`, the shares made on up to `threads` threads.
    func keep(_ items: [(key: Int, configuration: Int)], of run: RunTallies, store: PairInputStore?) {
        guard let store, store.users == 0..<users, run.users == 0..<users, let sums = run.sums,
              run.recordedUserSums == nil, run.sessionLimitBreach == nil,
              store.configurations == run.tallies.count else { return }
        let wanted = items.filter { shares[$0.key] == nil && run.tallies.indices.contains($0.configuration) }
        guard !wanted.isEmpty else { return }
        // Each share is made apart from the others: a run of them per thread.
        let parts = min(threads, wanted.count)
        let made = Mutex<[Int: Share]>([:])
        DispatchQueue.concurrentPerform(iterations: parts) { p in
            var mine: [Int: Share] = [:]
            for w in stride(from: p, to: wanted.count, by: parts) {
                mine[w] = Self.share(configuration: wanted[w].configuration, of: run, sums: sums, store: store)
            }
            made.withLock { $0.merge(mine) { a, _ in a } }
        }
        let all = made.withLock { $0 }
        for (w, item) in wanted.enumerated() where shares[item.key] == nil {
            guard let share = all[w] else { continue }
            shares[item.key] = share
            bytes += share.bytes
        }
    }

    /// Configuration i's share of `run`, or nil when the store misses one of its inputs.
    private static func share(configuration i: Int, of run: RunTallies, sums: UserSums, store: PairInputStore) -> Share? {
        guard let inputs = store.column(i) else { return nil }
        var tally: [(Int32, Int64)] = []
        for (k, v) in run.tallies[i].counts.enumerated() where v != 0 { tally.append((Int32(k), v)) }
        let ranges = sums.layout.ownRanges(i)
        var own: [(Int32, Int64)] = []
        var at = 0
        for r in ranges {
            for k in r where sums.counts[k] != 0 { own.append((Int32(at + k - r.lowerBound), sums.counts[k])) }
            at += r.count
        }
        return Share(tally: tally, tallyCount: run.tallies[i].counts.count, sums: own, sumsLengths: ranges.map(\.count),
                     inputs: inputs, detail: sums.layout.keepsDetail)
    }

    func remove(_ key: Int) {
        if let s = shares.removeValue(forKey: key) { bytes -= s.bytes }
    }

    /// Forgets every share but those of `keys`.
    func keepOnly(_ keys: Set<Int>) {
        for key in Array(shares.keys) where !keys.contains(key) { remove(key) }
    }

    /// The counts of a run over users 0..<users of the configurations kept under `keys` (the run's
    /// configurations in order, the holdout first), in its tallies' `layouts` and sums `layout`; nil
    /// when one is not kept, or was kept in another layout or counting the detail otherwise.
    func tallies(_ keys: [Int], layouts: [TallyLayout], sums layout: UserSumsLayout) -> RunTallies? {
        guard keys.count == layouts.count, layout.configurations == keys.count else { return nil }
        var tallies: [Tally] = []
        var sums = UserSums(layout: layout)
        var columns: [[PairInputStore.Packed]] = []
        for (i, key) in keys.enumerated() {
            let ranges = layout.ownRanges(i)
            guard let s = shares[key], s.detail == layout.keepsDetail, s.tallyCount == layouts[i].count,
                  s.sumsLengths == ranges.map(\.count), s.inputs.count == users else { return nil }
            var tally = Tally(layout: layouts[i])
            for (k, v) in s.tally { tally.counts[Int(k)] = v }
            tallies.append(tally)
            // The positions rise through the ranges laid end to end.
            var r = 0, start = 0
            for (p, v) in s.sums {
                while Int(p) >= start + ranges[r].count {
                    start += ranges[r].count
                    r += 1
                }
                sums.counts[ranges[r].lowerBound + Int(p) - start] = v
            }
            columns.append(s.inputs)
        }
        if users > 0 { PairInputStore.addPairs(columns: columns, into: &sums, threads: threads) }
        return RunTallies(tallies: tallies, users: 0..<users, sums: sums)
    }

    /// Puts the pair inputs kept under `keys` (the store's configurations in order) into `store`'s
    /// first users, as a run of them would have recorded them.
    func fill(_ store: PairInputStore?, keys: [Int]) {
        guard let store else { return }
        for (i, key) in keys.enumerated() {
            if let s = shares[key] { store.fill(i, from: s.inputs) }
        }
    }
}
