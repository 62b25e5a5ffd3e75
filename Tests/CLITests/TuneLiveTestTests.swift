import Foundation
import ReminderSimTestSupport
import XCTest

/// A tune's decision carries the live-test plan of its winner against the baseline, the same plan
/// `run` gives for the two on the same users.
final class TuneLiveTestTests: ReminderSimTestCase {
    static let datasets = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Datasets")

    func testTheTunesPlanIsTheRunsPlanOfItsWinnerAgainstTheBaseline() throws {
        let data = try Data(contentsOf: Self.datasets.appendingPathComponent("tune-periods.json"))
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        json["horizonDays"] = 40
        json["users"] = 1_200
        var population = try XCTUnwrap(json["population"] as? [String: Any])
        population["installSpreadDays"] = 10
        json["population"] = population
        var tune = try XCTUnwrap(json["tune"] as? [String: Any])
        tune["space"] = ["periods": ["min": 4, "max": 9]]
        json["tune"] = tune
        let file = try writeFile("tune.json", JSONSerialization.data(withJSONObject: json))

        let tuned = try remindersim("tune", file.path, "--threads", "2", "--out", "out", "--json")
        assertExit(tuned, 0)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(tuned.stdout.utf8)) as? [String: Any])
        let recommendation = try XCTUnwrap(document["recommendation"] as? [String: Any])
        let winner = try XCTUnwrap(recommendation["configuration"] as? [String: Any], "the tune found no winner")
        let plan = try XCTUnwrap(recommendation["liveTest"] as? [String: Any])
        let total = try XCTUnwrap(plan["totalUsers"] as? Int, "\(plan)")
        let perArm = try XCTUnwrap(plan["usersPerArm"] as? [Int])
        XCTAssertEqual(perArm.count, 3, "the winner, the baseline and a holdout")
        XCTAssertEqual(perArm.reduce(0, +), total)
        assertContains(try XCTUnwrap(document["summary"] as? String), "Live test (")
        let report = try String(contentsOf: workDirectory.appendingPathComponent("out/tune-periods-tune-1/report.md"), encoding: .utf8)
        assertContains(report, "## Live test")

        // The winner and the baseline as a run of their own, on the final stage's users and seed: the
        // winner met every constraint there and the baseline "3 days" breaks one, so the run recommends
        // the winner, and its plan is the tune's.
        let configurations = try XCTUnwrap(json["configurations"] as? [[String: Any]])
        let baseline = try XCTUnwrap(configurations.first { $0["label"] as? String == "3 days" })
        var run = json
        run["tune"] = nil
        run["configurations"] = winner["label"] as? String == "3 days" ? [baseline] : [winner, baseline]
        run["baseline"] = "3 days"
        run["decision"] = ["objective": tune["objective"], "constraints": tune["constraints"]]
        let runFile = try writeFile("run.json", JSONSerialization.data(withJSONObject: run))
        let ran = try remindersim("run", runFile.path, "--threads", "2", "--db", "runs.sqlite", "--out", "runs", "--json")
        assertExit(ran, 0)
        let runDocument = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [String: Any])
        let decision = try XCTUnwrap(runDocument["decision"] as? [String: Any])
        XCTAssertEqual(decision["recommended"] as? String, winner["label"] as? String)
        let runPlan = try XCTUnwrap(decision["liveTest"] as? [String: Any])
        XCTAssertEqual(runPlan["totalUsers"] as? Int, total)
        XCTAssertEqual(runPlan["usersPerArm"] as? [Int], perArm)
    }
}
