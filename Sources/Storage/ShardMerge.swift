import FilePaths
import Simulation

/// Combining the shards of a split run into the whole run.
public enum ShardMerge {
    /// The whole run's results from its shards, after checking that they come from one scenario, seed
    /// and user count and cover every user exactly once. `source` names each shard in messages.
    ///
    /// The merged run keeps every pair of configurations the shards hold with `keepEveryPair`, else
    /// those the whole run keeps by default (`RunTallies.keepingDecisionPairs`).
    ///
    /// - Throws: `.invalid` listing every problem found.
    public static func merge(_ shards: [(source: String, run: StoredRun)], keepEveryPair: Bool = false) throws(StoreError) -> RunResults {
        guard let first = shards.first else { throw StoreError(.invalid, "no shards to merge") }
        guard let count = first.run.record.shard?.count else { throw StoreError(.invalid, "\(first.source): not a shard") }
        var problems: [String] = []
        var byIndex: [Int: (source: String, run: StoredRun)] = [:]
        for shard in shards {
            problems += Self.problems(of: shard, against: first, count: count)
            guard let k = shard.run.record.shard, k.count == count else { continue }
            if let other = byIndex[k.index] {
                problems.append("shard \(k) appears twice: \(other.source) and \(shard.source)")
            } else {
                byIndex[k.index] = shard
            }
        }
        if problems.isEmpty {
            // The shards given are all there are to look at: a count far above them is not listed shard by shard.
            let missing = count - byIndex.count
            if missing > 20 {
                problems.append("\(missing) of the \(count) shards are missing (\(byIndex.count) given)")
            } else {
                for k in 1...count where byIndex[k] == nil { problems.append("shard \(k)/\(count) is missing") }
            }
        }
        if !problems.isEmpty {
            throw StoreError(.invalid, "cannot merge these shards:\n" + problems.joined(separator: "\n"))
        }
        let reference = first.run.results
        var total = RunTallies(
            tallies: reference.tallies.tallies.map { Tally(layout: $0.layout) }, users: 0..<reference.scenario.users,
            sums: reference.tallies.sums.map { UserSums(layout: $0.layout) },
            recordedUserSums: reference.tallies.recordedUserSums.map { RecordedUserSums(layout: $0.layout) })
        for k in 1...count {
            if let shard = byIndex[k] { total.merge(shard.run.results.tallies) }
        }
        // Each shard's counts were checked when it was read; their sums are checked the same way.
        for (c, tally) in total.tallies.enumerated() {
            if let i = StoredCounts.firstOutOfRange(tally.counts) {
                throw StoreError(.invalid, "cannot merge these shards: count \(i) of configuration \(c) adds up to \(tally.counts[i]), beyond the ±2^50 any run can reach")
            }
        }
        if let counts = total.sums?.counts, let i = StoredCounts.firstOutOfRange(counts) {
            throw StoreError(.invalid, "cannot merge these shards: sum \(i) over users adds up to \(counts[i]), beyond the ±2^50 any run can reach")
        }
        if let counts = total.recordedUserSums?.counts, let i = StoredCounts.firstOutOfRange(counts) {
            throw StoreError(.invalid, "cannot merge these shards: total \(i) per recorded user adds up to \(counts[i]), beyond the ±2^50 any run can reach")
        }
        return RunResults(scenario: reference.scenario,
                          tallies: keepEveryPair ? total : total.keepingDecisionPairs(scenario: reference.scenario))
    }

    /// The scenario fields (as a scenario file names them) on which `a` and `b` differ.
    static func differingFields(_ a: Scenario, _ b: Scenario) -> [String] {
        let fields: [(String, Bool)] = [
            ("name", a.name != b.name), ("description", a.description != b.description), ("seed", a.seed != b.seed),
            ("users", a.users != b.users), ("horizonDays", a.horizonDays != b.horizonDays),
            ("startDate", a.startDate != b.startDate), ("population", a.population != b.population),
            ("response", a.response != b.response), ("configurations", a.configurations != b.configurations),
            ("grid", a.grid != b.grid), ("baseline", a.baseline != b.baseline), ("decision", a.decision != b.decision),
            ("tune", a.tune != b.tune), ("liveTest", a.liveTest != b.liveTest),
        ]
        return fields.filter(\.1).map(\.0)
    }

    /// Why one shard does not belong with the reference shard, if it does not.
    private static func problems(
        of shard: (source: String, run: StoredRun), against reference: (source: String, run: StoredRun), count: Int
    ) -> [String] {
        let (source, r) = (shard.source, shard.run.record)
        let ref = reference.run.record.scenario
        guard let k = r.shard else { return ["\(source): not a shard"] }
        var problems: [String] = []
        // Draws may change from one version to the next: shards of one run come from one build.
        let version = reference.run.record.toolVersion
        if r.toolVersion != version {
            problems.append("\(source): ran remindersim \(Path.shown(r.toolVersion, limit: 40)), but \(reference.source) "
                + "\(Path.shown(version, limit: 40)); shards of one run are run by one version, whose draws they share")
        }
        if r.scenario.seed != ref.seed {
            problems.append("\(source): seed \(r.scenario.seed), but \(reference.source) has seed \(ref.seed)")
        } else if r.scenario.users != ref.users {
            problems.append("\(source): \(r.scenario.users) users, but \(reference.source) has \(ref.users)")
        } else if (try? r.scenario.canonicalJSON()) != (try? ref.canonicalJSON()) {
            let fields = differingFields(r.scenario, ref)
            problems.append("\(source): a different scenario from \(reference.source) (\"\(r.scenario.name)\")"
                + (fields.isEmpty ? "" : ": its \(fields.joined(separator: ", ")) \(fields.count == 1 ? "differs" : "differ")"))
            // Its sums' other layout follows from it, and says nothing more.
            return problems
        }
        guard k.count == count else {
            return problems + ["\(source): shard \(k), but \(reference.source) is one of \(count)"]
        }
        switch (r.results.tallies.sums?.layout, reference.run.record.results.tallies.sums?.layout) {
        case let (mine?, theirs?) where mine != theirs:
            problems.append("\(source): its sums over users hold other pairs of configurations than \(reference.source)'s")
        // One shard's sums missing would leave the whole run without its paired comparisons.
        case (nil, _?), (_?, nil):
            let lacks = r.results.tallies.sums == nil
            problems.append("\(source) \(lacks ? "lacks" : "has") sums over users (table user_sums), "
                + "\(reference.source) \(lacks ? "has them" : "does not")")
        default: break
        }
        let mine = r.results.tallies.recordedUserSums?.layout, theirs = reference.run.record.results.tallies.recordedUserSums?.layout
        switch (mine, theirs) {
        case let (m?, t?) where m.clusters != t.clusters:
            problems.append("\(source): its totals are over \(m.clusters) recorded users, \(reference.source)'s over \(t.clusters)")
        case (nil, _?), (_?, nil):
            problems.append("\(source) \(mine == nil ? "lacks" : "has") totals per recorded user, "
                + "\(reference.source) \(mine == nil ? "has them" : "does not")")
        default: break
        }
        let expected = k.users(of: r.scenario.users)
        if r.results.users != expected {
            problems.append("\(source): covers users \(r.results.users), expected \(expected) for shard \(k)")
        }
        return problems
    }
}
