import Foundation
import ReminderSimTestSupport
import XCTest

/// `tune` under an uncertain response model: its final stage is decided again under the model's draws.
final class TuneModelDrawsTests: ReminderSimTestCase {
    /// Four reminders a day apart raced against a 3-day baseline under an opt-out limit, with
    /// `optOutPerDelivery` given as `optOut` (JSON text).
    func scenario(optOut: String) throws -> URL {
        try writeFile("tune.json", Self.scenarioText(optOut: optOut))
    }

    static func scenarioText(optOut: String) -> String {
        """
            {"name": "paces", "seed": 3, "users": 600, "horizonDays": 30,
             "population": {"installSpreadDays": 10,
               "segments": [{"name": "weekly", "returns": {"distribution": "exponential", "mean": 4, "unit": "days"}}]},
             "response": {"baseResponse": 0.08, "optOutPerDelivery": \(optOut)},
             "configurations": [
               {"label": "3 days", "reminders": [{"messages": ["Back?"], "timePeriods": [3], "unit": "days"}]}],
             "tune": {"baseline": "3 days", "objective": "opensLiftPerUser", "constraints": {"optOutRate": {"max": 0.03}},
               "space": {"periods": {"min": 1, "max": 6}, "unit": "days", "sequenceLength": {"min": 1, "max": 1}}}}
            """
    }

    func recommendation(_ file: URL, _ extra: String...) throws -> [String: Any] {
        let result = try remindersim(arguments: ["tune", file.path, "--users", "600", "--threads", "2", "--out", "out", "--json"] + extra)
        assertExit(result, 0)
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        return try XCTUnwrap(doc["recommendation"] as? [String: Any], result.stdout)
    }

    func testFinalistsAreDecidedUnderTheDrawsAndARangeOfNoWidthKeepsTheWinner() throws {
        let point = try recommendation(try scenario(optOut: "0.004"))
        XCTAssertNil(point["modelDraws"])
        let winner = try XCTUnwrap((point["configuration"] as? [String: Any])?["label"] as? String)

        let flat = try recommendation(try scenario(optOut: #"{"value": 0.004, "low": 0.004, "high": 0.004}"#), "--model-draws", "3")
        let draws = try XCTUnwrap(flat["modelDraws"] as? [String: Any], "\(flat)")
        XCTAssertEqual(draws["draws"] as? Int, 3)
        XCTAssertEqual(draws["recommended"] as? String, winner)
        XCTAssertEqual((flat["sensitivity"] as? [Any])?.count, 0, "the draws take the sensitivity runs' place")

        let wide = try recommendation(try scenario(optOut: #"{"value": 0.004, "low": 0.001, "high": 0.03}"#), "--model-draws", "6")
        let standings = try XCTUnwrap((wide["modelDraws"] as? [String: Any])?["configurations"] as? [[String: Any]])
        let total = standings.reduce(0.0) { $0 + ($1["probabilityBest"] as? Double ?? 0) }
        let none = try XCTUnwrap((wide["modelDraws"] as? [String: Any])?["noneFeasible"] as? Double)
        XCTAssertEqual(total + none, 1, accuracy: 1e-12)
    }
}

/// A stored tune is rendered again under the draws it was run with.
final class TuneStoredDrawsTests: ReminderSimTestCase {
    func testReportOfATuneUsesItsOwnModelDraws() throws {
        let file = TuneModelDrawsTests.scenarioText(optOut: #"{"value": 0.004, "low": 0.001, "high": 0.03}"#)
        try writeFile("tune.json", file)
        let tune = try remindersim("tune", "tune.json", "--users", "600", "--threads", "2", "--model-draws", "3",
                                   "--db", "t.sqlite", "--out", "first")
        assertExit(tune, 0)
        assertContains(tune.stdout, "3 draws")
        assertExit(try remindersim("report", "tune:1", "--db", "t.sqlite", "--out", "again"), 0)
        let first = try String(contentsOfFile: workPath("first/paces-tune-1/report.md"), encoding: .utf8)
        let again = try String(contentsOfFile: workPath("again/paces-tune-1/report.md"), encoding: .utf8)
        XCTAssertEqual(again, first)
    }
}
