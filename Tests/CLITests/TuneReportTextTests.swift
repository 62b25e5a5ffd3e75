import Foundation
import ReminderSimTestSupport
import XCTest

/// What the tune's report says of the listed configurations and the space, with numbers grouped as
/// run's are and charts whose axes read as words.
final class TuneReportTextTests: ReminderSimTestCase {
    /// `Datasets/tune-periods.json` over 40 days with single periods of 1–8 days, a minimum difference,
    /// the listed sequence outside the space, and 1,200 final users.
    func tune() throws -> (CommandResult, URL) {
        let data = try Data(contentsOf: TuneCommandTests.datasets.appendingPathComponent("tune-periods.json"))
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        json["horizonDays"] = 40
        var tune = try XCTUnwrap(json["tune"] as? [String: Any])
        tune["space"] = ["periods": ["min": 1, "max": 8], "sequenceLength": ["min": 1, "max": 2]]
        tune["minimumDifference"] = 0.05
        json["tune"] = tune
        let file = try writeFile("tune.json", JSONSerialization.data(withJSONObject: json))
        let result = try remindersim(arguments: ["tune", file.path, "--users", "1200", "--threads", "2", "--out", "out"])
        return (result, workDirectory.appendingPathComponent("out/tune-periods-tune-1"))
    }

    func testTheReportSaysWhereTheListedConfigurationsEnded() throws {
        let (result, folder) = try tune()
        assertExit(result, 0)
        assertContains(result.stdout, "smallest gain worth shipping 0.05 in opens per user")
        assertContains(result.stdout, "Listed configurations, where they ended:")
        assertContains(result.stdout, "\"1 day\" (in the space as \"1d\"): ")
        assertContains(result.stdout, "\"1/3/7d sequence\": ")
        let report = try String(contentsOf: folder.appendingPathComponent("report.md"), encoding: .utf8)
        assertContains(report, "## Listed configurations", "report.md")
        assertContains(report, "| 1/3/7d sequence | 1/3/7d sequence | ", "report.md")
        // Numbers of a thousand or more are grouped, as run's tables group them.
        assertContains(report, "| 2 (final) | 1,200 | ", "report.md")
        let recommendation = try XCTUnwrap(JSONSerialization.jsonObject(
            with: Data(contentsOf: folder.appendingPathComponent("recommendation.json"))) as? [String: Any])
        XCTAssertEqual(recommendation["minimumDifference"] as? Double, 0.05)
        XCTAssertEqual(recommendation["space"] as? [String: Int], ["timePeriods": 64, "listed": 6])
    }

    /// Periods of 20 to 24 days gain little in 40 days; the listed 1 day wins, and the summary says so.
    func testAListedWinnerIsNamedAsListed() throws {
        let data = try Data(contentsOf: TuneCommandTests.datasets.appendingPathComponent("tune-periods.json"))
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        json["horizonDays"] = 40
        var tune = try XCTUnwrap(json["tune"] as? [String: Any])
        tune["space"] = ["periods": ["min": 20, "max": 24]]
        tune["constraints"] = ["optOutRate": ["max": 0.05]]
        json["tune"] = tune
        let file = try writeFile("tune.json", JSONSerialization.data(withJSONObject: json))
        let result = try remindersim(arguments: ["tune", file.path, "--users", "1200", "--threads", "2", "--out", "out"])
        assertExit(result, 0)
        assertContains(result.stdout, "space: 5 timePeriods lists; 6 listed configurations in the race (0 of them in the space, 6 added)")
        assertContains(result.stdout, "Recommendation: \"1 day\" — a configuration the scenario lists\n")
        assertContains(result.stdout, "  \"1 day\": final stage, rank 1 of 11, opensLiftPerUser ")
        let recommendation = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: workDirectory
            .appendingPathComponent("out/tune-periods-tune-1/recommendation.json"))) as? [String: Any])
        XCTAssertEqual(recommendation["listed"] as? Bool, true)
        XCTAssertEqual(recommendation["listedLabel"] as? String, "1 day")
    }

    func testTheParetoChartsNameTheirAxesInWords() throws {
        let (result, folder) = try tune()
        assertExit(result, 0)
        let page = SVGInspection(data: try Data(contentsOf: folder.appendingPathComponent("pareto-opt-out-rate.svg")))
        XCTAssertNil(page.error)
        XCTAssertTrue(page.texts.contains { $0.hasPrefix("opens per user vs holdout") }, "\(page.texts)")
        XCTAssertTrue(page.texts.contains { $0.hasPrefix("opt-out rate (95% intervals") }, "\(page.texts)")
        XCTAssertFalse(page.texts.contains { $0.contains("opensLiftPerUser") || $0.contains("optOutRate") }, "\(page.texts)")
    }
}
