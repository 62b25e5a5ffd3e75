import Foundation
import Rendering
import Storage
import ReminderSimTestSupport
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The decision a run's report makes, and the page, JSON and CSV it is read from.
final class DecisionReportTests: ReminderSimTestCase {
    /// Periods 1, 2, 3 and 7 days and a 1/3/7 sequence, opt-outs under 3%, against "3d" shipped today.
    func decisionScenario() throws -> Any {
        var s = try defaultScenario()
        s["name"] = "which period"
        s["response"] = ["optOutPerDelivery": 0.01]
        s["configurations"] = [1, 2, 3, 7].map { d in
            ["label": "\(d)d", "reminders": [["messages": ["Come back"], "timePeriods": [d]]]] as [String: Any]
        } + [["label": "1/3/7d", "reminders": [["messages": ["Come back"], "timePeriods": [1, 3, 7]]]]]
        s["baseline"] = "3d"
        s["decision"] = ["objective": "opensLiftPerUser", "constraints": ["optOutRate": ["max": 0.03]]]
        return s
    }

    /// Ranked by opens, a configuration that breaks a constraint may come first: the terminal's and the
    /// report's ranking tables mark each one that does, and only those, and say what the mark means.
    func testTheRankingTablesMarkWhatBreaksAConstraint() throws {
        _ = try writeFile("decision.json", try JSONEdit.text(try decisionScenario()))
        let json = try remindersim("run", "decision.json", "--users", "3000", "--days", "40", "--threads", "2", "--json",
                                   "--db", "j.sqlite", "--out", "j")
        let decision = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["decision"]
            as? [String: Any])
        let excluded = Set((decision["constraints"] as? [[String: Any]])?.first?["excludes"] as? [String] ?? [])
        XCTAssertFalse(excluded.isEmpty, "the scenario should have a configuration over the limit")
        let run = try remindersim("run", "decision.json", "--users", "3000", "--days", "40", "--threads", "2")
        assertExit(run, 0)
        let markdown = try String(contentsOf: workDirectory.appendingPathComponent("Reports/which-period-1/report.md"), encoding: .utf8)
        let note = "‡ breaks the decision rule's constraint, opt-out rate ≤ 3.0%, on these estimates: whatever its rank here, the "
            + "rule does not recommend it on them."
        assertContains(run.stdout, "\n" + note + "\n")
        assertContains(markdown, "- " + note)
        for label in ["1d", "2d", "3d", "7d", "1/3/7d"] {
            let marked = excluded.contains(label)
            let row = try XCTUnwrap(run.stdout.split(separator: "\n").first { $0.first?.isNumber == true && $0.contains("  \(label)") }, label)
            XCTAssertEqual(row.contains("  \(label) ‡  "), marked, String(row))
            XCTAssertEqual(markdown.contains(" | \(label)\u{00A0}‡ | "), marked, label)
            XCTAssertEqual(markdown.contains(" | \(label) | documented | "), !marked, label)
        }
    }

    /// Under two constraints the mark alone cannot say which one a configuration breaks: the note names
    /// each marked configuration with what it breaks, and only that.
    func testTheMarkSaysWhichConstraintEachBreaks() throws {
        var s = try XCTUnwrap(try decisionScenario() as? [String: Any])
        s["decision"] = ["objective": "opensLiftPerUser",
                         "constraints": ["optOutRate": ["max": 0.03], "deliveredPerExtraOpen": ["max": 1_000]]]
        _ = try writeFile("two.json", try JSONEdit.text(s))
        let run = try remindersim("run", "two.json", "--users", "3000", "--days", "40", "--threads", "2", "--json",
                                  "--db", "two.sqlite", "--out", "two")
        assertExit(run, 0)
        let decision = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["decision"]
            as? [String: Any])
        let constraints = try XCTUnwrap(decision["constraints"] as? [[String: Any]])
        let byOptOut = try XCTUnwrap(constraints.first { $0["measure"] as? String == "optOutRate" }?["excludes"] as? [String])
        XCTAssertFalse(byOptOut.isEmpty, "the scenario should have a configuration over the opt-out limit")
        let markdown = try String(contentsOf: workDirectory.appendingPathComponent("two/which-period-1/report.md"), encoding: .utf8)
        let note = try XCTUnwrap(markdown.components(separatedBy: "\n").first { $0.hasPrefix("- ‡ breaks at least one of") }, markdown)
        let listed = try XCTUnwrap(note.components(separatedBy: "on them): ").last?.dropLast())
        XCTAssertEqual(Set(listed.components(separatedBy: "; ")), Set(byOptOut.map { "\($0): opt-out rate ≤ 3.0%" }), note)
        XCTAssertFalse(note.contains("delivered per extra open ≤"), note)
    }

    func testTheReportOpensWithTheDecision() throws {
        _ = try writeFile("decision.json", try JSONEdit.text(try decisionScenario()))
        let run = try remindersim("run", "decision.json", "--users", "3000", "--days", "40", "--threads", "2", "--json")
        assertExit(run, 0)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any],
                                 "run --json must print only JSON:\n\(run.stdout)")
        XCTAssertEqual(json["baseline"] as? String, "3d")
        let decision = try XCTUnwrap(json["decision"] as? [String: Any])
        let configurations = try XCTUnwrap(json["configurations"] as? [[String: Any]])
        XCTAssertEqual(configurations.map { $0["label"] as? String }, ["holdout", "1d", "2d", "3d", "7d", "1/3/7d"])
        // The recommendation is the admissible configuration with the most extra opens.
        func measure(_ label: String, _ name: String) -> Double? {
            ((configurations.first { $0["label"] as? String == label }?["measures"] as? [String: Any])?[name] as? [String: Any])?["value"] as? Double
        }
        for label in ["1d", "2d", "3d", "7d", "1/3/7d"] {
            for name in ["opensLiftPerUser", "optOutRate", "liftD30", "deliveredPerUser", "triggerRate"] {
                XCTAssertNotNil(measure(label, name), "run --json lacks \(name) of \(label)")
            }
        }
        XCTAssertNil(measure("holdout", "opensLiftPerUser"), "the holdout has no lift over itself")
        let admissible = ["1d", "2d", "3d", "7d", "1/3/7d"].filter { (measure($0, "optOutRate") ?? 1) <= 0.03 }
        let best = admissible.max { (measure($0, "opensLiftPerUser") ?? -1) < (measure($1, "opensLiftPerUser") ?? -1) }
        XCTAssertEqual(decision["recommended"] as? String, best)
        let excluded = (decision["constraints"] as? [[String: Any]])?.first?["excludes"] as? [String] ?? []
        XCTAssertEqual(Set(excluded), Set(["1d", "2d", "3d", "7d", "1/3/7d"]).subtracting(admissible))

        let folder = workDirectory.appendingPathComponent("Reports/which-period-1")
        let markdown = try String(contentsOf: folder.appendingPathComponent("report.md"), encoding: .utf8)
        // The decision comes first, before the run's details.
        let decisionAt = try XCTUnwrap(markdown.range(of: "## Decision")).lowerBound
        XCTAssertLessThan(decisionAt, try XCTUnwrap(markdown.range(of: "## Run")).lowerBound)
        assertContains(markdown, "Baseline: 3d")
        assertContains(markdown, "opt-out rate ≤ 3.0%")
        assertContains(markdown, "## Paired comparisons")
        assertContains(markdown, "## Per segment")
        // 7 days: a D7 lift to read with care; the D30 lift of every configuration is measurable.
        assertContains(markdown, "7d, D7 vs holdout: a period equals 7 days")
        MarkdownCheck.assertTablesIntact(markdown)

        // The page: well-formed, self-contained, with every chart inline and the same decision.
        let html = try String(contentsOf: folder.appendingPathComponent("report.html"), encoding: .utf8)
        let page = SVGInspection(html)
        XCTAssertNil(page.error, "report.html is not well-formed: \(String(describing: page.error))")
        for forbidden in ["<link", "<img", "<iframe", "src=", "@import", "url(", "https:"] {
            XCTAssertFalse(html.contains(forbidden), "report.html refers to something outside itself: \(forbidden)")
        }
        // The only URL is the SVG namespace, which names and never fetches.
        XCTAssertEqual(html.components(separatedBy: "http://").count - 1, html.components(separatedBy: "http://www.w3.org/2000/svg").count - 1)
        let svgs = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".svg") }
        XCTAssertEqual(html.components(separatedBy: "<svg ").count - 1, svgs.count, "every chart inline, once")
        XCTAssertTrue(html.contains("<strong>Cannot be told apart:</strong>") || html.contains("clearly behind"))
        XCTAssertTrue(html.contains("<strong>Ship \(HTMLText.escape(try XCTUnwrap(best)))"), "the page names the recommendation")

        // Period chart: the one-period configurations over their period in days.
        XCTAssertTrue(svgs.contains("opens-lift-by-period.svg"), "\(svgs)")

        // --csv-raw writes labels exactly; the default prefixes only what a spreadsheet would run.
        assertExit(try remindersim("export", "latest", "--csv", "raw", "--csv-raw"), 0)
        let pairs = try CSVTable.parse(String(contentsOf: workDirectory.appendingPathComponent("raw/pairwise_stats.csv"), encoding: .utf8))
        XCTAssertEqual(Array(pairs[0].prefix(3)), ["run_id", "config_index", "label"])
        XCTAssertEqual(pairs.count - 1, 6 * 5 * 5, "every ordered pair of six, five measures")
        let reminders = try CSVTable.parse(String(contentsOf: workDirectory.appendingPathComponent("raw/reminders.csv"), encoding: .utf8))
        let days = reminders[0].firstIndex(of: "period_days")!, label = reminders[0].firstIndex(of: "label")!
        XCTAssertEqual(reminders.dropFirst().filter { $0[label] == "1/3/7d" }.map { $0[days] }, ["1.0", "3.0", "7.0"],
                       "a REAL column is written as real numbers, as the database holds it")
    }

    func testScenarioDecisionProblemsAreRefused() throws {
        var s = try XCTUnwrap(decisionScenario() as? [String: Any])
        s["baseline"] = "5d"
        s["decision"] = ["objective": "fun", "constraints": ["optOutRate": ["max": 0.01, "min": 0.02], "x": ["max": 1]]]
        _ = try writeFile("bad.json", try JSONEdit.text(s))
        let result = try remindersim("validate", "bad.json")
        assertExit(result, 65)
        assertContains(result.stderr, "baseline: \"5d\" is the label of no configuration")
        assertContains(result.stderr, "decision.objective: unknown value \"fun\"")
        assertContains(result.stderr, "decision.constraints.optOutRate: min 0.02 is above max 0.01")
        assertContains(result.stderr, "decision.constraints.x: unknown measure")
    }
}

/// The page's text escaping, for looking things up in it.
enum HTMLText {
    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
