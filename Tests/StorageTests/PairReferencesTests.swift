import Foundation
import Simulation
import SimulationTestSupport
@testable import Storage
import ReminderSimTestSupport
import XCTest

/// `user_sums.pair_references` says which pairs a run's sums hold; older runs hold every pair.
final class PairReferencesTests: FolderTestCase {
    override var folderPrefix: String { "pairs" }

    /// `count` one-period configurations; fourteen are more than keep every pair.
    func scenario(_ count: Int = 14) -> Scenario {
        Scenario.onePeriodEach(Array(1...count), users: 300, days: 30)
    }

    func testARunOfTheDecisionsPairsReadsBackWithThem() throws {
        let s = scenario()
        let results = RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: 2, pairs: .decision)))
        let references = try XCTUnwrap(results.tallies.sums?.layout.references)
        let store = try RunStore(path: folder.appendingPathComponent("run.sqlite").path)
        let id = try store.save(RunRecord(results: results, toolVersion: "test", createdAt: "2026-12-03T00:00:00Z",
                                          wallSeconds: 1, threads: 2))
        XCTAssertEqual(try store.database.rows("SELECT pair_references FROM user_sums").first?.text(0),
                       references.map(String.init).joined(separator: ","))
        let back = try store.load(id).results
        XCTAssertEqual(back.tallies, results.tallies)
        XCTAssertEqual(try store.export(table: "pairwise_stats", run: id).rows.count, results.pairwise.count)
        XCTAssertLessThan(results.pairwise.count, 15 * 14 * PairMeasure.allCases.count)
    }

    /// A version-4 database's runs hold every pair (NULL) and read back unchanged.
    func testAVersionFourRunHoldsEveryPair() throws {
        let s = scenario(3)
        let results = RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: 2)))
        let path = folder.appendingPathComponent("old.sqlite").path
        try OlderDatabase.make(at: path, version: 4, holding: [results], scratch: folder)
        let store = try RunStore(path: path, create: false)
        XCTAssertEqual(try store.database.userVersion, Schema.currentVersion)
        let back = try store.load(1).results
        XCTAssertEqual(back.tallies, results.tallies)
        XCTAssertEqual(back.tallies.sums?.layout.pairs, .all)
    }

    func testDamagedReferencesAreRefusedNamingTheColumn() throws {
        let s = scenario(3)
        let results = RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: 2)))
        let store = try RunStore(path: folder.appendingPathComponent("bad.sqlite").path)
        let id = try store.save(RunRecord(results: results, toolVersion: "test", createdAt: "2026-12-03T00:00:00Z",
                                          wallSeconds: 1, threads: 2))
        for bad in ["", "1,2", "0,2,2", "0,4", "0,x", "0,-1", "0,99999999999999999999", "2,0"] {
            try store.database.execute("UPDATE user_sums SET pair_references = '\(bad)'")
            XCTAssertThrowsError(try store.load(id), bad) { error in
                XCTAssertTrue("\(error)".contains("user_sums.pair_references"), "\(bad): \(error)")
            }
        }
        // The holdout and another: a valid set of references, but not the one these sums were written with.
        try store.database.execute("UPDATE user_sums SET pair_references = '0,1'")
        XCTAssertThrowsError(try store.load(id)) { error in
            XCTAssertTrue("\(error)".contains("user_sums.counts"), "\(error)")
        }
    }
}
