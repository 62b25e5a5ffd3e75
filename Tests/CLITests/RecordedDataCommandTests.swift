import Foundation
import ReminderSimTestSupport
import XCTest

/// Recorded logs from a user's point of view: import, fit, and scenarios built on them.
final class RecordedDataCommandTests: RemindersimTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let cdnow = root.appendingPathComponent("Datasets/cdnow/CDNOW_master.txt").path

    func testFitOnCDNOWWritesSegmentsThatRun() throws {
        let fit = try remindersim("fit", Self.cdnow, "--format", "cdnow", "--calibration-end", "1997-09-30",
                                  "--observation-end", "1998-06-30", "--out", "fit")
        assertExit(fit, 0)
        assertContains(fit.stdout, "23,570 users")
        assertContains(fit.stdout, "BG/NBD on 23,570 customers")
        for model in ["Lognormal", "Weibull", "Exponential"] { assertContains(fit.stdout, model) }
        for name in ["segments.json", "survival.svg", "repeat-visits.svg"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: workDirectory.appendingPathComponent("fit/\(name)").path), name)
        }
        let document = try JSONSerialization.jsonObject(
            with: Data(contentsOf: workDirectory.appendingPathComponent("fit/segments.json"))) as? [String: Any]
        let segments = try XCTUnwrap(document?["segments"] as? [[String: Any]])
        let kinds = segments.compactMap { ($0["returns"] as? [String: Any])?["distribution"] as? String }
        XCTAssertEqual(Set(kinds), ["bgnbd", "lognormal", "weibull", "exponential", "empirical", "replay"])
        let bgnbd = try XCTUnwrap(segments.first { ($0["returns"] as? [String: Any])?["distribution"] as? String == "bgnbd" })
        let r = try XCTUnwrap((bgnbd["returns"] as? [String: Any])?["r"] as? Double)
        // Fader, Hardie & Lee report r = 0.243 for a 1/10 sample of this cohort.
        XCTAssertEqual(r, 0.243, accuracy: 0.03)

        // Every segment it wrote runs as it is, in the default scenario's place.
        var scenario = try defaultScenario()
        for segment in segments {
            var population = try XCTUnwrap(scenario["population"] as? [String: Any])
            population["segments"] = [segment]
            scenario["population"] = population
            scenario["horizonDays"] = 60
            try writeFile("fitted.json", String(decoding: try JSONSerialization.data(withJSONObject: scenario), as: UTF8.self))
            let run = try remindersim("run", "fitted.json", "--users", "800", "--db", "fitted.sqlite")
            assertExit(run, 0)
            assertContains(run.stdout, "holdout", "run with segment \(segment["name"] ?? "?")")
        }
    }

    func testTheCDNOWExampleScenariosRunAsTheyAre() throws {
        for way in ["replay", "empirical", "bgnbd"] {
            let path = Self.root.appendingPathComponent("Datasets/cdnow-\(way).json").path
            let result = try remindersim("run", path, "--users", "1500", "--db", "cdnow.sqlite")
            assertExit(result, 0)
            assertContains(result.stdout, "Scenario \"cdnow-\(way)\"")
        }
    }

    func testImportSummarisesAndReportsBadRows() throws {
        let ok = try remindersim("import", Self.cdnow, "--format", "cdnow")
        assertExit(ok, 0)
        assertContains(ok.stdout, "users: 23,570, visits: 67,591")

        var lines = ["user,time"]
        for i in 0..<10_000 { lines.append("u\(i % 50),2024-01-\(String(format: "%02d", i % 28 + 1))T10:00:00Z") }
        lines.insert("u1,yesterday", at: 10_000)  // line 10,001
        try writeFile("events.csv", lines.joined(separator: "\n") + "\n")
        let stop = try remindersim("import", "events.csv")
        assertExit(stop, 65)
        assertContains(stop.stderr, "events.csv:10001")
        let skip = try remindersim("import", "events.csv", "--skip-bad-rows")
        assertExit(skip, 0)
        assertContains(skip.stdout, "bad rows skipped: 1")

        let missing = try remindersim("import", "nope.csv")
        assertExit(missing, 66)
        let badFormat = try remindersim("import", "events.csv", "--timestamp", "whenever")
        assertExit(badFormat, 64)
        assertContains(badFormat.stderr, "--timestamp")
    }

    func testAScenarioWithABrokenLogIsRefusedWithItsLocation() throws {
        try writeFile("log.csv", "user,time\nu1,2024-01-01T00:00:00Z\nu1,garbage\n")
        var scenario = try defaultScenario()
        var population = try XCTUnwrap(scenario["population"] as? [String: Any])
        population["segments"] = [["name": "recorded", "returns": [
            "distribution": "empirical", "data": "log.csv", "format": ["user": "user", "time": "time"]]]]
        scenario["population"] = population
        try writeFile("broken.json", String(decoding: try JSONSerialization.data(withJSONObject: scenario), as: UTF8.self))
        for command in ["validate", "run"] {
            let result = try remindersim(command, "broken.json")
            assertExit(result, 65)
            assertContains(result.stderr, "population.segments[0].returns.data")
            assertContains(result.stderr, "log.csv:3")
        }
    }
}
