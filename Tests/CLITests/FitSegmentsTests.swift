import Foundation
import ReminderSimTestSupport
import XCTest

/// `segments.json`: one recommended segment to paste into a scenario, and the other models apart.
final class FitSegmentsTests: ReminderSimTestCase {
    /// A log of `users` users from 2024-01-01 (a small LCG keeps it fixed): each first visits in the
    /// first `firstDays` days; a share `never` of them is never seen back; the others come back after
    /// `delay` days plus exponential gaps, each user with a mean gap of their own around `meanGap` days
    /// and a chance of dropping out after a visit of their own, up to 30%.
    private func writeLog(users: Int, firstDays: Double, never: Double, delay: Double, meanGap: Double) throws {
        var state: UInt64 = 28
        func uniform() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        var lines = ["user,time"]
        for u in 0..<users {
            var t = firstDays * uniform()
            lines.append("u\(u),\(Int(1_704_067_200 + t * 86_400))")
            if uniform() < never { continue }
            let mean = meanGap * (0.1 + 2 * uniform() * uniform())
            let dropout = 0.3 * uniform()
            t += delay - mean * log(1 - uniform())
            while t < 120 {
                lines.append("u\(u),\(Int(1_704_067_200 + t * 86_400))")
                if uniform() < dropout { break }
                t += -mean * log(1 - uniform())
            }
        }
        try writeFile("visits.csv", lines.joined(separator: "\n") + "\n")
    }

    private func segmentsDocument() throws -> [String: Any] {
        let data = try Data(contentsOf: workDirectory.appendingPathComponent("fit/segments.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The default scenario with `segment` as its only segment validates and runs.
    private func assertRunsAlone(_ segment: [String: Any], file: StaticString = #filePath, line: UInt = #line) throws {
        var scenario = try defaultScenario()
        var population = try XCTUnwrap(scenario["population"] as? [String: Any])
        population["segments"] = [segment]
        scenario["population"] = population
        scenario["horizonDays"] = 60
        try writeFile("pasted.json", String(decoding: try JSONSerialization.data(withJSONObject: scenario), as: UTF8.self))
        assertExit(try remindersim("validate", "pasted.json"), 0, file: file, line: line)
        let run = try remindersim("run", "pasted.json", "--users", "600", "--db", "pasted.sqlite")
        assertExit(run, 0, file: file, line: line)
    }

    func testWithoutACustomerBaseModelTheBestGapModelCarriesTheDropoutCensoringShows() throws {
        // Everyone's first visit falls in a calibration window that ends before anyone is back: BG/NBD
        // and Pareto/NBD see no repeat visit and are not usable. A quarter of the users never return
        // after their first visit, and the others drop out after a visit too: Kaplan–Meier's plateau is
        // the share of sessions never followed by another.
        try writeLog(users: 300, firstDays: 10, never: 0.25, delay: 12, meanGap: 5)
        let fit = try remindersim("fit", "visits.csv", "--timestamp", "epochSeconds", "--calibration-end", "2024-01-11",
                                  "--out", "fit")
        assertExit(fit, 0)
        let plateauLine = try XCTUnwrap(fit.stdout.split(separator: "\n").first { $0.contains("Kaplan–Meier plateau") })
        let plateau = try XCTUnwrap(Double(plateauLine.split(separator: " ").last?.dropLast() ?? "")) / 100

        let document = try segmentsDocument()
        XCTAssertNil(document["segments"], "never a list of segments meant to be pasted together")
        let segment = try XCTUnwrap(document["segment"] as? [String: Any])
        let returns = try XCTUnwrap(segment["returns"] as? [String: Any])
        XCTAssertEqual(returns["distribution"] as? String, "lognormal", "the gap model with the lowest AIC")
        let dropout = try XCTUnwrap(segment["dropoutPerSession"] as? Double)
        XCTAssertEqual(dropout, plateau, accuracy: 0.0006, "the printed plateau, to its one decimal of a percent")
        assertContains(fit.stdout, "Recommended segment: no customer-base model is usable; Lognormal has the lowest AIC "
            + "of the gap models, with")
        assertContains(try XCTUnwrap(document["why"] as? String), "Lognormal has the lowest AIC")
        let alternatives = try XCTUnwrap(document["alternatives"] as? [[String: Any]])
        let kinds = alternatives.compactMap { ($0["returns"] as? [String: Any])?["distribution"] as? String }
        XCTAssertEqual(kinds, ["weibull", "gamma", "exponential", "empirical", "replay"])
        try assertRunsAlone(segment)
    }

    func testGapsOfOneLengthLeaveTheShapesOutAndTheSegmentsStayReadable() throws {
        // One user, daily visits, and a long quiet tail: the lognormal once fitted these two equal gaps,
        // and refitted with the dropout the censoring shows collapsed to μ and σ of order 1e−305, which
        // once rounded for the file were NaN (exit 74). Gaps of one length leave every family with a
        // shape unfitted; the exponential, with the dropout, is the segment.
        try writeFile("visits.csv", "user,time\nu1,2024-01-01T00:00:00Z\nu1,2024-01-02T00:00:00Z\nu1,2024-01-03T00:00:00Z\n")
        let fit = try remindersim("fit", "visits.csv", "--observation-end", "2024-03-10", "--out", "fit")
        assertExit(fit, 0)
        assertContains(fit.stdout, "Lognormal: not fitted (every ended gap has the same length")
        let segment = try XCTUnwrap(try segmentsDocument()["segment"] as? [String: Any])
        let returns = try XCTUnwrap(segment["returns"] as? [String: Any])
        XCTAssertEqual(returns["distribution"] as? String, "exponential")
        try assertRunsAlone(segment)
    }

    /// A log where no user came back fits no model: its users are replayed, which a scenario does for
    /// users observed over its whole horizon. Observed for less than a day, no segment is written (a
    /// scenario would refuse it); observed longer, the fit says the longest horizon that can replay them.
    func testAReplayedSegmentNeedsAUserObservedForADay() throws {
        try writeFile("short.csv", "user,time\na,2024-01-01T00:00:00Z\na,2024-01-01T00:10:00Z\na,2024-01-01T00:20:00Z\n")
        let short = try remindersim("fit", "short.csv", "--out", "short")
        assertExit(short, 65)
        assertContains(short.stderr, "short.csv: no model can be fitted to the log, and its users cannot be replayed: a scenario "
            + "replays only users observed for its whole horizon, a day or more, and the longest observation here is 20 min; "
            + "no segment is written")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("short")))

        try writeFile("once.csv", "user,time\na,2024-01-01T00:00:00Z\nb,2024-01-03T12:00:00Z\n")
        let once = try remindersim("fit", "once.csv", "--observation-end", "2024-01-12", "--out", "once")
        assertExit(once, 0)
        assertContains(once.stdout, "the recorded users are replayed")
        // Observed from 2024-01-01 to the end of 2024-01-12: 11 days and a few hours.
        assertContains(once.stdout, "A scenario replays only users observed for its whole horizon: scenarios of at most 11 days can replay "
            + "this log's users.")
        // Only the charts drawn are named: without repeat visits there is no repeat-visits chart.
        let written = try FileManager.default.contentsOfDirectory(atPath: workPath("once")).sorted()
        XCTAssertFalse(written.contains("repeat-visits.svg"), "\(written)")
        assertContains(once.stdout, "Chart: once/survival.svg\n")
        XCTAssertFalse(once.stdout.contains("repeat-visits"), once.stdout)
    }

    func testSegmentsThatReadTheLogWarnWhenItNeededSkippingOrOutliers() throws {
        var lines = ["user,time"]
        for u in 0..<40 { for k in 0..<3 { lines.append("u\(u),\(1_704_067_200 + u * 3_600 + k * 86_400 * (1 + u % 4))") } }
        try writeFile("visits.csv", (lines + ["uX,not a time"]).joined(separator: "\n") + "\n")
        let fit = try remindersim("fit", "visits.csv", "--timestamp", "epochSeconds", "--skip-bad-rows", "--out", "fit")
        assertExit(fit, 0)
        assertContains(fit.stderr, "warning: the resampled and replayed segments read visits.csv again, as a scenario does")
        assertContains(fit.stderr, "a scenario cannot skip its 1 bad row")
        try writeFile("clean.csv", lines.joined(separator: "\n") + "\n")
        let clean = try remindersim("fit", "clean.csv", "--timestamp", "epochSeconds", "--skip-bad-rows", "--out", "fit2")
        assertExit(clean, 0)
        XCTAssertFalse(clean.stderr.contains("warning"), clean.stderr)
    }

    func testACustomerBaseModelIsRecommendedByAIC() throws {
        try writeLog(users: 400, firstDays: 30, never: 0.1, delay: 0, meanGap: 6)
        // Users whose rates and dropout chances differ: BG/NBD and Pareto/NBD are both usable.
        let fit = try remindersim("fit", "visits.csv", "--timestamp", "epochSeconds", "--calibration-end", "2024-02-20",
                                  "--out", "fit")
        assertExit(fit, 0)
        let document = try segmentsDocument()
        let segment = try XCTUnwrap(document["segment"] as? [String: Any])
        let kind = try XCTUnwrap((segment["returns"] as? [String: Any])?["distribution"] as? String)
        XCTAssertTrue(["bgnbd", "paretoNBD"].contains(kind), kind)
        XCTAssertNil(segment["dropoutPerSession"], "the model's own dropout, nothing on top")
        let alternatives = try XCTUnwrap(document["alternatives"] as? [[String: Any]])
        let kinds = alternatives.compactMap { ($0["returns"] as? [String: Any])?["distribution"] as? String }
        XCTAssertEqual(kinds.first, kind == "bgnbd" ? "paretoNBD" : "bgnbd", "the other customer-base model comes first")
        XCTAssertEqual(Set(kinds + [kind]).count, kinds.count + 1, "each model once")
        // The printed AICs decide it.
        func aic(_ header: String) throws -> Double {
            let section = try XCTUnwrap(fit.stdout.components(separatedBy: header).last)
            let text = try XCTUnwrap(section.components(separatedBy: "AIC ").dropFirst().first?.split(separator: "\n").first)
            return try XCTUnwrap(Double(text.replacingOccurrences(of: ",", with: "")))
        }
        let (bgnbd, pareto) = (try aic("BG/NBD on "), try aic("Pareto/NBD on "))
        XCTAssertEqual(kind, bgnbd <= pareto ? "bgnbd" : "paretoNBD", "AIC \(bgnbd) against \(pareto)")
        try assertRunsAlone(segment)
        try assertRunsAlone(alternatives[0])
    }
}
