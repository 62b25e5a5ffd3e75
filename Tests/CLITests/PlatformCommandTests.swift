import Foundation
import ReminderSimTestSupport
import XCTest

/// Platforms as a user meets them: the example scenario runs and reports per platform, `trace`
/// shows each rule when it acts, and a mistake in the file is refused with its path.
final class PlatformCommandTests: ReminderSimTestCase {
    /// The default scenario's users on iOS, refusing notifications and with a sequence past the pending
    /// limit, and on Android with idle devices.
    func scenario() throws {
        var json: Any = try defaultScenario()
        json = try JSONEdit.setting([
            ["platform": "ios", "name": "iPhone", "permission": ["granted": 0.0, "ask": "1 2"], "pendingLimit": 2],
            ["platform": "android", "alarms": ["windowMinutes": 10, "idleShare": 0.5, "maintenanceMinutes": 60]],
        ] as [Any], at: "population.platforms", in: json)
        json = try JSONEdit.setting([["label": "steps", "sequence": ["afterDays": [1, 2, 3, 4], "messages": ["Your Village miss you"]]]] as [Any],
                                    at: "configurations", in: json)
        json = try JSONEdit.setting(["Your Village miss you": 1.0], at: "response.messageWeights", in: json)
        _ = try writeFile("platforms.json", try JSONEdit.text(json))
    }

    func testRunReportsPerPlatformAndTraceShowsTheRules() throws {
        try scenario()
        let run = try remindersim("run", "platforms.json", "--users", "400", "--days", "40", timeout: 120)
        assertExit(run, 0)
        assertContains(run.stdout, "dropped")
        assertContains(run.stdout, "without permission")
        let report = try String(contentsOf: workDirectory.appendingPathComponent("Reports/default-1/report.md"), encoding: .utf8)
        assertContains(report, "## Per platform")
        assertContains(report, "| steps | iPhone |")
        assertContains(report, "2 soonest kept")
        let csv = try String(contentsOf: workDirectory.appendingPathComponent("Reports/default-1/platform_metrics.csv"), encoding: .utf8)
        XCTAssertEqual(csv.split(whereSeparator: \.isNewline).count, 1 + 2 * 2, "a row per configuration and platform, after the header")

        var seen: Set<String> = []
        for user in 0..<40 where seen.count < 4 {
            let trace = try remindersim("trace", "platforms.json", "--user", String(user), "--days", "40", timeout: 60)
            assertExit(trace, 0)
            for fragment in ["permission prompt shown", "not shown: no notification permission", "the system fires the alarm",
                             "discarded by the system"] where trace.stdout.contains(fragment) {
                seen.insert(fragment)
            }
        }
        XCTAssertEqual(seen.count, 4, "trace shows every rule acting; saw \(seen)")
    }

    /// Named zones and a return pattern: the report states them, `trace` names the zone and shows the
    /// local clock of each zone's offset, and a zone the database does not know is refused with its path.
    func testZonesAndTheReturnPatternAreStatedAndCheckedByPath() throws {
        var json: Any = try defaultScenario()
        json = try JSONEdit.setting([["zone": "America/New_York", "weight": 1], ["hours": 2, "weight": 1]] as [Any],
                                    at: "population.utcOffsets", in: json)
        json = try JSONEdit.setting(["weekdays": ["saturday": 2]] as [String: Any], at: "population.returnPattern", in: json)
        _ = try writeFile("zones.json", try JSONEdit.text(json))
        let run = try remindersim("run", "zones.json", "--users", "300", "--days", "120", timeout: 120)
        assertExit(run, 0)
        let report = try String(contentsOf: workDirectory.appendingPathComponent("Reports/default-1/report.md"), encoding: .utf8)
        assertContains(report, "| Time zones | America/New\\_York (weight 1), UTC+2 (weight 1) |")
        assertContains(report, "| Return pattern | organic return intensity by local weekday: Sat ×2 (others ×1); by local hour, flat;")
        var named = 0
        for user in 0..<10 {
            let trace = try remindersim("trace", "zones.json", "--user", String(user), "--days", "120", timeout: 60)
            assertExit(trace, 0)
            if trace.stdout.contains("America/New_York (UTC-5 at the start)") { named += 1 }
        }
        XCTAssertGreaterThan(named, 0, "a user in New York among the first ten")

        json = try JSONEdit.setting([["zone": "America/NewYork"]] as [Any], at: "population.utcOffsets", in: json)
        _ = try writeFile("bad-zone.json", try JSONEdit.text(json))
        let bad = try remindersim("validate", "bad-zone.json")
        assertExit(bad, 65)
        assertContains(bad.stderr, "bad-zone.json: population.utcOffsets[0].zone: unknown time zone \"America/NewYork\"")
    }

    func testAMistakeIsRefusedWithItsPath() throws {
        var json: Any = try defaultScenario()
        json = try JSONEdit.setting([["platform": "android", "permission": ["granted": 0.5, "provisional": 0.3]]] as [Any],
                                    at: "population.platforms", in: json)
        _ = try writeFile("bad.json", try JSONEdit.text(json))
        let result = try remindersim("validate", "bad.json")
        assertExit(result, 65)
        assertContains(result.stderr, "bad.json: population.platforms[0].permission.provisional: provisional authorisation is iOS's")
    }
}
