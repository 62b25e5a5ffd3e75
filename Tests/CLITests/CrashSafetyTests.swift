import Foundation
import Storage
import ReminderSimTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `run` killed with SIGKILL at any moment leaves the database whole: every stored run complete,
/// nothing of the killed run visible, and the next run works.
final class CrashSafetyTests: ReminderSimTestCase {
    static let database = "shared.sqlite"

    /// A scenario whose save takes a large share of the process's life: the default scenario plus a
    /// grid of 80 configurations, run for 1,000 days with 50 users. Most of the time goes into
    /// writing ~85,000 daily rows and the tallies in one transaction and rendering the report, so
    /// kills spread over the life of the process land in the save too. (With the default scenario
    /// the save takes ~20 ms of a ~0.4 s process, and few kills would hit it.)
    func writeWideScenario() throws {
        var scenario: Any = try defaultScenario()
        scenario = try JSONEdit.setting(1, at: "population.installSpreadDays", in: scenario)
        scenario = try JSONEdit.setting([
            "labelPrefix": "grid ",
            "messages": (0..<20).map { "message \($0)" },
            "timePeriods": (1...20).map { [$0] },
            "randomMessage": [false, true],
            "mode": ["documented", "original"],
            "cronRules": ["1 1", "2 *", "3", "1 */7"],
        ] as [String: Any], at: "grid", in: scenario)
        try writeFile("wide.json", try JSONEdit.text(scenario))
    }

    static let wide = ["run", "wide.json", "--users", "50", "--days", "1000", "--threads", "2", "--db", database]
    static let small = ["run", "--users", "3000", "--days", "60", "--threads", "2", "--db", database]

    /// A run stopped before it saves (here killed while it simulates) leaves no new database, nor the
    /// folders made for one: the database is made only to save into.
    func testAStoppedRunLeavesNoNewDatabase() throws {
        let big = try startRemindersim(["run", "--users", "100000000", "--days", "90", "--threads", "2", "--db", "new/runs.sqlite"])
        XCTAssertTrue(big.waitForCPU(1, timeout: 60), "the big run ended, or never got going, before it could be stopped")
        XCTAssertTrue(big.killNow(), "could not stop the big run")
        _ = try XCTUnwrap(big.wait(timeout: 10))
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("new")), "a database or its folder was made before the save")
    }

    /// A save that fails part way (here a trigger of the database refuses a row, as a full disk would
    /// refuse a page) says that nothing of the run was saved, and nothing was.
    func testAFailedSaveSaysNothingWasSaved() throws {
        let run = ["run", "--users", "300", "--days", "30", "--db", "f.sqlite", "--out", "o"]
        assertExit(try remindersim(arguments: run), 0)
        do {
            let store = try RunStore(path: workPath("f.sqlite"), create: false, readOnly: false)
            try store.database.execute(
                "CREATE TRIGGER fail BEFORE INSERT ON period_stats BEGIN SELECT RAISE(ABORT, 'disk on fire'); END")
        }
        let failed = try remindersim(arguments: run)
        assertExit(failed, 74)
        assertContains(failed.stderr, "disk on fire")
        assertContains(failed.stderr, "; the run was not saved (the database is as it was)")
        let store = try RunStore(path: workPath("f.sqlite"), create: false, readOnly: true)
        XCTAssertEqual(try store.runIDs(), [1])
    }

    func testKilledRunsLeaveNoPartialRun() throws {
        let clock = Date()
        try writeWideScenario()

        // 1. A complete wide run, to measure how long one lives and where its save falls.
        let calibration = try startRemindersim(Self.wide + ["--stats"])
        let calibrated = try XCTUnwrap(calibration.wait(timeout: 60), "the calibration run did not finish")
        let life = calibration.elapsed
        assertExit(calibrated, 0)
        let store = Self.stat("store", in: calibrated.stderr) ?? 0
        let render = Self.stat("report", in: calibrated.stderr) ?? 0
        // The save ends before the report is rendered and the process exits.
        let saveWindow = max(0, life - render - store - 0.05)...max(0, life - render)
        print("crash test: wide run lives \(String(format: "%.2f", life)) s; save ≈ \(String(format: "%.2f", store)) s, "
              + "report ≈ \(String(format: "%.2f", render)) s")
        // A complete small run too, to measure its life: how long one takes depends on the build.
        let smallCalibration = try startRemindersim(Self.small)
        let smallCalibrated = try XCTUnwrap(smallCalibration.wait(timeout: 60), "the small calibration run did not finish")
        let smallLife = smallCalibration.elapsed
        assertExit(smallCalibrated, 0)
        print("crash test: small run lives \(String(format: "%.2f", smallLife)) s")

        // 2. A run far too big to finish, killed in the middle of its simulation: once it has spent a second
        // of CPU time it is past opening the database and simulating, on any machine.
        let big = try startRemindersim(["run", "--users", "100000000", "--days", "90", "--threads", "2", "--db", Self.database])
        XCTAssertTrue(big.waitForCPU(1, timeout: 60), "the big run ended, or never got going, before it could be killed")
        XCTAssertTrue(big.killNow(), "could not kill the big run")
        let bigResult = try XCTUnwrap(big.wait(timeout: 10))
        XCTAssertTrue(bigResult.crashed && bigResult.status == SIGKILL, "the big run was not killed: \(bigResult)")
        try checkDatabase(expectedRuns: 2, after: "killing the big run")

        // 3. Runs killed after delays spread over their whole life: stratified, so each twelfth of a
        // wide run's life gets one kill, at a pseudo-random point inside it (reproducible).
        var random = TestRandom(seed: 20_261_202)
        var expectedRuns = 2
        var outcomes: [String] = []
        let strata = 12
        var plan: [(arguments: [String], delay: Double)] = (0..<strata).map { i in
            (Self.wide, life * (Double(i) + random.unit()) / Double(strata))
        }
        // A few small runs of the default scenario too, killed at random points of their life.
        plan += (0..<4).map { _ in (Self.small, random.unit() * smallLife) }
        for (index, step) in plan.enumerated() {
            let run = try startRemindersim(step.arguments)
            Thread.sleep(forTimeInterval: step.delay)
            let killed = run.killNow()
            let result = try XCTUnwrap(run.wait(timeout: 60), "run \(index) did not end")
            let before = expectedRuns
            if killed && result.crashed {
                XCTAssertEqual(result.status, SIGKILL, result.description)
            } else {
                assertExit(result, 0)  // it finished before the kill
                expectedRuns += 1
            }
            let database = try openDatabase(Self.database)
            let stored = try runIDs(database).count
            try assertEveryRunComplete(database)
            // A killed run is either wholly there (killed while rendering, after its commit) or not at all.
            if killed && result.crashed {
                XCTAssertTrue(stored == before || stored == before + 1, "\(stored) runs after \(before)")
                expectedRuns = stored
            } else {
                XCTAssertEqual(stored, expectedRuns, "a finished run is missing")
            }
            let phase: String
            if !(killed && result.crashed) {
                phase = "finished first"
            } else if stored > before {
                phase = "after its commit"
            } else if step.arguments == Self.wide && saveWindow.contains(step.delay) {
                phase = "during the save (estimated)"
            } else {
                phase = "before its commit"
            }
            outcomes.append("\(step.arguments == Self.wide ? "wide" : "small") +\(String(format: "%.2f", step.delay)) s: \(phase)")
        }
        print("crash test kills:\n  " + outcomes.joined(separator: "\n  "))
        XCTAssertGreaterThanOrEqual(outcomes.filter { !$0.hasSuffix("finished first") }.count, plan.count / 2,
                                    "most runs should have been killed:\n\(outcomes.joined(separator: "\n"))")

        // 4. The whole file, and a run after all that.
        try checkDatabase(expectedRuns: expectedRuns, after: "all the kills")
        let next = try remindersim("run", "--users", "500", "--days", "35", "--threads", "2", "--db", Self.database)
        assertExit(next, 0)
        let list = try remindersim("list", "--db", Self.database)
        assertExit(list, 0)
        let rows = list.stdoutLines.dropFirst().map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(rows.count, expectedRuns + 1, list.stdout)
        let last = rows.last ?? []
        XCTAssertEqual(Array(last.dropFirst(3).prefix(4)), ["500", "35", "5", "complete"], list.stdout)
        assertContains(next.stdout, "Saved as run \(last.first ?? "?") in \(Self.database)")
        try checkDatabase(expectedRuns: expectedRuns + 1, after: "the run after the kills")
        print("crash test took \(String(format: "%.1f", Date().timeIntervalSince(clock))) s")
    }

    func checkDatabase(expectedRuns: Int, after: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let database = try openDatabase(Self.database, file: file, line: line)
        try assertIntegrity(database, file: file, line: line)
        XCTAssertEqual(try runIDs(database).count, expectedRuns, "runs stored after \(after)", file: file, line: line)
        try assertEveryRunComplete(database, file: file, line: line)
    }

    /// A figure of the `--stats` line, such as "store 0.644 s".
    static func stat(_ name: String, in text: String) -> Double? {
        guard let range = text.range(of: "\(name) [0-9.]+ s", options: .regularExpression) else { return nil }
        return Double(text[range].dropFirst(name.count + 1).dropLast(2))
    }
}
