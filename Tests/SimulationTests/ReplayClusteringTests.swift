import Foundation
@testable import Simulation
import SimulationTestSupport
import XCTest

/// Intervals of runs whose virtual users replay recorded users, clustered by recorded user.
final class ReplayClusteringTests: XCTestCase {
    func run(_ s: Scenario, daily: [Bool], options: RunOptions = RunOptions(threads: 2)) throws -> RunTallies {
        try CompiledModel(s, recorded: ReplayFixture.logs(daily: daily)).run(options: options)
    }

    /// The same counts without the totals per recorded user: every virtual user independent.
    func naive(_ s: Scenario, _ t: RunTallies) -> RunResults {
        var t = t
        t.recordedUserSums = nil
        return RunResults(scenario: s, tallies: t)
    }

    /// The per-user mean of `measure` among users replaying only daily (or only once-seen) recorded
    /// users, from one large run: a recorded user of one kind is every other of its kind, so these
    /// 20,000 virtual users are independent and their mean is within about 1% of the kind's.
    func kindMean(daily: Bool, _ read: (RunResults) -> Double?) throws -> Double {
        let s = ReplayFixture.scenario(users: 20_000, seed: 99)
        return try XCTUnwrap(read(naive(s, try run(s, daily: [daily]))))
    }

    /// Coverage: each replicate draws 50 recorded users afresh (each daily with chance 0.3) and
    /// replays them with 5,000 virtual users. What the intervals estimate is the mean over the
    /// population the recorded users are a sample of: for the holdout's D7 retention exactly 0.3
    /// (a daily user is retained on day 7, a once-seen one is not), for the opens gained per user
    /// 0.3 · m(daily) + 0.7 · m(once), each kind's mean from a large run of its own.
    ///
    /// Over 200 replicates the clustered intervals must cover at 95% within three binomial standard
    /// errors (√(0.95 · 0.05 / 200) ≈ 0.015). The intervals that take every virtual user as
    /// independent are too narrow (design effects of about 8 for the lift and 40 for retention here)
    /// and cover about half and a seventh of the time.
    func testClusteredIntervalsCoverThePopulationMeanAndNaiveOnesDoNot() throws {
        let share = 0.3
        let lift: (RunResults) -> Estimate? = { $0.configurations[0].metrics.opensLiftPerUser }
        let truthLift = share * (try kindMean(daily: true) { lift($0)?.value })
            + (1 - share) * (try kindMean(daily: false) { lift($0)?.value })
        let truthRetention = share
        let replicates = 200
        var covered = (clusteredLift: 0, naiveLift: 0, clusteredRetention: 0, naiveRetention: 0)
        func covers(_ e: Estimate?, _ truth: Double) -> Bool { e.map { $0.low <= truth && truth <= $0.high } ?? false }
        func covers(_ p: Proportion, _ truth: Double) -> Bool { p.interval.map { $0.low <= truth && truth <= $0.high } ?? false }
        for r in 0..<replicates {
            let daily = ReplayFixture.draw(recordedUsers: 50, dailyShare: share, seed: 1_000 + UInt64(r))
            let s = ReplayFixture.scenario(users: 5_000, seed: 5_000 + UInt64(r))
            let t = try run(s, daily: daily)
            let clustered = RunResults(scenario: s, tallies: t), plain = naive(s, t)
            XCTAssertNotNil(clustered.replay)
            covered.clusteredLift += covers(lift(clustered), truthLift) ? 1 : 0
            covered.naiveLift += covers(lift(plain), truthLift) ? 1 : 0
            covered.clusteredRetention += covers(clustered.holdout.metrics.retentionD7, truthRetention) ? 1 : 0
            covered.naiveRetention += covers(plain.holdout.metrics.retentionD7, truthRetention) ? 1 : 0
        }
        let n = Double(replicates), tolerance = 3 * (0.95 * 0.05 / n).squareRoot()
        for (name, count) in [("opens lift", covered.clusteredLift), ("D7 retention", covered.clusteredRetention)] {
            XCTAssertEqual(Double(count) / n, 0.95, accuracy: tolerance, "clustered \(name) coverage")
        }
        // Independent-user intervals: far below 95%.
        XCTAssertLessThan(Double(covered.naiveLift) / n, 0.75, "naive opens lift coverage")
        XCTAssertLessThan(Double(covered.naiveRetention) / n, 0.5, "naive D7 retention coverage")
    }

    /// Many more recorded users than virtual users: almost every recorded user replayed is replayed
    /// once (about 6 of the C(250, 2) pairs of virtual users share one), so the design effect is
    /// near 1; with 50 recorded users for 2,000 virtual users it is far above.
    func testDesignEffectIsNearOneWhenEachRecordedUserIsReplayedAboutOnce() throws {
        let spread = ReplayFixture.draw(recordedUsers: 5_000, dailyShare: 0.3, seed: 11)
        let s = ReplayFixture.scenario(users: 250, seed: 12)
        let few = try XCTUnwrap(RunResults(scenario: s, tallies: try run(s, daily: spread)).replaySummary)
        XCTAssertEqual(try XCTUnwrap(few.designEffect), 1, accuracy: 0.15)
        XCTAssertGreaterThan(few.recordedUsersReplayed, 235)

        let crowded = ReplayFixture.scenario(users: 2_000, seed: 13)
        let daily = ReplayFixture.draw(recordedUsers: 50, dailyShare: 0.3, seed: 14)
        let many = try XCTUnwrap(RunResults(scenario: crowded, tallies: try run(crowded, daily: daily)).replaySummary)
        XCTAssertGreaterThan(try XCTUnwrap(many.designEffect), 4)
        XCTAssertEqual(many.recordedUsersReplayed, 50)
        XCTAssertEqual(many.clusters, 50)
        XCTAssertEqual(many.effectiveUsers, Int64((2_000 / many.designEffect!).rounded()))
    }

    /// Totals that count more replaying users than the run has, or fewer than none, give no
    /// clustering (they come only from an edited database, which the store refuses first); and a
    /// design effect next to zero gives no effective user count rather than one past Int64.
    func testImpossibleTotalsGiveNoClustering() throws {
        let s = ReplayFixture.scenario(users: 200, seed: 31)
        let t = try run(s, daily: ReplayFixture.draw(recordedUsers: 10, dailyShare: 0.3, seed: 32))
        let totals = try XCTUnwrap(t.recordedUserSums), sums = try XCTUnwrap(t.sums)
        XCTAssertEqual(totals.replaying(of: 200)?.users, 200)
        XCTAssertEqual(totals.replaying(of: 200)?.recordedUsers, 10)
        XCTAssertNil(totals.replaying(of: 199))
        XCTAssertNotNil(ReplayClustering(totals, sums: sums, users: 200))
        for first in [Int64(-1), 1 << 50, Int64.max] {
            var edited = totals
            edited.counts[0] = first
            XCTAssertNil(edited.replaying(of: 200), "\(first)")
            XCTAssertNil(ReplayClustering(edited, sums: sums, users: 200), "\(first)")
        }
        // Each row below the run's users, but their sum past Int64 without the check.
        var wrapping = totals
        for row in 0..<wrapping.layout.clusters { wrapping.counts[row * wrapping.layout.width] = Int64.max / 4 }
        XCTAssertNil(wrapping.replaying(of: Int64.max / 2))

        let summary = ReplaySummary(users: 200, replayingUsers: 200, recordedUsersReplayed: 10, clusters: 10,
                                    objective: .opensLiftPerUser, configuration: 1, designEffect: 1e-17)
        XCTAssertNil(summary.effectiveUsers)
        let plain = ReplaySummary(users: 200, replayingUsers: 200, recordedUsersReplayed: 10, clusters: 10,
                                  objective: .opensLiftPerUser, configuration: 1, designEffect: 4)
        XCTAssertEqual(plain.effectiveUsers, 50)
    }

    /// Users of a segment that does not replay are their own clusters: the units are the recorded
    /// users replayed plus those users.
    func testUsersOfOtherSegmentsCountOneEach() throws {
        let s = ReplayFixture.scenario(users: 1_000, seed: 21, extraSegment: 1)
        let daily = ReplayFixture.draw(recordedUsers: 20, dailyShare: 0.3, seed: 22)
        let results = RunResults(scenario: s, tallies: try run(s, daily: daily))
        let r = try XCTUnwrap(results.replay)
        XCTAssertEqual(r.recordedUsersReplayed, 20)
        XCTAssertGreaterThan(r.replayingUsers, 400)
        XCTAssertLessThan(r.replayingUsers, 600)
        XCTAssertEqual(r.clusters, 1_000 - r.replayingUsers + 20)
    }

    /// The totals per recorded user, and so every interval, are the same for any thread count,
    /// chunk size or split of the users into shards.
    func testTotalsDoNotDependOnThreadsOrShards() throws {
        let s = ReplayFixture.scenario(users: 600, seed: 31, extraSegment: 0.5)
        let daily = ReplayFixture.draw(recordedUsers: 40, dailyShare: 0.3, seed: 32)
        let one = try run(s, daily: daily, options: RunOptions(threads: 1))
        let three = try run(s, daily: daily, options: RunOptions(threads: 3, chunkSize: 17))
        var shards = try run(s, daily: daily, options: RunOptions(threads: 2, users: 0..<250))
        shards.merge(try run(s, daily: daily, options: RunOptions(threads: 1, users: 250..<600, chunkSize: 7)))
        XCTAssertNotNil(one.recordedUserSums)
        XCTAssertEqual(one, three)
        XCTAssertEqual(one.tallies, shards.tallies)
        XCTAssertEqual(one.sums, shards.sums)
        XCTAssertEqual(one.recordedUserSums, shards.recordedUserSums)
        let a = RunResults(scenario: s, tallies: one), b = RunResults(scenario: s, tallies: shards)
        XCTAssertEqual(a.configurations[0].metrics.opensLiftPerUser, b.configurations[0].metrics.opensLiftPerUser)
        XCTAssertEqual(a.pairwise.map(\.difference), b.pairwise.map(\.difference))
    }

    /// Without the detail (a tune's racing batch) a replaying run keeps the same totals per recorded
    /// user, read from the segments' terms, and so the same clustered intervals.
    func testARunWithoutTheDetailKeepsTheTotals() throws {
        var s = ReplayFixture.scenario(users: 500, seed: 61, extraSegment: 0.5)
        s.configurations.append(ConfigurationSpec(label: "second", reminders: [ReminderSpec(messages: ["A"], timePeriods: [5])]))
        let daily = ReplayFixture.draw(recordedUsers: 30, dailyShare: 0.4, seed: 62)
        let full = try run(s, daily: daily)
        var options = RunOptions(threads: 3, chunkSize: 29)
        options.keepsDetail = false
        let lean = try run(s, daily: daily, options: options)
        XCTAssertNotNil(lean.recordedUserSums)
        XCTAssertEqual(lean.recordedUserSums, full.recordedUserSums)
        let (a, b) = (RunResults(scenario: s, tallies: full), RunResults(scenario: s, tallies: lean))
        XCTAssertNotNil(a.replay)
        for c in a.all.indices {
            for m in DecisionMeasure.allCases { XCTAssertEqual(b.all[c].estimate(m), a.all[c].estimate(m), "\(c) \(m)") }
        }
        XCTAssertEqual(b.pairwise.map(\.difference), a.pairwise.map(\.difference))
    }

    /// A run without replay keeps no totals, and its intervals are as before.
    func testARunWithoutReplayKeepsNoTotals() throws {
        var s = ReplayFixture.scenario(users: 300, seed: 41, extraSegment: 1)
        s.population.segments.removeFirst()
        let t = try CompiledModel(s).run(options: RunOptions(threads: 2))
        XCTAssertNil(t.recordedUserSums)
        let r = RunResults(scenario: s, tallies: t)
        XCTAssertNil(r.replay)
        XCTAssertNil(r.replaySummary)
        XCTAssertFalse(r.replaysRecordedUsers)
    }

    /// The width of the Wald interval of a paired proportion's discordant counts; nil for a mean.
    static func waldWidth(_ results: RunResults, _ c: PairwiseComparison) throws -> Double? {
        let sums = try XCTUnwrap(results.tallies.sums)
        let p = try XCTUnwrap(sums.layout.pairIndex(min(c.configuration, c.reference), max(c.configuration, c.reference)))
        let start = sums.layout.pair(at: p)
        func k(_ x: PairCounter) -> Int64 { sums.counts[start + x.rawValue] }
        let wald: Estimate?
        switch c.measure {
        case .optOutRate: wald = Estimate.pairedDifference(gained: k(.optOutOnlyA), lost: k(.optOutOnlyB), count: k(.users))
        case .retentionD7: wald = Estimate.pairedDifference(gained: k(.retainedD7OnlyA), lost: k(.retainedD7OnlyB), count: k(.eligibleD7))
        case .retentionD30:
            wald = Estimate.pairedDifference(gained: k(.retainedD30OnlyA), lost: k(.retainedD30OnlyB), count: k(.eligibleD30))
        case .opensPerUser, .deliveredPerUser: return nil
        }
        return try XCTUnwrap(wald).high - XCTUnwrap(wald).low
    }

    /// With clusters of one user each, the clustered sums are the naive ones: clustered intervals
    /// equal the independent-user ones (up to n/(n − 1) with n the same) and the design effect is 1.
    func testSingletonClustersChangeNothing() throws {
        // Users of a non-replaying segment only, plus one replaying user: every cluster holds one user.
        let s = ReplayFixture.scenario(users: 400, seed: 51, extraSegment: 400)
        let daily = ReplayFixture.draw(recordedUsers: 5_000, dailyShare: 0.5, seed: 52)
        let t = try run(s, daily: daily)
        let results = RunResults(scenario: s, tallies: t)
        let r = try XCTUnwrap(results.replay)
        XCTAssertEqual(r.recordedUsersReplayed, r.replayingUsers, "every recorded user replayed is replayed once")
        XCTAssertEqual(r.clusters, 400)
        let plain = naive(s, t)
        // The same values and, but for the n/(n − 1) the ratio form applies to the paired proportions, the same intervals.
        for (c, n) in zip(results.pairwise, plain.pairwise) {
            guard let a = c.difference, let b = n.difference else {
                XCTAssertNil(c.difference)
                XCTAssertNil(n.difference)
                continue
            }
            XCTAssertEqual(a.value, b.value, accuracy: 1e-12)
            // The plain run's paired proportions carry the score interval; the clustered form is Wald's, so
            // they are held to the Wald interval of the same discordant counts.
            let width = try Self.waldWidth(plain, n) ?? (b.high - b.low)
            XCTAssertEqual(a.high - a.low, width, accuracy: 1e-2 * width, "\(c.measure)")
        }
        XCTAssertEqual(results.configurations[0].metrics.opensLiftPerUser, plain.configurations[0].metrics.opensLiftPerUser)
        for m in PairMeasure.allCases {
            if let d = r.designEffect(1, 0, m) { XCTAssertEqual(d, 1, accuracy: 1e-12, "\(m)") }
        }
    }
}
