import Foundation
import Simulation
@testable import Storage
import ReminderSimTestSupport
import XCTest

/// A tune in the database: one row per candidate, counted per stage as the tune counts them, with
/// the reason it left, its measures at its last stage and a configuration that pastes back.
final class TuneStoreTests: FolderTestCase {
    override var folderPrefix: String { "tunestore" }

    /// A name that would break SQL written by concatenation.
    static let hostileName = "tiny'); DROP TABLE tunes; --"

    /// Single periods of 1 to 40 days over a 30-day run, at most 3 notifications delivered per user.
    /// What becomes of the candidates follows from the set-up: 1 and 2 days deliver more than 3 per
    /// user, far beyond the limit; a period of 30 days or more cannot fire within the run, so it
    /// gains nothing and is clearly worse than any leader that gains opens; 3 days is the shortest
    /// period within the limit, and so the most opens.
    static func tinyScenario(users: Int = 2_000) -> Scenario {
        var s = Scenario.builtInDefault
        s.name = hostileName
        s.users = users
        s.horizonDays = 30
        s.population.installSpreadDays = 5
        // Only the baseline is listed, and the space holds it.
        s.configurations = s.expandedConfigurations.filter { $0.label == "2d" }
        s.grid = nil
        s.tune = TuneSpec(baseline: "2d", rule: DecisionRule(objective: .opensLiftPerUser, constraints: [.deliveredPerUser: DecisionBound(max: 3)]),
                          space: TuneSpace(periods: TuneRange(min: 1, max: 40)))
        return s
    }

    nonisolated(unsafe) static var cached: TuneResult?

    /// The tiny tune, run once for every test of the class.
    static func tinyTune() throws -> TuneResult {
        if let cached { return cached }
        let result = try Tuner(scenario: tinyScenario(), threads: 2, finalists: 6).run()
        cached = result
        return result
    }

    func record(_ result: TuneResult) -> TuneRecord {
        TuneRecord(result: result, toolVersion: "test", createdAt: "2026-12-03T00:00:00Z", wallSeconds: 1, threads: 2)
    }

    func count(_ db: Database, _ sql: String, _ values: [SQLValue] = []) throws -> Int {
        Int(try XCTUnwrap(db.rows(sql, values).first?.integer(0)))
    }

    func testEveryCandidateIsStoredAndCountedPerStageAsTheTuneCounts() throws {
        let result = try Self.tinyTune()
        let store = try RunStore(path: folder.appendingPathComponent("t.sqlite").path)
        let id = try store.save(record(result))
        let db = store.database
        XCTAssertEqual(try count(db, "SELECT COUNT(*) FROM tune_candidates WHERE tune_id = ?", [.integer(id)]), 40)
        XCTAssertEqual(try db.rows("SELECT scenario_name FROM tunes WHERE tune_id = ?", [.integer(id)]).first?.text(0), Self.hostileName)
        XCTAssertGreaterThan(result.stages.count, 1, "the tiny tune should race before its final stage")
        for (k, s) in result.stages.enumerated() {
            let stage = SQLValue.integer(Int64(k + 1))
            func left(_ outcome: String) throws -> Int {
                try count(db, "SELECT COUNT(*) FROM tune_candidates WHERE tune_id = ? AND left_stage = ? AND outcome = ?",
                          [.integer(id), stage, .text(outcome)])
            }
            XCTAssertEqual(try left("clearly_infeasible"), s.infeasible, "stage \(k + 1)")
            XCTAssertEqual(try left("clearly_worse"), s.worse, "stage \(k + 1)")
            XCTAssertEqual(try left("left_out"), s.overCapacity, "stage \(k + 1)")
            let row = try XCTUnwrap(db.rows(
                "SELECT users, left_out, evaluated, clearly_infeasible, clearly_worse, went_on, is_final FROM tune_stages WHERE tune_id = ? AND stage = ?",
                [.integer(id), stage]).first)
            XCTAssertEqual(Array(row.values.prefix(5)), [s.users, s.overCapacity, s.evaluated, s.infeasible, s.worse].map { .integer(Int64($0)) })
            XCTAssertEqual(row.integer(6), k == result.stages.count - 1 ? 1 : 0)
        }
        XCTAssertEqual(try count(db, "SELECT COUNT(*) FROM tune_candidates WHERE outcome IN ('winner', 'finalist')"),
                       result.stages.last?.evaluated)
        XCTAssertEqual(try count(db, "SELECT COUNT(*) FROM tune_candidates WHERE stage >= 1"), result.stages[0].evaluated)
        // Every candidate's constrained measure at its last stage, as the tune measured it there.
        XCTAssertEqual(try count(db, "SELECT COUNT(*) FROM tune_constraint_values WHERE measure = 'deliveredPerUser'"), 40)
        for (c, outcome) in result.candidates.enumerated() {
            let row = try XCTUnwrap(db.rows(
                "SELECT value, value_low, value_high, limit_max, met FROM tune_constraint_values WHERE candidate_index = ?",
                [.integer(Int64(c))]).first)
            let e = try XCTUnwrap(outcome.figures?.measures[.deliveredPerUser])
            XCTAssertEqual(row.values, [.real(e.value), .real(e.low), .real(e.high), .real(3), .integer(e.value <= 3 ? 1 : 0)])
        }
    }

    /// The reasons the set-up predicts (see `tinyScenario`), and the evidence stored with each.
    func testReasonsAreTheOnesTheSpacePredicts() throws {
        let result = try Self.tinyTune()
        let store = try RunStore(path: folder.appendingPathComponent("t.sqlite").path)
        let id = try store.save(record(result))
        let rows = try store.database.rows(
            """
            SELECT label, outcome, constraint_measure, leader_label, comparison, decisive_low, decisive_high, objective_value,
                   final_rank, reason
            FROM tune_candidates WHERE tune_id = ? ORDER BY candidate_index
            """, [.integer(id)])
        let byLabel = Dictionary(uniqueKeysWithValues: rows.map { ($0.text(0)!, $0) })
        for label in ["1d", "2d"] {
            let row = try XCTUnwrap(byLabel[label])
            XCTAssertEqual(row.text(1), "clearly_infeasible", label)
            XCTAssertEqual(row.text(2), "deliveredPerUser", label)
            XCTAssertGreaterThan(try XCTUnwrap(row.real(5)), 3, "\(label): its interval at the race's z lies above the limit")
            XCTAssertTrue(row.text(9)?.hasPrefix("clearly infeasible at 500 users: deliveredPerUser") ?? false, "\(row.values)")
            // The interval shown is the one the drop used, and says its level.
            let reason = try XCTUnwrap(row.text(9))
            let low = try XCTUnwrap(row.real(5)), high = try XCTUnwrap(row.real(6))
            // Notifications per user are skewed: the interval allows for it, from the users' own counts.
            XCTAssertTrue(reason.contains(String(format: "[%.3f, %.3f] (", low, high))
                              && reason.contains("% interval, allowing for skewness) lies above"), reason)
        }
        let winner = try XCTUnwrap(byLabel["3d"])
        XCTAssertEqual(winner.text(1), "winner")
        XCTAssertEqual(winner.integer(8), 1)
        XCTAssertEqual(winner.values[9], .null)
        XCTAssertEqual(try store.database.rows("SELECT winner_label FROM tunes").first?.text(0), "3d")
        for period in 30...40 {
            let row = try XCTUnwrap(byLabel["\(period)d"])
            XCTAssertEqual(row.text(1), "clearly_worse", "\(period)d")
            XCTAssertEqual(row.text(3), "3d", "\(period)d: the leader")
            XCTAssertEqual(row.text(4), "paired", "\(period)d")
            XCTAssertEqual(row.real(7), 0, "\(period)d gains nothing")
            XCTAssertLessThan(try XCTUnwrap(row.real(6)), 0, "\(period)d: the paired difference lies below zero")
        }
        // Finalists that did not win have a rank and no reason; nobody else has a rank.
        for row in rows where row.text(1) == "finalist" {
            XCTAssertGreaterThan(try XCTUnwrap(row.integer(8)), 1)
            XCTAssertEqual(row.values[9], .null)
        }
        XCTAssertTrue(rows.filter { $0.text(1) != "finalist" && $0.text(1) != "winner" }.allSatisfy { $0.values[8] == .null })
    }

    /// A candidate's stored configuration, pasted into a scenario's `configurations`, reads back as
    /// the candidate.
    func testStoredConfigurationPastesBack() throws {
        let result = try Self.tinyTune()
        let store = try RunStore(path: folder.appendingPathComponent("t.sqlite").path)
        let id = try store.save(record(result))
        let text = try XCTUnwrap(store.database.rows(
            "SELECT configuration_json FROM tune_candidates WHERE tune_id = ? AND label = '5d'", [.integer(id)]).first?.text(0))
        var scenario = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(Scenario.builtInDefault.canonicalJSON().utf8)) as? [String: Any])
        scenario["configurations"] = [try JSONSerialization.jsonObject(with: Data(text.utf8))]
        let pasted = try Scenario.decode(String(decoding: JSONSerialization.data(withJSONObject: scenario), as: UTF8.self))
        XCTAssertEqual(pasted.configurations, [try XCTUnwrap(result.candidates.first { $0.spec.label == "5d" }?.spec)])
    }

    func testAFailedTuneSaveLeavesNothingBehind() throws {
        let result = try Self.tinyTune()
        let store = try RunStore(path: folder.appendingPathComponent("f.sqlite").path)
        // The constrained measures are the last rows written.
        try store.database.execute(
            "CREATE TEMP TRIGGER fail BEFORE INSERT ON main.tune_constraint_values BEGIN SELECT RAISE(ABORT, 'disk on fire'); END")
        XCTAssertThrowsError(try store.save(record(result))) { XCTAssertTrue("\($0)".contains("disk on fire")) }
        try store.database.execute("DROP TRIGGER temp.fail")
        for table in ["tunes", "tune_stages", "tune_candidates", "tune_constraint_values"] {
            XCTAssertEqual(try count(store.database, "SELECT COUNT(*) FROM \(table)"), 0, table)
        }
        XCTAssertEqual(try store.save(record(result)), 1)
    }

    /// The candidates' JSON is written on several threads, in the candidates' order, the same text
    /// whatever the threads and however the candidates split among them.
    func testCandidatesJSONIsTheSameOnAnyThreads() throws {
        let specs = try Self.tinyTune().candidates.map(\.spec)
        let many = Array(repeating: specs, count: 30).joined().enumerated().map { i, spec in
            var s = spec
            s.label = "\(i) \(spec.label)"
            return s
        }
        XCTAssertGreaterThan(many.count, 1_000)
        let one = many.map { try? $0.canonicalJSON() }
        XCTAssertEqual(one.count, many.count)
        XCTAssertFalse(one.contains(nil))
        for threads in [1, 2, 3, 7] {
            XCTAssertEqual(ConfigurationSpec.canonicalJSON(of: many, threads: threads), one, "\(threads) threads")
        }
        XCTAssertEqual(ConfigurationSpec.canonicalJSON(of: Array(many.prefix(5)), threads: 4), Array(one.prefix(5)))
        XCTAssertEqual(ConfigurationSpec.canonicalJSON(of: [], threads: 4), [])
    }
}
