import Foundation
import ReminderSimTestSupport
import XCTest

/// `run`'s live-test plan on the command line, and a run shorter than the install spread.
final class LiveTestPlanCLITests: ReminderSimTestCase {
    /// `--days 14` on the default population (installs over 30 days) is refused naming the way
    /// around it; with `--install-spread 14` it runs.
    func testARunShorterThanTheSpreadRunsWithAShorterSpread() throws {
        let refused = try remindersim("run", "--users", "200", "--days", "14", "--db", "r.db", "--out", "rep")
        assertExit(refused, 65)
        assertContains(refused.stderr, "--install-spread")
        let ran = try remindersim("run", "--users", "200", "--days", "14", "--install-spread", "14", "--db", "r.db", "--out", "rep")
        assertExit(ran, 0)
        let bad = try remindersim("run", "--users", "200", "--install-spread", "-1", "--db", "r.db", "--out", "rep")
        assertExit(bad, 64)
    }

    /// `--json` gives the plan under `decision.liveTest`: users per arm adding up to the total, the
    /// default 10% holdout, and the smallest detectable difference at `--live-users`.
    func testRunJSONHasTheLiveTestPlan() throws {
        let result = try remindersim("run", "--users", "2000", "--days", "30", "--json", "--live-users", "50000",
                                     "--db", "r.db", "--out", "rep")
        assertExit(result, 0)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let decision = try XCTUnwrap(json["decision"] as? [String: Any])
        let plan = try XCTUnwrap(decision["liveTest"] as? [String: Any])
        let perArm = try XCTUnwrap(plan["usersPerArm"] as? [Int])
        XCTAssertEqual(perArm.reduce(0, +), try XCTUnwrap(plan["totalUsers"] as? Int))
        XCTAssertEqual(plan["holdoutShare"] as? Double, 0.1)
        XCTAssertEqual(plan["liveUsers"] as? Int, 50_000)
        XCTAssertNotNil(plan["minimumDetectableEffect"] as? Double)
        XCTAssertEqual(plan["metric"] as? String, "opens_per_user")
        // The plan with CUPED: its arms add up, ρ is a correlation, and CUPED takes some variance away.
        let cuped = try XCTUnwrap(plan["cuped"] as? [String: Any])
        XCTAssertEqual(cuped["preDays"] as? Int, 14)
        XCTAssertEqual(cuped["simulatedUsers"] as? Int, 2_000)
        let cupedArms = try XCTUnwrap(cuped["usersPerArm"] as? [Int], "\(cuped)")
        XCTAssertEqual(cupedArms.count, perArm.count)
        XCTAssertEqual(cupedArms.reduce(0, +), try XCTUnwrap(cuped["totalUsers"] as? Int))
        let rho = try XCTUnwrap(cuped["correlation"] as? [Double])
        XCTAssertEqual(rho.count, 2)
        for r in rho { XCTAssertTrue((0...1).contains(r), "\(rho)") }
        let reduction = try XCTUnwrap(cuped["varianceReduction"] as? Double)
        XCTAssertTrue(reduction > 0 && reduction < 1, "\(reduction)")
        XCTAssertLessThan(try XCTUnwrap(cuped["totalUsers"] as? Int), try XCTUnwrap(cuped["totalUsersWithout"] as? Int))
        XCTAssertNotNil(cuped["minimumDetectableEffect"] as? Double)
        // The report's table puts the CUPED plan's arms with and without CUPED side by side, and says they size
        // another test than the users column.
        let report = try String(contentsOfFile: workPath("rep/default-1/report.md"), encoding: .utf8)
        assertContains(report, "| arm | role | share | users | users who have the app, with CUPED | the same without CUPED | ρ |")
        let without = try XCTUnwrap(cuped["usersPerArmWithout"] as? [Int], "\(cuped)")
        let grouped = { (n: Int) in n.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US"))) }
        assertContains(report, "| \(grouped(cupedArms[0])) | \(grouped(without[0])) | ")
        assertContains(report, "compare those two with each other, not with the users column.")
    }

    /// A live-test size that leaves an arm fewer than two users detects nothing, and the plan says so
    /// (the default split is 90/10: 20 users give the holdout two).
    func testTooFewLiveUsersForAnArmAreSaid() throws {
        for (n, detects) in [(1, false), (19, false), (20, true)] {
            let result = try remindersim("run", "--users", "1000", "--days", "30", "--json", "--live-users", "\(n)",
                                         "--db", "r.db", "--out", "rep")
            assertExit(result, 0)
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let plan = try XCTUnwrap((json["decision"] as? [String: Any])?["liveTest"] as? [String: Any])
            XCTAssertEqual(plan["minimumDetectableEffect"] as? Double != nil, detects, "--live-users \(n)")
            XCTAssertEqual((plan["cuped"] as? [String: Any])?["minimumDetectableEffect"] as? Double != nil, detects, "CUPED, \(n)")
        }
        let text = try remindersim("run", "--users", "1000", "--days", "30", "--live-users", "1", "--db", "r.db", "--out", "rep")
        assertContains(text.stdout, "; 1 user leaves an arm fewer than two users: too few for any test. With CUPED")
        XCTAssertEqual(text.stdout.components(separatedBy: "1 user leaves an arm fewer than two users").count, 3,
                       "the plan with CUPED says so too")
    }

    /// `liveTest.preDays` 0 turns CUPED off, and the report says so.
    func testPreDaysZeroTurnsCupedOff() throws {
        let data = try Data(contentsOf: TuneLiveTestTests.datasets.appendingPathComponent("default-scenario.json"))
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        json["liveTest"] = ["preDays": 0]
        let file = try writeFile("s.json", JSONSerialization.data(withJSONObject: json))
        let result = try remindersim("run", file.path, "--users", "1000", "--days", "30", "--json", "--db", "r.db", "--out", "rep")
        assertExit(result, 0)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let plan = try XCTUnwrap((document["decision"] as? [String: Any])?["liveTest"] as? [String: Any])
        let cuped = try XCTUnwrap(plan["cuped"] as? [String: Any])
        XCTAssertEqual(cuped["preDays"] as? Int, 0)
        XCTAssertNil(cuped["usersPerArm"], "\(cuped)")
        let reportPath = try XCTUnwrap(document["report"] as? String)
        let report = reportPath.hasPrefix("/") ? reportPath : workDirectory.appendingPathComponent(reportPath).path
        assertContains(try String(contentsOfFile: report, encoding: .utf8), "CUPED: off (liveTest.preDays is 0).")
    }

    /// A simulated gain below the smallest gain worth shipping: the plan says its sizes are for a gain the
    /// team would not ship, and gives the size for the smallest one worth it. With the same spread, the
    /// size goes as 1/d², so it is the plan's total × (d / minimumDifference)², up to each arm's rounding.
    func testAGainBelowWhatMattersIsSaid() throws {
        let data = try Data(contentsOf: TuneLiveTestTests.datasets.appendingPathComponent("default-scenario.json"))
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        var decision = json["decision"] as? [String: Any] ?? ["objective": "opensLiftPerUser"]
        decision["minimumDifference"] = 5
        json["decision"] = decision
        let file = try writeFile("worth.json", JSONSerialization.data(withJSONObject: json))
        let result = try remindersim("run", file.path, "--users", "2000", "--days", "30", "--json", "--db", "r.db", "--out", "rep")
        assertExit(result, 0)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let plan = try XCTUnwrap((document["decision"] as? [String: Any])?["liveTest"] as? [String: Any])
        let difference = try XCTUnwrap(plan["difference"] as? Double)
        XCTAssertLessThan(abs(difference), 5)
        let total = Double(try XCTUnwrap(plan["totalUsers"] as? Int))
        let notes = try XCTUnwrap(plan["notes"] as? [String])
        let note = try XCTUnwrap(notes.first { $0.hasPrefix("The simulated difference (") }, "\(notes)")
        assertContains(note, "is smaller than the smallest gain worth shipping (5, decision.minimumDifference)")
        let number = try XCTUnwrap(note.components(separatedBy: "needs ").last?.components(separatedBy: " users").first)
        let users = try XCTUnwrap(Double(number.replacingOccurrences(of: ",", with: "")), note)
        let arms = Double((plan["arms"] as? [Any])?.count ?? 0)
        XCTAssertEqual(users, total * difference * difference / 25, accuracy: arms + total * 1e-9 + arms * difference * difference / 25, note)
        let report = try String(contentsOfFile: workPath("rep/default-1/report.md"), encoding: .utf8)
        assertContains(report, "- " + note)

        // A gain at least as large as the smallest worth shipping has no such note.
        decision["minimumDifference"] = 1e-6
        json["decision"] = decision
        try writeFile("small.json", JSONSerialization.data(withJSONObject: json))
        let small = try remindersim("run", "small.json", "--users", "2000", "--days", "30", "--json", "--db", "r.db", "--out", "rep")
        assertExit(small, 0)
        XCTAssertFalse(small.stdout.contains("The simulated difference ("), small.stdout)
    }

    /// A test shorter than the run: the plan's difference is over the run's days, and its sentence says so
    /// where it is read alone, in the terminal.
    func testATestLengthOtherThanTheRunsIsSaidInTheSentence() throws {
        let data = try Data(contentsOf: TuneLiveTestTests.datasets.appendingPathComponent("default-scenario.json"))
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        json["liveTest"] = ["days": 30]
        try writeFile("d30.json", JSONSerialization.data(withJSONObject: json))
        let result = try remindersim("run", "d30.json", "--users", "1000", "--db", "r.db", "--out", "rep")
        assertExit(result, 0)
        assertContains(result.stdout, "in opens per user over 90 days (the run's; the test's 30 days would differ: run with --days 30 for them)")
        let doc = try remindersim("run", "d30.json", "--users", "1000", "--json", "--db", "r.db", "--out", "rep")
        let plan = try XCTUnwrap(((JSONSerialization.jsonObject(with: Data(doc.stdout.utf8)) as? [String: Any])?["decision"]
            as? [String: Any])?["liveTest"] as? [String: Any])
        XCTAssertEqual(plan["days"] as? Int, 30)
        XCTAssertEqual(plan["simulatedDays"] as? Int, 90)
    }
}
