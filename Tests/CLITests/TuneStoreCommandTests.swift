import Foundation
import ReminderSimTestSupport
import Storage
import XCTest

/// `remindersim tune` saves what it prints: the database holds every candidate, counted per stage as
/// the stage lines count them; the report draws the Pareto front it lists.
final class TuneStoreCommandTests: ReminderSimTestCase {
    /// `Datasets/tune-periods.json` with one to two periods of 1–8 days: 64 candidates.
    func tune(_ extra: String..., threads: Int = 2) throws -> CommandResult {
        let data = try Data(contentsOf: TuneCommandTests.datasets.appendingPathComponent("tune-periods.json"))
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        json["horizonDays"] = 40
        var tune = try XCTUnwrap(json["tune"] as? [String: Any])
        tune["space"] = ["periods": ["min": 1, "max": 8], "sequenceLength": ["min": 1, "max": 2]]
        json["tune"] = tune
        let file = try writeFile("tune.json", JSONSerialization.data(withJSONObject: json))
        return try remindersim(arguments: ["tune", file.path, "--users", "1200", "--threads", String(threads)] + extra)
    }

    /// The numbers of a stage line: "stage 1: 300 users, 64 evaluated, 2 dropped as clearly infeasible, …".
    func stageCounts(_ stdout: String) -> [(evaluated: Int, leftOut: Int, infeasible: Int, worse: Int)] {
        stdout.split(separator: "\n").filter { $0.hasPrefix("  stage ") }.map { line in
            func number(before words: String) -> Int {
                guard let r = line.range(of: " " + words) else { return 0 }
                let digits = line[..<r.lowerBound].reversed().prefix { $0.isNumber || $0 == "," }.reversed().filter(\.isNumber)
                return Int(String(digits)) ?? 0
            }
            return (number(before: "evaluated"), number(before: "left out beforehand"),
                    number(before: "dropped as clearly infeasible"), number(before: "as clearly worse"))
        }
    }

    func testTheDatabaseHoldsTheCandidatesTheStagesCount() throws {
        let result = try tune("--db", "tunes.sqlite", "--out", "out")
        assertExit(result, 0)
        assertContains(result.stdout, "Saved as tune 1 in tunes.sqlite; report: out/tune-periods-tune-1/report.md")
        let stages = stageCounts(result.stdout)
        XCTAssertGreaterThan(stages.count, 1)
        let db = try RunStore(path: workPath("tunes.sqlite"), create: false).database
        func count(_ sql: String, _ values: [SQLValue] = []) throws -> Int {
            Int(try XCTUnwrap(db.rows(sql, values).first?.integer(0)))
        }
        XCTAssertEqual(try count("SELECT COUNT(*) FROM tune_candidates WHERE tune_id = 1"), 65)
        XCTAssertEqual(try count("SELECT COUNT(*) FROM tune_constraint_values WHERE tune_id = 1"), 65 * 2)
        for (k, s) in stages.enumerated() {
            func left(_ outcome: String) throws -> Int {
                try count("SELECT COUNT(*) FROM tune_candidates WHERE left_stage = ? AND outcome = ?",
                          [.integer(Int64(k + 1)), .text(outcome)])
            }
            XCTAssertEqual(try left("clearly_infeasible"), s.infeasible, "stage \(k + 1)")
            XCTAssertEqual(try left("clearly_worse"), s.worse, "stage \(k + 1)")
            XCTAssertEqual(try left("left_out"), s.leftOut, "stage \(k + 1)")
            XCTAssertEqual(try count("SELECT evaluated FROM tune_stages WHERE stage = ?", [.integer(Int64(k + 1))]), s.evaluated)
        }
        XCTAssertEqual(try count("SELECT COUNT(*) FROM tune_candidates WHERE outcome IN ('winner', 'finalist')"), stages.last?.evaluated)
        // The recommendation printed is the winner stored, its configuration the one printed to paste.
        let recommendation = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf:
            workDirectory.appendingPathComponent("out/tune-periods-tune-1/recommendation.json"))) as? [String: Any])
        if let configuration = recommendation["configuration"] as? [String: Any] {
            let label = try XCTUnwrap(configuration["label"] as? String)
            let row = try XCTUnwrap(db.rows("SELECT configuration_json FROM tune_candidates WHERE outcome = 'winner'").first)
            XCTAssertEqual(try db.rows("SELECT winner_label FROM tunes").first?.text(0), label)
            assertContains(result.stdout, try XCTUnwrap(row.text(0)))
        }
        // A second tune into the same database is tune 2; the first is untouched.
        assertExit(try tune("--db", "tunes.sqlite", "--out", "out", threads: 1), 0)
        XCTAssertEqual(try count("SELECT COUNT(*) FROM tune_candidates WHERE tune_id = 2"), 65)
        XCTAssertEqual(try count("""
            SELECT COUNT(*) FROM tune_candidates a JOIN tune_candidates b USING (candidate_index)
            WHERE a.tune_id = 1 AND b.tune_id = 2 AND a.outcome = b.outcome AND a.stage = b.stage
              AND a.objective_value IS b.objective_value AND a.reason IS b.reason
            """), 65, "the same seed stores the same candidates whatever the threads")
    }

    func testAnUnwritableDatabaseStopsTheTuneBeforeItRuns() throws {
        try FileManager.default.createDirectory(at: workDirectory.appendingPathComponent("taken.sqlite"), withIntermediateDirectories: true)
        let result = try tune("--db", "taken.sqlite", "--out", "out")
        assertExit(result, 74)
        XCTAssertFalse(result.stderr.contains("tune: stage"), "the tune ran before its database was checked")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("out")))
    }

    /// Each constrained measure has its chart, linked from the report, drawing the front the report lists.
    func testTheParetoChartsDrawTheFrontTheReportLists() throws {
        assertExit(try tune("--out", "out"), 0)
        let folder = workDirectory.appendingPathComponent("out/tune-periods-tune-1")
        let report = try String(contentsOf: folder.appendingPathComponent("report.md"), encoding: .utf8)
        let sections = report.components(separatedBy: "![opens per user vs holdout against ").dropFirst()
        XCTAssertEqual(sections.count, 2, "one chart per constrained measure")
        for (section, file) in zip(sections, ["pareto-opt-out-rate.svg", "pareto-delivered-per-extra-open.svg"]) {
            assertContains(String(section.prefix(200)), "](\(file))", "report.md")
            let table = section.split(separator: "\n").drop { !$0.hasPrefix("|---") }.dropFirst().prefix { $0.hasPrefix("| ") }
            let front = table.map { String($0.dropFirst(2).prefix { $0 != "|" }).trimmingCharacters(in: .whitespaces) }
            XCTAssertFalse(front.isEmpty, file)
            let page = SVGInspection(data: try Data(contentsOf: folder.appendingPathComponent(file)))
            XCTAssertNil(page.error, file)
            XCTAssertEqual(page.badNumbers, [], file)
            for label in front { XCTAssertTrue(page.titles.contains(label), "\(file): front point \(label) is not drawn") }
            let line = try XCTUnwrap(page.attributes.first { $0.element == "polyline" && $0.name == "points" }?.value, file)
            XCTAssertEqual(line.split(separator: " ").count, front.count, "\(file): the front's line joins its points")
            XCTAssertTrue(page.texts.contains { $0.hasPrefix("every candidate at its last stage (65)") }, file)
            XCTAssertTrue(page.texts.contains { $0.hasPrefix("2: baseline \"3 days\"") } || page.texts.contains { $0.hasPrefix("1: baseline") }, file)
        }
    }

    /// Every file of the report folder, charts included, is the same for a seed whatever the threads (each
    /// tune the first of its own database, as `candidates.csv` names its tune).
    func testTheReportFolderIsTheSameWhateverTheThreads() throws {
        assertExit(try tune("--out", "out1", "--db", "one.sqlite", threads: 1), 0)
        assertExit(try tune("--out", "out3", "--db", "three.sqlite", threads: 3), 0)
        let one = workDirectory.appendingPathComponent("out1/tune-periods-tune-1")
        let three = workDirectory.appendingPathComponent("out3/tune-periods-tune-1")
        let files = try FileManager.default.contentsOfDirectory(atPath: one.path).sorted()
        XCTAssertEqual(files, ["candidates.csv", "pareto-delivered-per-extra-open.svg", "pareto-opt-out-rate.svg",
                               "recommendation.json", "report.html", "report.md"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: three.path).sorted(), files)
        for file in files {
            XCTAssertEqual(try Data(contentsOf: one.appendingPathComponent(file)), try Data(contentsOf: three.appendingPathComponent(file)),
                           "\(file) differs between 1 and 3 threads")
        }
    }
}
