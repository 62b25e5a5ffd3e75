import Foundation
import ReminderSimTestSupport
import XCTest

/// Recorded logs from a user's point of view: import, fit, and scenarios built on them.
final class RecordedDataCommandTests: ReminderSimTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let cdnow = root.appendingPathComponent("Datasets/cdnow/CDNOW_master.txt").path

    func testFitOnCDNOWWritesSegmentsThatRun() throws {
        let fit = try remindersim("fit", Self.cdnow, "--format", "cdnow", "--calibration-end", "1997-09-30",
                                  "--observation-end", "1998-06-30", "--out", "fit")
        assertExit(fit, 0)
        assertContains(fit.stdout, "23,570 users")
        assertContains(fit.stdout, "BG/NBD on 23,570 customers")
        assertContains(fit.stdout, "calibration cut-off: visits on days up to and including 1997-09-30 (UTC), "
            + "that is up to 1997-09-30T23:59:59Z; whole days")
        // lifetimes' BetaGeoFitter on the same whole-day summaries: r 0.2516, α 4.789, a 0.7234, b 2.161.
        assertContains(fit.stdout, "r 0.2516 ± 0.0042, alpha 4.789 ± 0.13, a 0.7234 ± 0.054, b 2.161 ± 0.2; log-likelihood -95368.4")
        let customers = try String(contentsOf: workDirectory.appendingPathComponent("fit/customers.csv"), encoding: .utf8)
            .split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertEqual(customers.first, ["user", "frequency", "recency_weeks", "T_weeks", "probability_alive",
                                         "expected_repeat_visits", "observed_repeat_visits",
                                         "pareto_nbd_probability_alive", "pareto_nbd_expected_repeat_visits"])
        XCTAssertEqual(customers.count, 23_571)
        // Customer 00001 bought once, on 1997-01-01: T = 272 days; in the 39 holdout weeks, no purchase.
        XCTAssertEqual(Array(customers[1].prefix(5)), ["00001", "0", "0.0", String(272.0 / 7), "1.0"])
        XCTAssertEqual(customers[1][6], "0")
        let expectedTotal = customers.dropFirst().reduce(0.0) { $0 + (Double($1[5]) ?? .nan) }
        let observedTotal = customers.dropFirst().reduce(0) { $0 + (Int($1[6]) ?? -1_000_000) }
        XCTAssertEqual(observedTotal, 19_684, "repeat visits 1997-10-01 to 1998-06-30")
        XCTAssertEqual(expectedTotal, 16_874, accuracy: 1, "the holdout check's prediction, customer by customer")
        for model in ["Lognormal", "Weibull", "Gamma", "Exponential"] { assertContains(fit.stdout, model) }
        for name in ["segments.json", "survival.svg", "repeat-visits.svg"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: workDirectory.appendingPathComponent("fit/\(name)").path), name)
        }
        let document = try JSONSerialization.jsonObject(
            with: Data(contentsOf: workDirectory.appendingPathComponent("fit/segments.json"))) as? [String: Any]
        let recommended = try XCTUnwrap(document?["segment"] as? [String: Any])
        let segments = [recommended] + (try XCTUnwrap(document?["alternatives"] as? [[String: Any]]))
        let kinds = segments.compactMap { ($0["returns"] as? [String: Any])?["distribution"] as? String }
        XCTAssertEqual(kinds, ["bgnbd", "paretoNBD", "lognormal", "weibull", "gamma", "exponential", "empirical", "replay"])
        let bgnbd = try XCTUnwrap(segments.first { ($0["returns"] as? [String: Any])?["distribution"] as? String == "bgnbd" })
        let r = try XCTUnwrap((bgnbd["returns"] as? [String: Any])?["r"] as? Double)
        // Fader, Hardie & Lee report r = 0.243 for a 1/10 sample of this cohort.
        XCTAssertEqual(r, 0.243, accuracy: 0.03)

        // Every segment it wrote runs as it is, alone in the default scenario's place.
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

    func testFitOnTimestampsUsesContinuousTimeAndPredictsBeyondTheLog() throws {
        // 300 users with their own visit rates and dropout chances after each visit,
        // over 120 days from 2024-01-01, at times of day spread over the day (a small LCG keeps it fixed).
        var state: UInt64 = 16
        func uniform() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        var lines = ["user,time"]
        for u in 0..<300 {
            let rate = 0.05 + 0.5 * uniform() * uniform()
            let dropout = 0.4 * uniform() * uniform()
            var t = 10 * uniform()
            while t < 120 {
                lines.append("u\(u),\(Int(1_704_067_200 + t * 86_400))")
                if uniform() < dropout { break }
                t += -log(1 - uniform()) / rate
            }
        }
        try writeFile("visits.csv", lines.joined(separator: "\n") + "\n")
        let fit = try remindersim("fit", "visits.csv", "--timestamp", "epochSeconds", "--calibration-end", "2024-02-15",
                                  "--predict", "20", "--out", "fit")
        assertExit(fit, 0)
        assertContains(fit.stdout, "calibration cut-off: visits up to and including 2024-02-15T23:59:59Z; continuous time")
        assertContains(fit.stdout, "Per-customer predictions over 20 weeks")
        let rows = try String(contentsOf: workDirectory.appendingPathComponent("fit/customers.csv"), encoding: .utf8)
            .split(separator: "\r\n")
        XCTAssertEqual(rows.first, "user,frequency,recency_weeks,T_weeks,probability_alive,expected_repeat_visits,"
                       + "pareto_nbd_probability_alive,pareto_nbd_expected_repeat_visits",
                       "20 weeks run past the end of the log: nothing observed to compare with")
        XCTAssertGreaterThan(rows.count, 250)

        let bad = try remindersim("fit", "visits.csv", "--predict", "0")
        assertExit(bad, 64)
        assertContains(bad.stderr, "--predict")
    }

    func testTheCDNOWExampleScenariosRunAsTheyAre() throws {
        for way in ["replay", "empirical", "bgnbd", "paretonbd"] {
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
        // A date the calendar does not hold says which it holds; a line break in it stays on one line.
        for (day, shown) in [("0000-01-01", "\"0000-01-01\""), ("2024-01\n-01", "\"2024-01\\x0A-01\"")] {
            let badDay = try remindersim("import", "events.csv", "--observation-end", day)
            assertExit(badDay, 64)
            assertContains(badDay.stderr, "--observation-end: expected a date YYYY-MM-DD from 0001-01-01 to 9999-12-31, got \(shown)")
        }
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
