import Foundation
import Storage
import ReminderSimTestSupport
import XCTest

/// A run saved before the limits on new scenarios existed (a label of hundreds of characters, a
/// decision bound outside the values its measure can take) is still read back: the limits keep a
/// new run's work bounded, and an old run's work is done.
final class StoredScenarioTests: ReminderSimTestCase {
    static let long = String(repeating: "seven days, ", count: 30)

    /// The default scenario with a decision whose opt-out bound is 0.03, or `edited`: a 360-character
    /// label and a bound of 3 (meant as 3%), which new scenarios may not have.
    func scenario(edited: Bool) throws -> String {
        var json = try defaultScenario()
        json["users"] = 100
        json["horizonDays"] = 35
        json["decision"] = ["objective": "opensLiftPerUser", "constraints": ["optOutRate": ["max": edited ? 3 : 0.03]]]
        if edited, var configurations = json["configurations"] as? [[String: Any]] {
            configurations[0]["label"] = Self.long
            json["configurations"] = configurations
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), as: UTF8.self)
    }

    func testARunSavedBeforeTheLimitsIsStillRead() throws {
        try writeFile("new.json", try scenario(edited: false))
        assertExit(try remindersim("run", "new.json", "--threads", "1", "--db", "runs.sqlite", "--out", "first"), 0)
        // As a run saved by a release without the limits would hold it.
        do {
            let database = try Database(path: workPath("runs.sqlite"), create: false)
            let old = try scenario(edited: true).replacingOccurrences(of: "'", with: "''")
            try database.execute("UPDATE runs SET scenario_json = '\(old)' WHERE run_id = 1")
        }
        assertExit(try remindersim("list", "--db", "runs.sqlite"), 0)
        assertExit(try remindersim("report", "1", "--db", "runs.sqlite", "--out", "again"), 0)
        let report = try String(contentsOf: workDirectory.appendingPathComponent("again/default-1/report.md"), encoding: .utf8)
        assertContains(report, "seven days, seven days,", "report")

        // The same scenario as a file is refused, with both reasons.
        try writeFile("old.json", try scenario(edited: true))
        let validate = try remindersim("validate", "old.json")
        assertExit(validate, 65)
        assertContains(validate.stderr, "configurations[0].label: 360 characters; at most 200")
        assertContains(validate.stderr, "decision.constraints.optOutRate.max: must be between 0 and 1")
    }
}
