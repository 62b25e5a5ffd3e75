import Foundation
import ReminderSimTestSupport
import XCTest

/// `run`'s decision holds the recommendation's gain to `decision.minimumDifference` and states it.
final class MinimumDifferenceReportTests: ReminderSimTestCase {
    /// Every day against a reminder 30 days after the last session, which hardly fires in 40 days:
    /// the gain in opens is clear, and far below 100 opens per user.
    func scenario(minimum: Double?) throws -> String {
        var s = try defaultScenario()
        s["name"] = "minimum"
        s["response"] = ["optOutPerDelivery": 0.01]
        s["configurations"] = [1, 2, 30].map { d in
            ["label": "\(d)d", "reminders": [["messages": ["Come back"], "timePeriods": [d]]]] as [String: Any]
        }
        s["baseline"] = "30d"
        var decision: [String: Any] = ["objective": "opensLiftPerUser", "constraints": [:] as [String: Any]]
        if let minimum { decision["minimumDifference"] = minimum }
        s["decision"] = decision
        return try JSONEdit.text(s)
    }

    func report(minimum: Double?, folder: String) throws -> String {
        _ = try writeFile("\(folder).json", scenario(minimum: minimum))
        let run = try remindersim("run", "\(folder).json", "--users", "2000", "--days", "40", "--threads", "2", "--out", folder)
        assertExit(run, 0)
        let out = workDirectory.appendingPathComponent(folder)
        let runs = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix("minimum-") }
        let dir = out.appendingPathComponent(try XCTUnwrap(runs.first, "no report folder in \(folder)"))
        return try String(contentsOf: dir.appendingPathComponent("report.md"), encoding: .utf8)
    }

    func testTheGainIsHeldToTheMinimumDifference() throws {
        let plain = try report(minimum: nil, folder: "plain")
        assertContains(plain, "smallest gain worth shipping 0 in opens per user vs holdout (the default", "report.md")
        assertContains(plain, "Against the baseline on opens per user: 1d is clearly better", "report.md")
        let strict = try report(minimum: 100, folder: "strict")
        assertContains(strict, "smallest gain worth shipping 100 in opens per user vs holdout", "report.md")
        assertContains(strict, "Against the baseline on opens per user: 1d is better, by less than what matters", "report.md")
    }
}
