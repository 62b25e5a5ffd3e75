import Foundation
import Simulation
import SimulationTestSupport
@testable import Storage
import ReminderSimTestSupport
import XCTest

/// `user_sums.recorded_users` and `recorded_user_sums`: the totals per recorded user of a run that
/// replays recorded users, so that a stored run's intervals are clustered as the run's were.
final class RecordedUserSumsStoreTests: FolderTestCase {
    override var folderPrefix: String { "recorded-sums" }

    let scenario = ReplayFixture.scenario(users: 500, seed: 61, extraSegment: 0.5)
    let daily = ReplayFixture.draw(recordedUsers: 30, dailyShare: 0.3, seed: 62)

    func tallies(_ users: Range<Int>? = nil) throws -> RunTallies {
        try CompiledModel(scenario, recorded: ReplayFixture.logs(daily: daily)).run(options: RunOptions(threads: 2, users: users))
    }

    func record(_ results: RunResults, shard: Shard? = nil) -> RunRecord {
        RunRecord(results: results, toolVersion: "test", createdAt: "2026-12-04T00:00:00Z", wallSeconds: 1, threads: 2, shard: shard)
    }

    func testAReplayRunReadsBackWithItsClusteredIntervals() throws {
        let results = RunResults(scenario: scenario, tallies: try tallies())
        XCTAssertNotNil(results.replay)
        let store = try RunStore(path: folder.appendingPathComponent("run.sqlite").path)
        let id = try store.save(record(results))
        XCTAssertEqual(try store.database.rows("SELECT recorded_users FROM user_sums").first?.integer(0), 30)
        let back = try store.load(id).results
        XCTAssertEqual(back.tallies, results.tallies)
        XCTAssertEqual(back.pairwise.map(\.difference), results.pairwise.map(\.difference))
        XCTAssertEqual(back.replaySummary?.designEffect, results.replaySummary?.designEffect)
        XCTAssertEqual(back.replaySummary?.clusters, results.replaySummary?.clusters)
    }

    /// Shards merged from the store give the whole run's totals, byte for byte.
    func testMergedShardsGiveTheWholeRunsTotals() throws {
        let whole = RunResults(scenario: scenario, tallies: try tallies())
        let store = try RunStore(path: folder.appendingPathComponent("shards.sqlite").path)
        var shards: [(source: String, run: StoredRun)] = []
        for k in 1...3 {
            let shard = try XCTUnwrap(Shard(index: k, count: 3))
            let part = RunResults(scenario: scenario, tallies: try tallies(shard.users(of: scenario.users)))
            let id = try store.save(record(part, shard: shard))
            shards.append(("shard \(k)", try store.load(id)))
        }
        let merged = try ShardMerge.merge(shards)
        XCTAssertEqual(merged.tallies.recordedUserSums, whole.tallies.recordedUserSums)
        XCTAssertEqual(merged.tallies.sums, whole.tallies.sums)
        XCTAssertEqual(merged.pairwise.map(\.difference), whole.pairwise.map(\.difference))
        XCTAssertEqual(Tally.encode(try XCTUnwrap(merged.tallies.recordedUserSums).counts),
                       Tally.encode(try XCTUnwrap(whole.tallies.recordedUserSums).counts))
    }

    /// Shards with totals over different recorded logs do not merge: the problem is named.
    func testShardsOverDifferentRecordedUsersAreRefused() throws {
        let store = try RunStore(path: folder.appendingPathComponent("mixed.sqlite").path)
        var shards: [(source: String, run: StoredRun)] = []
        for (k, count) in [(1, 30), (2, 31)] {
            let shard = try XCTUnwrap(Shard(index: k, count: 2))
            let logs = ReplayFixture.logs(daily: ReplayFixture.draw(recordedUsers: count, dailyShare: 0.3, seed: 62))
            let t = try CompiledModel(scenario, recorded: logs)
                .run(options: RunOptions(threads: 1, users: shard.users(of: scenario.users)))
            let id = try store.save(record(RunResults(scenario: scenario, tallies: t), shard: shard))
            shards.append(("shard \(k)", try store.load(id)))
        }
        XCTAssertThrowsError(try ShardMerge.merge(shards)) { error in
            XCTAssertTrue("\(error)".contains("31 recorded users"), "\(error)")
        }
    }

    /// A database of version 5 (before the totals were kept) opens, migrates and reads its runs back
    /// without totals: their intervals are the independent-user ones they were stored with.
    func testAVersionFiveRunReadsBackWithoutTotals() throws {
        let results = RunResults(scenario: scenario, tallies: try tallies())
        let path = folder.appendingPathComponent("old.sqlite").path
        try OlderDatabase.make(at: path, version: 5, holding: [results], scratch: folder)
        let store = try RunStore(path: path, create: false)
        XCTAssertEqual(try store.database.userVersion, Schema.currentVersion)
        let back = try store.load(1).results
        XCTAssertNil(back.tallies.recordedUserSums)
        XCTAssertEqual(back.tallies.sums, results.tallies.sums)
        XCTAssertNil(back.replay)
        XCTAssertTrue(back.replaysRecordedUsers)
    }

    func testDamagedTotalsAreRefusedNamingTheColumn() throws {
        let results = RunResults(scenario: scenario, tallies: try tallies())
        let store = try RunStore(path: folder.appendingPathComponent("bad.sqlite").path)
        let id = try store.save(record(results))
        for (update, column) in [("recorded_users = 29", "recorded_user_sums"), ("recorded_users = -1", "recorded_users"),
                                 ("recorded_users = 99999999999", "recorded_users"),
                                 ("recorded_user_sums = x'00'", "recorded_users"), ("recorded_user_sums = NULL", "recorded_user_sums"),
                                 ("recorded_users = 'x'", "recorded_users"),
                                 // The first recorded user replayed by 501 virtual users of 500, then by −1.
                                 ("recorded_user_sums = CAST(X'F501000000000000' || substr(recorded_user_sums, 9) AS BLOB)",
                                  "recorded_user_sums"),
                                 ("recorded_user_sums = CAST(X'FFFFFFFFFFFFFFFF' || substr(recorded_user_sums, 9) AS BLOB)",
                                  "recorded_user_sums")] {
            try store.database.execute("UPDATE user_sums SET \(update)")
            XCTAssertThrowsError(try store.load(id), update) { error in
                XCTAssertTrue("\(error)".contains("user_sums.\(column)"), "\(update): \(error)")
            }
            try store.database.run("UPDATE user_sums SET recorded_users = 30, recorded_user_sums = ?",
                                       [.blob(Tally.encode(try XCTUnwrap(results.tallies.recordedUserSums).counts))])
        }
        XCTAssertEqual(try store.load(id).results.tallies, results.tallies)
    }
}
