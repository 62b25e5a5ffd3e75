import Foundation
import Rendering
import ReminderSimTestSupport
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// A tune is kept as a run is: `list` shows it, `report` renders it again, `export` writes its
/// tables, and `tune` writes an HTML page beside its Markdown report.
final class StoredTuneCommandTests: ReminderSimTestCase {
    /// `Datasets/tune-periods.json` over 30 days with one to two periods of 1–4 days: a small, quick space.
    func tune(_ extra: String...) throws -> CommandResult {
        let data = try Data(contentsOf: TuneCommandTests.datasets.appendingPathComponent("tune-periods.json"))
        let space: [String: Any] = ["periods": ["min": 1, "max": 4], "sequenceLength": ["min": 1, "max": 2]]
        let edited = try JSONEdit.setting(space, at: "tune.space",
                                          in: JSONEdit.setting(30, at: "horizonDays", in: JSONSerialization.jsonObject(with: data)))
        _ = try writeFile("tune.json", try JSONEdit.text(edited))
        let result = try remindersim(arguments: ["tune", "tune.json", "--users", "600", "--threads", "2", "--db", "db.sqlite"] + extra)
        assertExit(result, 0)
        return result
    }

    func text(_ path: String) throws -> String {
        try String(contentsOf: workDirectory.appendingPathComponent(path), encoding: .utf8)
    }

    /// report.html says what report.md says, as one well-formed page with the charts inline and the
    /// measures named by their titles.
    func testTuneWritesAnHTMLReport() throws {
        _ = try tune("--out", "out")
        let html = try text("out/tune-periods-tune-1/report.html")
        XCTAssertNoThrow(try XMLDocument(data: Data(html.utf8), options: []), "report.html must be well-formed")
        assertContains(html, "<title>Tune: tune-periods</title>")
        assertContains(html, "<pre style=\"overflow-x: auto\">Tune of &quot;tune-periods&quot;")
        assertContains(html, "<th class=\"num\">clearly infeasible</th>")
        assertContains(html, "<figcaption>opens per user vs holdout against opt-out rate</figcaption>")
        XCTAssertEqual(html.components(separatedBy: "<svg").count - 1, 2, "both Pareto charts inline")
        XCTAssertFalse(html.contains("opensLiftPerUser against"), "the charts are named by their measures' titles")
    }

    /// `list` shows the tune beside the run, named as `report` and `export` take it.
    func testListShowsTunesBesideRuns() throws {
        let run = try remindersim("run", "--users", "300", "--days", "40", "--db", "db.sqlite", "--out", "out")
        assertExit(run, 0)
        _ = try tune("--out", "out")
        let list = try remindersim("list", "--db", "db.sqlite")
        assertExit(list, 0)
        assertContains(list.stdout, "run  scenario")
        let lines = list.stdout.split(separator: "\n").map(String.init)
        let row = try XCTUnwrap(lines.first { $0.hasPrefix("tune:1 ") }, list.stdout)
        assertContains(row, "tune-periods")
        assertContains(row, "600")
        let json = try remindersim("list", "--db", "db.sqlite", "--json")
        assertExit(json, 0)
        let objects = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(objects.count, 2)
        guard objects.count == 2 else { return }
        XCTAssertNil(objects[0]["kind"], "a run's object is as it was")
        XCTAssertEqual(objects[1]["kind"] as? String, "tune")
        XCTAssertEqual(objects[1]["id"] as? Int, 1)
        XCTAssertEqual(objects[1]["users"] as? Int, 600)
        let stored = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text("out/tune-periods-tune-1/recommendation.json").utf8))
            as? [String: Any])
        let recommended = (stored["configuration"] as? [String: Any])?["label"] as? String
        XCTAssertEqual(objects[1]["recommended"] as? String, recommended)
    }

    /// `report tune:1` writes the very report the tune wrote; `export tune:latest` its rows; a tune not
    /// stored is exit 66, a malformed name exit 64.
    func testReportAndExportTakeATune() throws {
        _ = try tune("--out", "out")
        let report = try remindersim("report", "tune:1", "--db", "db.sqlite", "--out", "again")
        assertExit(report, 0)
        assertContains(report.stdout, "Report of tune 1: again/tune-periods-tune-1/report.md")
        // How long it should take comes from the time the tune took, not the estimate of a new search.
        let line = try XCTUnwrap(report.stderrLines.first { $0.hasPrefix("report: tune 1 worked out again from its scenario: about ") || $0.hasPrefix("report: tune 1 worked out again from its scenario: under ") })
        XCTAssertNotNil(line.range(of: #"on \d+ threads? \(it took [^)]+ on \d+ threads? when stored\)$"#, options: .regularExpression), line)
        for file in ["report.md", "report.html", "candidates.csv", "recommendation.json", "pareto-opt-out-rate.svg"] {
            XCTAssertEqual(try text("again/tune-periods-tune-1/\(file)"), try text("out/tune-periods-tune-1/\(file)"), file)
        }

        let export = try remindersim("export", "tune:latest", "--db", "db.sqlite", "--csv", "csv")
        assertExit(export, 0)
        XCTAssertEqual(export.stdout, ["tunes", "tune_stages", "tune_candidates", "tune_constraint_values"]
            .map { "csv/\($0).csv\n" }.joined())
        let candidates = try CSVTable.parse(try text("csv/tune_candidates.csv"))
        let listed = try CSVTable.parse(try text("out/tune-periods-tune-1/candidates.csv"))
        XCTAssertEqual(candidates.first?.prefix(3), ["tune_id", "candidate_index", "label"])
        XCTAssertEqual(listed.first?.prefix(3), ["tune_id", "candidate_index", "label"])
        XCTAssertEqual(candidates.dropFirst().map { $0[2] }, listed.dropFirst().map { $0[2] }, "every candidate, in order")
        // The report's candidates join the table by tune and index.
        XCTAssertEqual(candidates.dropFirst().map { Array($0.prefix(2)) }, listed.dropFirst().map { Array($0.prefix(2)) })
        XCTAssertEqual(try CSVTable.parse(try text("csv/tunes.csv")).count, 2)

        let missing = try remindersim("report", "tune:9", "--db", "db.sqlite")
        assertExit(missing, 66)
        assertContains(missing.stderr, "db.sqlite: no tune 9 (see 'remindersim list')")
        let bad = try remindersim("export", "tune:first", "--db", "db.sqlite", "--csv", "csv")
        assertExit(bad, 64)
        assertContains(bad.stderr, "or a tune as tune:<number> or tune:latest")
        let help = try remindersim("report", "--help")
        assertContains(help.stdout, "tune:<number> or tune:latest")
    }

    /// A stored tune's report goes to the folder named by its number and replaces an earlier copy of
    /// itself there, as a run's does.
    func testAStoredTuneIsReportedUnderItsOwnNumber() throws {
        _ = try tune("--out", "out")
        _ = try tune("--out", "out", "--seed", "5")
        for _ in 0..<2 {
            let second = try remindersim("report", "tune:latest", "--db", "db.sqlite", "--out", "again")
            assertExit(second, 0)
            assertContains(second.stdout, "Report of tune 2: again/tune-periods-tune-2/report.md")
        }
        let first = try remindersim("report", "tune:1", "--db", "db.sqlite", "--out", "again")
        assertContains(first.stdout, "Report of tune 1: again/tune-periods-tune-1/report.md")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: workPath("again")).sorted(),
                       ["tune-periods-tune-1", "tune-periods-tune-2"])
        XCTAssertEqual(try text("again/tune-periods-tune-2/recommendation.json"), try text("out/tune-periods-tune-2/recommendation.json"))
    }
}
