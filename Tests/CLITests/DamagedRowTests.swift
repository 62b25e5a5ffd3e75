import Foundation
import Storage
import ReminderSimTestSupport
import XCTest

/// A real stored run with one field of one row damaged or edited: every command that reads it stops
/// with exit 74 and one line naming the database, the table and column, and why; none traps.
final class DamagedRowTests: ReminderSimTestCase {
    static let run = ["run", "--users", "200", "--days", "35", "--threads", "1"]

    /// A database with runs 1 and 2 of the default scenario, made once per test.
    func makeRuns(_ name: String = "runs.sqlite") throws {
        for _ in 0..<2 { assertExit(try remindersim(arguments: Self.run + ["--db", name, "--out", "reports"]), 0) }
    }

    /// A copy of `source` named `name`, with `sql` applied to it.
    func damaged(_ sql: String, from source: String = "runs.sqlite", as name: String) throws -> String {
        try? FileManager.default.removeItem(atPath: workPath(name))
        try FileManager.default.copyItem(atPath: workPath(source), toPath: workPath(name))
        do {
            let database = try Database(path: workPath(name), create: false)
            try database.execute(sql)
        }  // closed here, so the change is in the file itself
        return name
    }

    /// Runs `arguments` (with `--db` added when `database` is given) and expects a refusal with
    /// `status` naming the database first and then every one of `mentions`.
    func assertRefused(_ arguments: [String], database: String?, status: Int32 = 74, mentions: [String],
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try remindersim(arguments: arguments + (database.map { ["--db", $0] } ?? []), file: file, line: line)
        assertExit(result, status, file: file, line: line)
        XCTAssertEqual(result.stderrLines.count, 1, "expected one error line:\n\(result)", file: file, line: line)
        let message = result.stderrLines.first ?? ""
        let named = database ?? ""
        XCTAssertTrue(message.hasPrefix("remindersim: error: \(named)"), "the error should name the database:\n\(result)",
                      file: file, line: line)
        for fragment in mentions { assertContains(message, fragment, "error of \(arguments)", file: file, line: line) }
    }

    /// A stored tune with one field edited: `list` and `report tune:1` refuse it naming the table and
    /// column, and an edited scenario is not worked out again at a size the tune never had.
    func testEditedTuneRowsAreRefused() throws {
        let data = try Data(contentsOf: TuneCommandTests.datasets.appendingPathComponent("tune-periods.json"))
        let space: [String: Any] = ["periods": ["min": 1, "max": 3], "sequenceLength": ["min": 1, "max": 1]]
        let edited = try JSONEdit.setting(space, at: "tune.space",
                                          in: JSONEdit.setting(30, at: "horizonDays", in: JSONSerialization.jsonObject(with: data)))
        _ = try writeFile("tune.json", try JSONEdit.text(edited))
        assertExit(try remindersim("tune", "tune.json", "--users", "300", "--db", "tunes.sqlite", "--out", "out"), 0)
        let cases: [(String, [String], String)] = [
            ("UPDATE tunes SET users = -5", ["list"], "tunes.users of tune 1: -5 is outside"),
            ("UPDATE tunes SET candidates = -1", ["list", "--json"], "tunes.candidates of tune 1: -1 is outside"),
            ("UPDATE tunes SET tune_id = -1", ["list"], "tunes.tune_id of row 1: -1 is outside"),
            ("UPDATE tunes SET seed = -1", ["list"], "tunes.seed of tune 1: -1 is outside"),
            ("UPDATE tunes SET seed = 4611686018427387904", ["list", "--json"], "tunes.seed of tune 1: 4611686018427387904 is outside"),
            ("UPDATE tunes SET scenario_json = json_set(scenario_json, '$.users', 100000000)", ["report", "tune:1", "--out", "rep"],
             "tunes.users of tune 1: the tune's final users differ from its stored scenario's (100000000)"),
            ("UPDATE tunes SET seed = seed + 1", ["report", "tune:latest", "--out", "rep"],
             "tunes.seed of tune 1: the tune's seed differs from its stored scenario's"),
            // A scenario's checks pass, a tune's do not.
            ("UPDATE tunes SET scenario_json = json_set(scenario_json, '$.tune.space.periods.max', 100000000)",
             ["report", "tune:1", "--out", "rep"], "tunes.scenario_json of tune 1: tune.space"),
            // Edited consistently, the tune's users would take hours to work out again.
            ("UPDATE tunes SET users = 200000000, scenario_json = json_set(scenario_json, '$.users', 200000000)",
             ["report", "tune:1", "--out", "rep"], "tunes.scenario_json of tune 1: its search would take about"),
            ("UPDATE tunes SET wall_seconds = 1e300", ["report", "tune:1", "--out", "rep"], "tunes.wall_seconds of tune 1"),
            ("UPDATE tunes SET threads = 0", ["report", "tune:1", "--out", "rep"], "tunes.threads of tune 1"),
            // Exported as stored, but only values of the kinds the schema holds.
            ("UPDATE tunes SET simulated = 'abc'", ["export", "tune:1", "--csv", "csv-tune"],
             "tunes.simulated of tune 1: the text \"abc\" where the schema holds integer"),
            ("UPDATE tune_candidates SET label = x'00ff' WHERE candidate_index = 0", ["export", "tune:1", "--csv", "csv-tune"],
             "tune_candidates.label of tune 1: a blob of 2 bytes where the schema holds text"),
        ]
        for (n, (sql, arguments, mention)) in cases.enumerated() {
            let database = try damaged(sql, from: "tunes.sqlite", as: "tune-\(n).sqlite")
            try assertRefused(arguments, database: database, mentions: [mention])
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("rep")), "nothing is written for a refused tune")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("csv-tune/tunes.csv")), "nor exported")
    }

    /// A user range whose start is after its end, and one beyond the scenario's users.
    func testImpossibleUserRange() throws {
        try makeRuns()
        let reversed = try damaged("UPDATE runs SET first_user = 10, end_user = 5 WHERE run_id = 1", as: "reversed.sqlite")
        for arguments in [["report", "1", "--out", "out"], ["compare", "1", "2"], ["compare", "2", "1"]] {
            try assertRefused(arguments, database: reversed, mentions: ["runs.first_user", "run 1", "10"])
        }
        let beyond = try damaged("UPDATE runs SET end_user = 9223372036854775807 WHERE run_id = 2", as: "beyond.sqlite")
        try assertRefused(["report", "2", "--out", "out"], database: beyond, mentions: ["runs.end_user", "run 2"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("out")), "a report was written from a damaged run")
    }

    /// Tally layouts that differ from the ones the stored scenario gives: swapped, huge, negative, text.
    func testTallyLayoutsAreCheckedAgainstTheScenario() throws {
        try makeRuns()
        let cases: [(sql: String, column: String)] = [
            ("UPDATE tallies SET message_slots = period_slots, period_slots = message_slots WHERE run_id = 1 AND config_index = 1",
             "tallies.message_slots"),
            ("UPDATE tallies SET message_slots = 9223372036854775807 WHERE run_id = 1 AND config_index = 1",
             "tallies.message_slots"),
            ("UPDATE tallies SET period_slots = 9223372036854775807 WHERE run_id = 1 AND config_index = 2",
             "tallies.period_slots"),
            ("UPDATE tallies SET cron_rules = -1 WHERE run_id = 1 AND config_index = 3", "tallies.cron_rules"),
            ("UPDATE tallies SET days = 'many' WHERE run_id = 1 AND config_index = 0", "tallies.days"),
        ]
        for (n, c) in cases.enumerated() {
            let database = try damaged(c.sql, as: "layout-\(n).sqlite")
            try assertRefused(["report", "1", "--out", "out"], database: database, mentions: [c.column, "run 1"])
            try assertRefused(["compare", "2", "1"], database: database, mentions: [c.column])
        }
    }

    /// Counts of the wrong size, counts no run can reach, and sums over users of either kind.
    func testCountsAreCheckedForSizeAndMagnitude() throws {
        try makeRuns()
        let cases: [(sql: String, column: String)] = [
            ("UPDATE tallies SET counts = randomblob(length(counts)) WHERE run_id = 1 AND config_index = 1", "tallies.counts"),
            ("UPDATE tallies SET counts = randomblob(length(counts)) WHERE run_id = 1 AND config_index = 0", "tallies.counts"),
            ("UPDATE tallies SET counts = substr(counts, 1, 100) WHERE run_id = 1 AND config_index = 2", "tallies.counts"),
            ("UPDATE tallies SET counts = 'text' WHERE run_id = 1 AND config_index = 2", "tallies.counts"),
            ("UPDATE user_sums SET counts = randomblob(length(counts)) WHERE run_id = 1", "user_sums.counts"),
            ("UPDATE user_sums SET counts = zeroblob(8) WHERE run_id = 1", "user_sums.counts"),
            ("UPDATE user_sums SET segments = 9223372036854775807 WHERE run_id = 1", "user_sums.segments"),
        ]
        for (n, c) in cases.enumerated() {
            let database = try damaged(c.sql, as: "counts-\(n).sqlite")
            try assertRefused(["report", "1", "--out", "out"], database: database, mentions: [c.column, "run 1"])
            try assertRefused(["compare", "1", "2"], database: database, mentions: [c.column])
        }
    }

    /// A configuration's user count is the run's: a count edited to −1 or 0 no longer matches it, and
    /// a whole run's user range cut to half or to nothing no longer covers its scenario's users.
    func testUserCountsAgreeWithTheRunsUsers() throws {
        try makeRuns()
        let cases: [(sql: String, mentions: [String])] = [
            ("UPDATE tallies SET counts = CAST(x'FFFFFFFFFFFFFFFF' || substr(counts, 9) AS BLOB) WHERE run_id = 1 AND config_index = 1",
             ["tallies.counts", "configuration 1", "-1 users", "covers 200"]),
            ("UPDATE tallies SET counts = CAST(zeroblob(8) || substr(counts, 9) AS BLOB) WHERE run_id = 1 AND config_index = 0",
             ["tallies.counts", "configuration 0", "0 users"]),
            // A whole run covers all its scenario's users.
            ("UPDATE runs SET first_user = 100 WHERE run_id = 1",
             ["runs.first_user", "users 100 to 200, but a complete run covers 0 to 200, its scenario's users"]),
            ("UPDATE runs SET end_user = 0 WHERE run_id = 1", ["runs.end_user", "users 0 to 0, but a complete run covers 0 to 200"]),
            // Counts within the limits that break the sums every run keeps: opens (bytes 8…15) are the organic
            // ones and the answers; notifications scheduled (bytes 40…47) end in one outcome each.
            ("UPDATE tallies SET counts = CAST(substr(counts, 1, 8) || x'0000000000000400' || substr(counts, 17) AS BLOB) "
                + "WHERE run_id = 1 AND config_index = 1",
             ["tallies.counts", "configuration 1", "1125899906842624 opens, but", "organic and"]),
            ("UPDATE tallies SET counts = CAST(substr(counts, 1, 40) || x'0100000000000000' || substr(counts, 49) AS BLOB) "
                + "WHERE run_id = 1 AND config_index = 2",
             ["tallies.counts", "configuration 2", "1 notifications scheduled, but their outcomes"]),
        ]
        let listed = try damaged("UPDATE runs SET users = 1152921504606846976 WHERE run_id = 1", as: "listed.sqlite")
        try assertRefused(["list"], database: listed, mentions: ["run_overview.users", "run 1"])
        for (n, c) in cases.enumerated() {
            let database = try damaged(c.sql, as: "users-\(n).sqlite")
            try assertRefused(["report", "1", "--out", "out"], database: database, mentions: c.mentions + ["run 1"])
            try assertRefused(["export", "1", "--csv", "csv"], database: database, mentions: c.mentions)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("out")), "a report was written from a damaged run")
    }

    /// A damaged row of one run keeps `list` from listing them all, but not a command from another run.
    func testADamagedRunDoesNotBlockTheOthers() throws {
        try makeRuns()
        assertExit(try remindersim(arguments: Self.run + ["--db", "runs.sqlite", "--out", "reports"]), 0)
        let database = try damaged("DELETE FROM configurations WHERE run_id = 2", as: "other.sqlite")
        try assertRefused(["list"], database: database, mentions: ["run_overview.configurations", "run 2"])
        for arguments in [["report", "1", "--out", "out"], ["export", "1", "--csv", "csv"], ["compare", "1", "3"]] {
            assertExit(try remindersim(arguments: arguments + ["--db", database]), 0)
        }
    }

    /// The other fields a run is rebuilt from: its shard number, threads and scenario.
    func testRunFields() throws {
        try makeRuns()
        let cases: [(sql: String, column: String)] = [
            ("UPDATE runs SET shard_index = 9223372036854775807, shard_count = 3 WHERE run_id = 1", "runs.shard_index"),
            ("UPDATE runs SET shard_index = 0, shard_count = NULL WHERE run_id = 1", "runs.shard_count"),
            ("UPDATE runs SET threads = 'abc' WHERE run_id = 1", "runs.threads"),
            ("UPDATE runs SET scenario_json = 42 WHERE run_id = 1", "runs.scenario_json"),
            // An edited fingerprint would be taken for other recorded logs.
            ("UPDATE runs SET recorded_data = 'x' WHERE run_id = 1", "runs.recorded_data"),
            ("UPDATE runs SET recorded_data = '' WHERE run_id = 1", "runs.recorded_data"),
            // A fingerprint in the right form for a scenario that reads no log: nobody read those logs.
            ("UPDATE runs SET recorded_data = 'abc' WHERE run_id = 1", "runs.recorded_data"),
        ]
        for (n, c) in cases.enumerated() {
            let database = try damaged(c.sql, as: "run-\(n).sqlite")
            try assertRefused(["report", "1", "--out", "out"], database: database, mentions: [c.column, "run 1"])
        }
    }

    /// A stored scenario keeps the zones it ran with, whatever this machine's database knows; one this machine
    /// does not have at all cannot be simulated again (its users would silently keep UTC): `report`, which
    /// works the second look out again, refuses it; `export`, which reads what was stored, does not need it.
    func testAStoredZoneThisMachineDoesNotHave() throws {
        try makeRuns()
        let database = try damaged("UPDATE runs SET scenario_json = json_set(scenario_json, '$.population.utcOffsets', "
            + "json('[{\"zone\": \"Mars/Olympus\", \"weight\": 1}]')) WHERE run_id = 1", as: "zone.sqlite")
        let report = try remindersim("report", "1", "--db", database, "--out", "out")
        assertExit(report, 65)
        assertContains(report.stderr, "population.utcOffsets[0].zone: \"Mars/Olympus\" is a time zone this machine's time zone "
            + "database does not have")
        assertExit(try remindersim("export", "1", "--db", database, "--csv", "csv"), 0)
    }

    /// `list` refuses a wall time that is no duration, and shows edited text on one line.
    func testListChecksTheWallTimeAndShowsTextOnOneLine() throws {
        try makeRuns()
        for (n, sql) in ["UPDATE runs SET wall_seconds = 9e999 WHERE run_id = 1",
                         "UPDATE runs SET wall_seconds = -3 WHERE run_id = 1",
                         "UPDATE runs SET wall_seconds = 1e308 WHERE run_id = 1"].enumerated() {
            let database = try damaged(sql, as: "wall-\(n).sqlite")
            try assertRefused(["list"], database: database, mentions: ["run_overview.wall_seconds", "run 1", "not a duration"])
        }
        // A seed no run can have (from 0 to 2^53 − 1) is not shown as one.
        for (n, seed) in ["-1", "4611686018427387904"].enumerated() {
            let database = try damaged("UPDATE runs SET seed = \(seed) WHERE run_id = 1", as: "seed-\(n).sqlite")
            try assertRefused(["list", "--json"], database: database, mentions: ["run_overview.seed of run 1: \(seed) is outside"])
        }
        // A time the tool never wrote is refused, and shown on one line as it is.
        let database = try damaged("UPDATE runs SET created_at = 'x' || char(10) || 'y' WHERE run_id = 1", as: "created.sqlite")
        try assertRefused(["list"], database: database, mentions: ["run_overview.created_at of run 1: the text \"x?y\" is not a date"])
        for (n, value) in ["'Inf'", "9e999", "'2026-13-01T00:00:00Z'"].enumerated() {
            let database = try damaged("UPDATE runs SET created_at = \(value) WHERE run_id = 1", as: "created-\(n).sqlite")
            try assertRefused(["list"], database: database, mentions: ["run_overview.created_at of run 1"])
        }
    }

    /// `list` reads the `run_overview` view, which a hand can replace with one that returns NULLs.
    func testAViewReturningNulls() throws {
        try makeRuns()
        let database = try damaged(
            """
            DROP VIEW run_overview;
            CREATE VIEW run_overview AS SELECT NULL AS run_id, scenario_name, seed, users, horizon_days, status,
                created_at, wall_seconds, 1 AS configurations FROM runs;
            """, as: "view.sqlite")
        try assertRefused(["list"], database: database, mentions: ["run_overview.run_id", "NULL"])
        // The view serves `list`; a run is found and rebuilt from its own rows.
        assertExit(try remindersim("report", "latest", "--out", "out", "--db", database), 0)
        let names = try damaged(
            """
            DROP VIEW run_overview;
            CREATE VIEW run_overview AS SELECT run_id, NULL AS scenario_name, seed, users, horizon_days, status,
                created_at, wall_seconds, 1 AS configurations FROM runs;
            """, as: "names.sqlite")
        try assertRefused(["list"], database: names, mentions: ["run_overview.scenario_name", "run 1", "NULL"])
        // A view without the columns read: SQLite refuses the query, and the error still names the file.
        let columns = try damaged("DROP VIEW run_overview; CREATE VIEW run_overview AS SELECT 1 AS x;", as: "columns.sqlite")
        try assertRefused(["list"], database: columns, mentions: ["no such column: run_id"])
        assertExit(try remindersim("report", "latest", "--out", "out", "--db", columns), 0)
    }

    /// Counts and sums no run can make (a count below zero, more users eligible than users, a sum of
    /// squares below its sum), and a run's row that says other than its scenario, are refused by every
    /// command that reads the run, and by merge: never shown, nor saved into a merged run.
    func testImpossibleCountsAndEditedRunRowsAreRefused() throws {
        try makeRuns()
        let minusOne = "X'FFFFFFFFFFFFFFFF'"
        let cases: [(String, String)] = [
            // Count 1, the holdout's opens, made −1.
            ("UPDATE tallies SET counts = CAST(substr(counts, 1, 8) || \(minusOne) || substr(counts, 17) AS BLOB) WHERE run_id = 1 AND config_index = 0",
             "tallies.counts of run 1, configuration 0: count 1 is impossible: -1 is below zero"),
            // More users eligible on day 1 than users.
            ("UPDATE tallies SET counts = CAST(substr(counts, 1, 8 * 16) || X'FFFFFF0000000000' || substr(counts, 8 * 17 + 1) AS BLOB) "
                + "WHERE run_id = 1 AND config_index = 2",
             "configuration 2: count 16 is impossible: 16777215 users eligible, more than the 200 users"),
            // The first sum over users (the holdout's triggers, a count) made −1.
            ("UPDATE user_sums SET counts = CAST(\(minusOne) || substr(counts, 9) AS BLOB) WHERE run_id = 1",
             "user_sums.counts of run 1: sum 0 is impossible: -1 is below zero"),
            // Sums over users that are possible on their own, but not the sums of this run's users.
            ("UPDATE user_sums SET counts = zeroblob(length(counts)) WHERE run_id = 1",
             "user_sums.counts of run 1: sum 1160 disagrees with the run's tallies: configuration 0's segments hold 0 users"),
            ("UPDATE runs SET users = 5 WHERE run_id = 1", "runs.users of run 1: 5, but the run's scenario (scenario_json) says 200"),
            ("UPDATE runs SET seed = seed + 1 WHERE run_id = 1", "runs.seed of run 1: "),
            ("UPDATE runs SET horizon_days = 90 WHERE run_id = 1", "runs.horizon_days of run 1: 90, but"),
            ("UPDATE runs SET scenario_name = 'other' WHERE run_id = 1", "runs.scenario_name of run 1: \"other\", but"),
            ("UPDATE runs SET status = 'shard' WHERE run_id = 1", "runs.status of run 1: shard, but the run's scenario (scenario_json) says complete"),
            // A wall time no clock measured.
            ("UPDATE runs SET wall_seconds = -1 WHERE run_id = 1", "runs.wall_seconds of run 1: -1.0 is not a duration in seconds"),
            // A time the tool never wrote.
            ("UPDATE runs SET created_at = 'garbage' WHERE run_id = 1",
             "runs.created_at of run 1: the text \"garbage\" is not a date and time (ISO 8601"),
        ]
        for (k, (sql, mention)) in cases.enumerated() {
            let database = try damaged(sql, as: "impossible-\(k).sqlite")
            for command in [["report", "1", "--out", "out"], ["export", "1", "--csv", "csv-\(k)"], ["compare", "1", "2"]] {
                try assertRefused(command, database: database, mentions: [mention])
            }
        }
        // A shard with an impossible count is not merged.
        for k in 1...2 {
            assertExit(try remindersim(arguments: Self.run + ["--shard", "\(k)/2", "--db", "part\(k).sqlite"]), 0)
        }
        let bad = try damaged(cases[0].0, from: "part1.sqlite", as: "bad-part1.sqlite")
        try assertRefused(["merge", bad, "part2.sqlite", "--into", "merged.sqlite", "--out", "merged"], database: nil,
                          mentions: [bad, "count 1 is impossible"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("merged.sqlite")))
        // Nor one whose sums over users were zeroed: merged, they would move every paired interval.
        let zeroed = try damaged(cases[3].0, from: "part2.sqlite", as: "zeroed-part2.sqlite")
        try assertRefused(["merge", "part1.sqlite", zeroed, "--into", "merged.sqlite", "--out", "merged"], database: nil,
                          mentions: [zeroed, "user_sums.counts of run 1: sum ", "disagrees with the run's tallies: configuration 0's segments hold 0 users, but its tally counts"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("merged.sqlite")))
    }

    /// Shards with an edited shard count, or counts that only overflow once added up: merge refuses
    /// them without trying to list a billion missing shards or adding past what a count can hold.
    func testMergeOfDamagedShards() throws {
        for k in 1...2 {
            assertExit(try remindersim(arguments: Self.run + ["--shard", "\(k)/2", "--db", "shard\(k).sqlite"]), 0)
        }
        // Shards of no users, as a shard of 4 · 10¹⁸ is: their ranges and their user counts say so.
        let none = "UPDATE runs SET shard_count = 4000000000000000000, first_user = 0, end_user = 0; "
            + "UPDATE tallies SET counts = CAST(zeroblob(length(counts)) AS BLOB); "
            + "UPDATE user_sums SET counts = CAST(zeroblob(length(counts)) AS BLOB)"
        let huge = try damaged(none, from: "shard1.sqlite", as: "huge1.sqlite")
        _ = try damaged(none, from: "shard2.sqlite", as: "huge2.sqlite")
        let merge = try remindersim("merge", huge, "huge2.sqlite", "--into", "merged.sqlite", "--out", "merged")
        assertExit(merge, 65)
        assertContains(merge.stderr, "shards are missing")
        XCTAssertLessThan(merge.stderr.utf8.count, 2_000, "every missing shard was listed")

        let reversed = try damaged("UPDATE runs SET first_user = end_user + 1", from: "shard2.sqlite", as: "reversed2.sqlite")
        try assertRefused(["merge", "shard1.sqlite", reversed, "--into", "merged.sqlite", "--out", "merged"], database: nil,
                          mentions: [reversed, "runs.first_user"])

        // A shard whose sums over users were deleted would leave the merged run without paired comparisons.
        _ = try damaged("DELETE FROM user_sums", from: "shard1.sqlite", as: "nosums1.sqlite")
        let nosums = try remindersim("merge", "nosums1.sqlite", "shard2.sqlite", "--into", "merged.sqlite", "--out", "merged")
        assertExit(nosums, 65)
        assertContains(nosums.stderr, "shard2.sqlite run 1 has sums over users (table user_sums), nosums1.sqlite run 1 does not")

        // 2^50 users revived in each shard (bytes 112…119): each is readable, their sum is not a count any run can have.
        let top = "UPDATE tallies SET counts = CAST(substr(counts, 1, 112) || X'0000000000000400' || substr(counts, 121) AS BLOB) "
            + "WHERE config_index = 1"
        _ = try damaged(top, from: "shard1.sqlite", as: "top1.sqlite")
        _ = try damaged(top, from: "shard2.sqlite", as: "top2.sqlite")
        let sum = try remindersim("merge", "top1.sqlite", "top2.sqlite", "--into", "merged.sqlite", "--out", "merged")
        assertExit(sum, 65)
        assertContains(sum.stderr, "configuration 1")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("merged.sqlite")), "a merge that failed made a database")
        // 2^50 opens in a shard breaks the sums every run keeps (organic opens and answers): that shard is damaged.
        let opens = "UPDATE tallies SET counts = CAST(substr(counts, 1, 8) || X'0000000000000400' || substr(counts, 17) AS BLOB) "
            + "WHERE config_index = 1"
        _ = try damaged(opens, from: "shard1.sqlite", as: "opens1.sqlite")
        try assertRefused(["merge", "opens1.sqlite", "shard2.sqlite", "--into", "merged.sqlite", "--out", "merged"], database: nil,
                          mentions: ["opens1.sqlite", "tallies.counts", "configuration 1"])
    }
}
