import Foundation
import ReminderSimTestSupport
import XCTest

/// Every scenario `validate` accepts runs in time proportional to users × days, and `trace` stays
/// within bounded memory: impossible gaps and sessions are refused by name, and a user who piles up
/// sessions anyway stops the run with a clear error.
final class BoundsTests: ReminderSimTestCase {
    /// The default scenario with every segment returning as `returns`, sessions of `sessionMinutes` and
    /// no dropout.
    @discardableResult
    func scenario(returns: [String: Any], sessionMinutes: Double) throws -> URL {
        var json: Any = try defaultScenario()
        for i in 0..<3 {
            json = try JSONEdit.setting(returns, at: "population.segments[\(i)].returns", in: json)
            json = try JSONEdit.setting(["medianMinutes": sessionMinutes, "sigma": 0.5],
                                        at: "population.segments[\(i)].sessionLength", in: json)
            json = try JSONEdit.setting(0, at: "population.segments[\(i)].dropoutPerSession", in: json)
        }
        return try writeFile("busy.json", try JSONEdit.text(json))
    }

    func testImpossiblyShortGapsAndSessionsAreRefusedByValidate() throws {
        try scenario(returns: ["distribution": "exponential", "mean": 1e-300, "unit": "minutes"], sessionMinutes: 1e-300)
        for command in ["validate", "run"] {
            let options = command == "run" ? ["--users", "1", "--days", "35"] : []
            let result = try remindersim(arguments: [command, "busy.json"] + options, timeout: 30)
            assertExit(result, 65)
            for i in 0..<3 {
                assertContains(result.stderr, "busy.json: population.segments[\(i)].returns.mean: gives a mean gap of 6e-299 s; it must be at least 1 second")
                assertContains(result.stderr, "busy.json: population.segments[\(i)].sessionLength.medianMinutes: must be at least 1 second")
            }
        }
    }

    /// One-second gaps and sessions validate, but no one opens an app 40,000 times a day: the run and
    /// the trace stop at the session limit and say so, in seconds rather than never.
    func testARunThatReachesTheSessionLimitIsRefusedQuickly() throws {
        try scenario(returns: ["distribution": "exponential", "mean": 1.0 / 60, "unit": "minutes"],
                     sessionMinutes: 1.0 / 60)
        assertExit(try remindersim("validate", "busy.json"), 0)
        let started = Date()
        let run = try remindersim("run", "busy.json", "--users", "2000", "--days", "35", "--db", "runs.sqlite", timeout: 60)
        assertExit(run, 65)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
        assertContains(run.stderr, "remindersim: error: busy.json: user 0 (segment \"")
        assertContains(run.stderr, "holdout) reached 35,000 sessions, the limit of 1,000 a day on average over 35 days")
        XCTAssertEqual(run.stdout, "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("Reports")), "no report for a refused run")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("runs.sqlite")), "no empty database for a refused run")
        // A database that was there before is kept, with what it held.
        assertExit(try remindersim("run", "--users", "50", "--days", "35", "--db", "kept.sqlite"), 0)
        assertExit(try remindersim("run", "busy.json", "--users", "2000", "--days", "35", "--db", "kept.sqlite", timeout: 60), 65)
        assertContains(try remindersim("list", "--db", "kept.sqlite").stdout, "default")

        let trace = try remindersim("trace", "busy.json", "--user", "0", "--days", "35", timeout: 60)
        assertExit(trace, 65)
        assertContains(trace.stderr, "reached 35,000 sessions")
        XCTAssertLessThan(trace.stdout.utf8.count, 64 << 20, "a trace's output is bounded")
    }

    /// A run whose own users stay within the limit but whose second look does not (one-second
    /// notifications answered within a second, so the sensitivity run with the base response doubled
    /// piles up sessions): nothing is saved, the error names the look, and a merge of its shards and a
    /// tune of it say the same.
    func testASecondLookPastTheSessionLimitSavesNothingAndSaysWhichLook() throws {
        try writeFile("storm.json", #"""
            {"name": "storm", "users": 200, "horizonDays": 3,
             "population": {"installSpreadDays": 0, "segments": [{"name": "x", "returns": {"distribution": "exponential", "mean": 1},
                            "sessionLength": {"medianMinutes": 0.0166667, "sigma": 0.01}}]},
             "response": {"baseResponse": 0.5, "fatigue": 1, "responseDelayMinutes": 0.0166667, "optOutPerDelivery": 0, "quietHours": null},
             "configurations": [{"label": "storm", "reminders": [{"messages": ["m"], "timePeriods": [1], "unit": "seconds"}]},
                                {"label": "calm", "reminders": [{"messages": ["m"], "timePeriods": [1]}]}],
             "tune": {"space": {"periods": {"min": 1, "max": 2}}}}
            """#)
        let look = "the decision's second look cannot be made: in the sensitivity run with base response doubled, "
            + "user 0 (segment \"x\", configuration \"storm\") reached 3,000 sessions"
        let run = try remindersim("run", "storm.json", "--db", "storm.sqlite", "--out", "out", timeout: 60)
        assertExit(run, 65)
        assertContains(run.stderr, "remindersim: error: storm.json: " + look)
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("storm.sqlite")), "a run whose second look fails is not saved")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("out")), "nor reported")

        for k in 1...2 {
            assertExit(try remindersim("run", "storm.json", "--shard", "\(k)/2", "--db", "s\(k).sqlite", timeout: 60), 0)
        }
        let merge = try remindersim("merge", "s1.sqlite", "s2.sqlite", "--into", "merged.sqlite", "--out", "out", timeout: 60)
        assertExit(merge, 65)
        assertContains(merge.stderr, "remindersim: error: the shards' scenario \"storm\": " + look)
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("merged.sqlite")), "nothing merged")

        let tune = try remindersim("tune", "storm.json", "--db", "tune.sqlite", "--out", "out", timeout: 120)
        assertExit(tune, 65)
        assertContains(tune.stderr, "in the sensitivity run with base response doubled (200 users), user 0 (segment \"x\", "
                       + "configuration \"storm\") reached 3,000 sessions")
    }
}
