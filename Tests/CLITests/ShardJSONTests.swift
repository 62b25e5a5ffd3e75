import Foundation
import ReminderSimTestSupport
import XCTest

/// `run --shard k/n --json` prints what the shard saved as JSON, as a script driving the shards reads it.
final class ShardJSONTests: ReminderSimTestCase {
    func testAShardPrintsWhatItSavedAsJSON() throws {
        for k in 1...3 {
            let result = try remindersim("run", "--users", "100", "--shard", "\(k)/3", "--db", "s\(k).db", "--json")
            assertExit(result, 0)
            let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
            XCTAssertEqual(doc["shard"] as? String, "\(k)/3")
            XCTAssertEqual(doc["runID"] as? Int, 1)
            XCTAssertEqual(doc["database"] as? String, "s\(k).db")
            XCTAssertEqual(doc["users"] as? Int, 100)
            // The shards' ranges of users cover the run's, in order.
            XCTAssertEqual(doc["firstUser"] as? Int, [0, 33, 66][k - 1])
            XCTAssertEqual(doc["endUser"] as? Int, [33, 66, 100][k - 1])
        }
        let merged = try remindersim("merge", "s1.db", "s2.db", "s3.db", "--into", "m.db", "--out", "out")
        assertExit(merged, 0)
        XCTAssertFalse(try String(contentsOfFile: workPath("out/default-1/report.md"), encoding: .utf8).contains("**Shard"))

        // A shard's own report says it is a part, whose decision is not the run's call.
        let report = try remindersim("report", "1", "--db", "s2.db", "--out", "shard")
        assertExit(report, 0)
        let text = try String(contentsOfFile: workPath("shard/default-1/report.md"), encoding: .utf8)
        assertContains(text, "**Shard 2 of 3: users 33 to 65 of 100 only.** What follows is worked out on these users alone, "
            + "without the second look at the decision: it is not the run's call.")
        XCTAssertLessThan(try XCTUnwrap(text.range(of: "**Shard 2 of 3")).lowerBound, try XCTUnwrap(text.range(of: "## Decision")).lowerBound)
    }

    /// A shard whose output cannot be written says it was saved, so that it is not run into the same
    /// database again; `--stats` reports its own users.
    func testAShardSaysItWasSavedWhenItCannotPrint() throws {
        for json in [false, true] {
            let db = "full-\(json).db"
            let full = try remindersim(arguments: ["run", "--users", "100", "--shard", "1/2", "--db", db] + (json ? ["--json"] : []),
                                       stdout: .path("/dev/full"))
            assertExit(full, 74)
            assertContains(full.stderr, "cannot write to standard output")
            assertContains(full.stderr, "shard 1/2 is saved as run 1 in \(db): do not run it again")
        }
        let stats = try remindersim("run", "--users", "100", "--shard", "2/2", "--db", "stats.db", "--stats")
        assertExit(stats, 0)
        assertContains(stats.stderr, "stats: users 50, wall ")
    }
}
