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

        // Sized on the re-check's users (the final stage's number, the re-check's seed), which the race never
        // saw: the difference it is sized for is the re-check's winner − baseline, not the race's own figure.
        let recheck = try XCTUnwrap(recommendation["recheck"] as? [String: Any])
        func difference(_ o: [String: Any]?) -> Double? {
            ((o?["versusBaseline"] as? [String: Any])?["difference"] as? [String: Any])?["value"] as? Double
        }
        let planned = try XCTUnwrap(plan["difference"] as? Double)
        XCTAssertEqual(planned, try XCTUnwrap(difference(recheck)), accuracy: 1e-9)
        XCTAssertNotEqual(planned, try XCTUnwrap(difference(recommendation)), "the race's figure, which leans the winner's way")

        // The winner and the baseline as a run of their own on those users: the same simulated difference,
        // and, when the run recommends the winner there, the same plan.
        let configurations = try XCTUnwrap(json["configurations"] as? [[String: Any]])
        let baseline = try XCTUnwrap(configurations.first { $0["label"] as? String == "3 days" })
        var run = json
        run["tune"] = nil
        run["configurations"] = winner["label"] as? String == "3 days" ? [baseline] : [winner, baseline]
        run["baseline"] = "3 days"
        let seed = try XCTUnwrap((json["seed"] as? NSNumber)?.uint64Value)
        run["seed"] = NSNumber(value: seed ^ (1 << 52))
        run["decision"] = ["objective": tune["objective"], "constraints": tune["constraints"]]
        let runFile = try writeFile("run.json", JSONSerialization.data(withJSONObject: run))
        let ran = try remindersim("run", runFile.path, "--threads", "2", "--db", "runs.sqlite", "--out", "runs", "--json")
        assertExit(ran, 0)
        let runDocument = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [String: Any])
        let versus = try XCTUnwrap(runDocument["versusBaseline"] as? [[String: Any]])
        let opens = try XCTUnwrap(versus.first { $0["label"] as? String == winner["label"] as? String && $0["measure"] as? String == "opens_per_user" },
                                  "\(versus)")
        XCTAssertEqual(try XCTUnwrap((opens["difference"] as? [String: Any])?["value"] as? Double), planned, accuracy: 1e-9)
        let decision = try XCTUnwrap(runDocument["decision"] as? [String: Any])
        if decision["recommended"] as? String == winner["label"] as? String {
            let runPlan = try XCTUnwrap(decision["liveTest"] as? [String: Any])
            XCTAssertEqual(runPlan["totalUsers"] as? Int, total)
            XCTAssertEqual(runPlan["usersPerArm"] as? [Int], perArm)
        }
    }
}
