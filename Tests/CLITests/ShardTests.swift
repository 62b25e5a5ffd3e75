import Foundation
import ReminderSimCLI
import ReminderSimTestSupport
import Storage
import XCTest

/// Split runs merged back must be the whole run, to the byte.
final class ShardTests: ReminderSimTestCase {
    func files(in folder: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            out[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return out
    }

    func testMergedShardsEqualTheWholeRunByteForByte() throws {
        let whole = try remindersim("run", "--users", "2100", "--days", "35", "--db", "whole.sqlite", "--out", "whole")
        assertExit(whole, 0)
        let reference = try files(in: workDirectory.appendingPathComponent("whole/default-1"))
        XCTAssertTrue(reference.keys.contains("report.md"))
        XCTAssertGreaterThanOrEqual(reference.keys.filter { $0.hasSuffix(".csv") }.count, 9)
        for n in [1, 3, 7] {
            var dbs: [String] = []
            for k in 1...n {
                let db = "n\(n)-shard\(k).sqlite"
                let shard = try remindersim("run", "--users", "2100", "--days", "35", "--threads", "1",
                                            "--shard", "\(k)/\(n)", "--db", db, "--out", "unused")
                assertExit(shard, 0)
                dbs.append(db)
            }
            // Shards may be given in any order.
            let merge = try remindersim(arguments: ["merge"] + dbs.reversed() + ["--into", "merged-\(n).sqlite", "--out", "merged-\(n)"])
            assertExit(merge, 0)
            let merged = try files(in: workDirectory.appendingPathComponent("merged-\(n)/default-1"))
            XCTAssertEqual(Set(merged.keys), Set(reference.keys), "n = \(n)")
            for (name, data) in reference {
                XCTAssertEqual(merged[name], data, "n = \(n): \(name) differs")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: workDirectory.appendingPathComponent("unused").path),
                       "a shard renders no report")
    }

    func testMergeRefusesShardsThatDoNotBelongTogether() throws {
        for (k, seed) in [(1, "5"), (2, "5"), (3, "6")] {
            assertExit(try remindersim("run", "--users", "300", "--days", "35", "--seed", seed, "--shard", "\(k)/3",
                                       "--db", "s\(k).sqlite"), 0)
        }
        assertExit(try remindersim("run", "--users", "300", "--days", "35", "--seed", "5", "--shard", "3/4",
                                   "--db", "four.sqlite"), 0)
        // Shard 3 of seed 5 as another version would have stored it.
        assertExit(try remindersim("run", "--users", "300", "--days", "35", "--seed", "5", "--shard", "3/3",
                                   "--db", "other.sqlite"), 0)
        do {
            let store = try RunStore(path: workPath("other.sqlite"), create: false, readOnly: false)
            try store.database.execute("UPDATE runs SET tool_version = '9.9.9'")
        }
        assertExit(try remindersim("run", "--users", "300", "--days", "30", "--seed", "5", "--shard", "3/3",
                                   "--db", "days.sqlite"), 0)
        let cases: [([String], String)] = [
            (["s1.sqlite", "s2.sqlite", "days.sqlite"], "days.sqlite run 1: a different scenario from s1.sqlite run 1 (\"default\"): its horizonDays differs\n"),
            (["s1.sqlite", "s2.sqlite", "other.sqlite"],
             "other.sqlite run 1: ran remindersim 9.9.9, but s1.sqlite run 1 \(ReminderSim.version); shards of one run are run by one version"),
            (["s1.sqlite", "s2.sqlite"], "shard 3/3 is missing"),
            (["s1.sqlite", "s1.sqlite", "s2.sqlite"], "shard 1/3 appears twice"),
            (["s1.sqlite", "s2.sqlite", "s3.sqlite"], "seed 6, but s1.sqlite run 1 has seed 5"),
            (["s1.sqlite", "s2.sqlite", "four.sqlite"], "shard 3/4, but s1.sqlite run 1 is one of 3"),
        ]
        for (inputs, message) in cases {
            let result = try remindersim(arguments: ["merge"] + inputs + ["--into", "m.sqlite"])
            assertExit(result, 65)
            assertContains(result.stderr, message, "stderr of merge \(inputs)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: workDirectory.appendingPathComponent("m.sqlite").path),
                       "a refused merge writes nothing")
        let whole = try remindersim("run", "--users", "300", "--days", "35", "--db", "whole.sqlite")
        assertExit(whole, 0)
        let notShard = try remindersim("merge", "whole.sqlite", "--into", "m.sqlite")
        assertExit(notShard, 65)
        assertContains(notShard.stderr, "holds no shard run")
    }

    func testShardArgumentsThatMakeNoSenseAreUsageErrors() throws {
        for bad in ["0/0", "4/3", "-1/2", "a/b", "3", "0/2"] {
            let result = try remindersim("run", "--users", "100", "--days", "35", "--shard=\(bad)")
            assertExit(result, 64)
            assertContains(result.stderr, "--shard")
        }
    }

    /// More shards than users would leave shards of no user: refused before anything is made.
    func testMoreShardsThanUsersAreRefused() throws {
        let result = try remindersim("run", "--users", "2", "--days", "35", "--install-spread", "30", "--shard", "1/3",
                                     "--db", "s.sqlite")
        assertExit(result, 64)
        assertContains(result.stderr, "--shard 1/3: 3 shards of 2 users would leave some without users; split into at most 2")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("s.sqlite")))
        assertExit(try remindersim("run", "--users", "3", "--days", "35", "--install-spread", "30", "--shard", "3/3",
                                   "--db", "s.sqlite"), 0)
    }

    func testTheLocalShardingScriptRuns() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let scriptPath = root.appendingPathComponent("scripts/sharded-local.sh").path
        let scenario = root.appendingPathComponent("Datasets/default-scenario.json").path
        var environment = self.environment([:])
        environment["REMINDERSIM"] = try ReminderSimExecutable.located.get().path
        environment["SHARDS"] = "3"
        environment["PARALLEL"] = "2"
        environment["USERS"] = "900"
        // Run twice into the same folder: the second run must not trip over the first one's shards.
        for _ in 0..<2 {
            let script = try ChildProcess(
                executable: URL(fileURLWithPath: "/bin/sh"), arguments: [scriptPath, scenario, "out"],
                environment: environment, directory: workDirectory, spool: spoolDirectory)
            let done = try XCTUnwrap(script.wait(timeout: Self.defaultTimeout), "the sharding script did not finish")
            XCTAssertEqual(done.status, 0, done.description)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: workPath("out/default-2/report.md")),
                      "the second run is merged as run 2")
        let whole = try remindersim("run", scenario, "--users", "900", "--db", "whole.sqlite", "--out", "whole")
        assertExit(whole, 0)
        let merged = try files(in: workDirectory.appendingPathComponent("out/default-1"))
        let reference = try files(in: workDirectory.appendingPathComponent("whole/default-1"))
        XCTAssertEqual(merged, reference)
    }
}
