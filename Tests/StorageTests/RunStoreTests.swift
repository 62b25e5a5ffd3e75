import Foundation
import ReminderEngine
import Simulation
import Storage
import ReminderSimTestSupport
import SimulationTestSupport
import XCTest

final class RunStoreTests: FolderTestCase {
    override var folderPrefix: String { "store" }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    static let hostile = [
        "It's \"quoted\"; and semicolons;",
        "'); DROP TABLE runs; --",
        "line one\nline two\r\nline three",
        "a | pipe | table",
        "=HYPERLINK(\"http://example.invalid\",\"click\")",
        "+1", "-1", "@SUM(A1:A2)",
        "emoji 🚀🔥 and accents éàü",
        // The longest message a scenario may have.
        String(repeating: "long text ", count: 200),
    ]

    func smallScenario(users: Int = 300, messages: [String] = ["A", "B"]) -> Scenario {
        var s = Scenario.builtInDefault
        s.users = users
        s.horizonDays = 35
        s.response.messageWeights = [:]
        s.configurations = [
            ConfigurationSpec(label: "first", reminders: [ReminderSpec(messages: messages, timePeriods: [1, 3])],
                              cronRules: ["1 1", "1 */7"]),
            ConfigurationSpec(label: "second ' \" |", mode: .original,
                              reminders: [ReminderSpec(messages: messages, timePeriods: [2], randomMessage: true)]),
        ]
        return s
    }

    func record(_ s: Scenario) throws -> RunRecord {
        RunRecord(results: RunResults(scenario: s, tallies: HandMadeTallies.tallies(for: s)), toolVersion: "test",
                  createdAt: "2026-12-02T00:00:00Z", wallSeconds: 1.5, threads: 2)
    }

    func testARunReadsBackExactly() throws {
        let store = try RunStore(path: path("a.sqlite"))
        let r = try record(smallScenario())
        let id = try store.save(r)
        let back = try store.load(id)
        XCTAssertEqual(back.results.tallies, r.results.tallies)
        XCTAssertEqual(back.record.scenario, r.scenario)
        XCTAssertEqual(back.results.all.map(\.label), ["holdout", "first", "second ' \" |"])
        XCTAssertEqual(try store.list().map(\.id), [id])
        XCTAssertEqual(try store.list().first?.configurations, 2)
    }

    func testHostileTextRoundTripsExactly() throws {
        let store = try RunStore(path: path("h.sqlite"))
        var s = smallScenario(messages: Self.hostile)
        s.name = "'); DROP TABLE runs; --"
        let id = try store.save(try record(s))
        let back = try store.load(id)
        XCTAssertEqual(back.record.scenario.name, s.name)
        let rows = try store.export(table: "message_stats", run: id)
        let column = try XCTUnwrap(rows.columns.firstIndex(of: "message"))
        let texts = rows.rows.filter { $0[1] == .integer(1) }.map { $0[column] }
        XCTAssertEqual(texts, Self.hostile.map { .text($0) })
        // The tables are all still there.
        XCTAssertEqual(try store.list().count, 1)
    }

    func testDerivedTablesAgreeWithTheCounts() throws {
        let store = try RunStore(path: path("d.sqlite"))
        let r = try record(smallScenario())
        let id = try store.save(r)
        let metrics = try store.export(table: "config_metrics", run: id)
        let col = { (name: String) in metrics.columns.firstIndex(of: name)! }
        for (i, row) in metrics.rows.enumerated() {
            let t = r.results.tallies.tallies[i]
            XCTAssertEqual(row[col("opens")], .integer(t[.opens]))
            XCTAssertEqual(row[col("scheduled")], .integer(t[.scheduled]))
            XCTAssertEqual(row[col("responded")], .integer(t[.responded]))
            if i == 0 {
                XCTAssertEqual(row[col("trigger_rate")], .null, "the holdout has no notifications")
                XCTAssertEqual(row[col("opens_lift_per_user")], .null)
            } else {
                let triggered = t[.delivered] + t[.foreground] + t[.suppressed]
                XCTAssertEqual(row[col("trigger_rate")], .real(Double(triggered) / Double(t[.scheduled] - t[.censored])))
            }
        }
        let daily = try store.export(table: "daily_stats", run: id)
        XCTAssertEqual(daily.rows.count, 3 * 35)
        XCTAssertEqual(daily.rows.first?[daily.columns.firstIndex(of: "date")!], .text("2026-01-05"))
        let runs = try store.export(table: "runs", run: id)
        XCTAssertFalse(runs.columns.contains("created_at"), "volatile columns are not exported")
        XCTAssertTrue(runs.columns.contains("scenario_json"))
    }

    func testAFailedSaveLeavesNothingBehind() throws {
        let store = try RunStore(path: path("f.sqlite"))
        // A failure on the first period row comes after the run and the holdout's rows are written.
        try store.database.execute(
            "CREATE TEMP TRIGGER fail BEFORE INSERT ON main.period_stats BEGIN SELECT RAISE(ABORT, 'disk on fire'); END")
        XCTAssertThrowsError(try store.save(try record(smallScenario()))) { XCTAssertTrue("\($0)".contains("disk on fire")) }
        try store.database.execute("DROP TRIGGER temp.fail")
        XCTAssertEqual(try store.list(), [])
        for table in RunStore.exportedTables {
            let count = try store.database.rows("SELECT count(*) FROM \(table)").first?.integer(0)
            XCTAssertEqual(count, 0, table)
        }
        XCTAssertNoThrow(try store.save(try record(smallScenario())))
    }

    func testSchemaVersionIsRecordedAndANewerOneRefused() throws {
        let p = path("v.sqlite")
        do {
            let store = try RunStore(path: p)
            XCTAssertEqual(try store.database.userVersion, RunStore.schemaVersion)
            try store.database.execute("PRAGMA user_version = \(RunStore.schemaVersion + 1)")
        }
        XCTAssertThrowsError(try RunStore(path: p)) { error in
            let e = error as? StoreError
            XCTAssertEqual(e?.kind, .newerSchema)
            XCTAssertTrue(e?.message.contains("written by a newer ReminderSim") ?? false, "\(error)")
        }
    }

    func testMigratingTwiceIsHarmless() throws {
        let p = path("m.sqlite")
        let id = try RunStore(path: p).save(try record(smallScenario()))
        let again = try RunStore(path: p)
        XCTAssertEqual(try again.list().map(\.id), [id])
    }

    func testOtherDatabasesAndFilesAreRefused() throws {
        let other = path("other.sqlite")
        do {
            let db = try Database(path: other)
            try db.execute("CREATE TABLE notes (x TEXT)")
        }
        XCTAssertThrowsError(try RunStore(path: other)) { XCTAssertEqual(($0 as? StoreError)?.kind, .corrupt) }

        let garbage = path("garbage.sqlite")
        try Data((0..<4_096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: garbage))
        let before = try Data(contentsOf: URL(fileURLWithPath: garbage))
        XCTAssertThrowsError(try RunStore(path: garbage)) { error in
            XCTAssertEqual((error as? StoreError)?.kind, .corrupt, "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: garbage)), before, "a bad file is not modified")

        XCTAssertThrowsError(try RunStore(path: folder.path)) { error in
            XCTAssertEqual((error as? StoreError)?.kind, .io)
            XCTAssertTrue("\(error)".contains("is a directory"))
        }
        XCTAssertThrowsError(try RunStore(path: path("missing.sqlite"), create: false)) {
            XCTAssertEqual(($0 as? StoreError)?.kind, .notFound)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("missing.sqlite")))
    }

    func testMissingRunIsNotFound() throws {
        let store = try RunStore(path: path("n.sqlite"))
        XCTAssertThrowsError(try store.load(42)) { XCTAssertEqual(($0 as? StoreError)?.kind, .notFound) }
    }

    func testStatementErrorsCarryCodeMessageAndSQL() throws {
        let db = try Database(path: path("e.sqlite"))
        XCTAssertThrowsError(try db.run("SELECT * FROM nowhere")) { error in
            let e = error as? StoreError
            XCTAssertEqual(e?.sql, "SELECT * FROM nowhere")
            XCTAssertEqual(e?.result?.category, .other)
            XCTAssertTrue(e?.message.contains("no such table") ?? false)
        }
    }

    func testOpeningSomeoneElsesDatabaseChangesNothing() throws {
        let other = path("theirs.sqlite")
        do {
            let db = try Database(path: other)
            try db.execute("CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('keep me')")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: other))
        for create in [false, true] {
            XCTAssertThrowsError(try RunStore(path: other, create: create)) { error in
                XCTAssertEqual((error as? StoreError)?.kind, .corrupt)
                XCTAssertEqual("\(error)".components(separatedBy: other).count, 2, "names the path once: \(error)")
            }
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: other)), before)
        XCTAssertEqual(try Database(path: other).rows("PRAGMA journal_mode").first?.text(0), "delete")

        let empty = path("empty.sqlite")
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
        XCTAssertThrowsError(try RunStore(path: empty, create: false)) {
            XCTAssertEqual(($0 as? StoreError)?.kind, .notFound)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: empty)).count, 0, "a read-only command writes nothing")
    }

    /// A file that another program has marked with its own application id is not ours even if it holds
    /// tables of the same names; a new database gets ReminderSim's id.
    func testAnotherProgramsApplicationIDIsRefused() throws {
        let ours = path("ours.sqlite")
        _ = try RunStore(path: ours)
        let id = try Database(path: ours, create: false).rows("PRAGMA application_id").first?.integer(0)
        XCTAssertEqual(id, 0x5253_696D)

        let other = path("marked.sqlite")
        try FileManager.default.copyItem(atPath: ours, toPath: other)
        try Database(path: other, create: false).execute("PRAGMA application_id = 1196444487")
        let before = try Data(contentsOf: URL(fileURLWithPath: other))
        XCTAssertThrowsError(try RunStore(path: other)) { error in
            XCTAssertEqual((error as? StoreError)?.kind, .corrupt)
            XCTAssertTrue("\(error)".contains("application id 1196444487"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: other)), before)
    }

    /// Another program's database that happens to set `user_version` is still not ours: every command
    /// refuses it before writing, so its bytes (and its journal mode) stay exactly as they were.
    func testAForeignDatabaseWithAUserVersionIsRefusedUntouched() throws {
        for version in Set([1, RunStore.schemaVersion, 7]).sorted() {
            let other = path("customers-\(version).sqlite")
            do {
                let db = try Database(path: other)
                try db.execute("CREATE TABLE customers (id INT); PRAGMA user_version = \(version)")
            }
            let before = try Data(contentsOf: URL(fileURLWithPath: other))
            for create in [false, true] {
                XCTAssertThrowsError(try RunStore(path: other, create: create)) { error in
                    XCTAssertEqual((error as? StoreError)?.kind, .corrupt, "\(error)")
                    XCTAssertTrue("\(error)".contains("not a ReminderSim database"), "\(error)")
                    XCTAssertTrue("\(error)".contains("customers"), "the message says what was found: \(error)")
                }
            }
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: other)), before, "user_version \(version)")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .filter { $0.hasPrefix("customers-\(version).sqlite-") }
            XCTAssertEqual(leftovers, [], "no journal, WAL or shared-memory file is left")
        }
    }
}

/// Several connections creating and checking one new database at the same moment.
final class ConcurrentCreationTests: XCTestCase {
    /// Eight threads open the same new file at once, many times over. Creating the schema and checking
    /// ownership is one step, so no opener may see the tables half made.
    func testOpenersOfANewDatabaseAllSucceed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("create-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let failures = Failures()
        for round in 0..<60 {
            let path = folder.appendingPathComponent("new-\(round).sqlite").path
            let start = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            for _ in 0..<8 {
                done.enter()
                Thread {
                    start.wait()
                    do {
                        let store = try RunStore(path: path)
                        _ = try store.list()
                    } catch {
                        failures.add("round \(round): \(error)")
                    }
                    done.leave()
                }.start()
            }
            for _ in 0..<8 { start.signal() }
            done.wait()
            let store = try RunStore(path: path, create: false)
            XCTAssertEqual(try store.database.userVersion, RunStore.schemaVersion)
        }
        XCTAssertEqual(failures.all, [], "every opener of a new database must succeed")
    }
}

/// Messages collected from several threads.
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []
    func add(_ message: String) { lock.withLock { messages.append(message) } }
    var all: [String] { lock.withLock { messages } }
}
