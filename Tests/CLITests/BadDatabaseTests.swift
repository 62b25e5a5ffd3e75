import Foundation
import Storage
import ReminderSimTestSupport
import XCTest

/// `--db` pointing somewhere a database cannot be: exit 74 (66 for a database that is simply not
/// there), a message naming the path, and nothing touched.
final class BadDatabaseTests: ReminderSimTestCase {
    static let run = ["run", "--users", "200", "--days", "35", "--threads", "1"]

    /// Runs `arguments`, expects `status` and a one-line error naming `path` (plus `mentions`), and
    /// checks the working directory is exactly as it was: no report folder, no journal, no file changed.
    func assertRefused(_ arguments: [String], status: Int32, naming path: String, mentions: [String] = [],
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let tree = workTree()
        let contents = Dictionary(uniqueKeysWithValues: tree.compactMap { name -> (String, Data)? in
            (try? Data(contentsOf: workDirectory.appendingPathComponent(name))).map { (name, $0) }
        })
        let result = try remindersim(arguments: arguments, file: file, line: line)
        assertExit(result, status, file: file, line: line)
        let now = workTree()
        XCTAssertEqual(now, tree, "the working directory changed: added \(now.filter { !tree.contains($0) }), "
                       + "removed \(tree.filter { !now.contains($0) })", file: file, line: line)
        for (name, data) in contents {
            XCTAssertEqual(try? Data(contentsOf: workDirectory.appendingPathComponent(name)), data,
                           "\(name) changed", file: file, line: line)
        }
        guard result.status == status else { return }  // the failures above say it all
        XCTAssertEqual(result.stdout, "", "nothing belongs on stdout:\n\(result)", file: file, line: line)
        XCTAssertEqual(result.stderrLines.count, 1, "expected one error line:\n\(result)", file: file, line: line)
        let message = result.stderrLines.first ?? ""
        XCTAssertTrue(message.hasPrefix("remindersim: error: \(path)"), "the error should start with the path:\n\(result)",
                      file: file, line: line)
        for fragment in mentions { assertContains(message, fragment, "error of \(arguments)", file: file, line: line) }
    }

    func testDirectory() throws {
        try FileManager.default.createDirectory(at: workDirectory.appendingPathComponent("runs.sqlite"),
                                                withIntermediateDirectories: false)
        for arguments in [Self.run + ["--db", "runs.sqlite"], ["list", "--db", "runs.sqlite"],
                          ["report", "1", "--db", "runs.sqlite"]] {
            try assertRefused(arguments, status: 74, naming: "runs.sqlite", mentions: ["directory"])
        }
    }

    func testCorruptFile() throws {
        var random = TestRandom(seed: 0xC0FFEE)
        try writeFile("corrupt.sqlite", random.bytes(16_384))
        for arguments in [Self.run + ["--db", "corrupt.sqlite"], ["list", "--db", "corrupt.sqlite"],
                          ["export", "1", "--csv", "out", "--db", "corrupt.sqlite"]] {
            try assertRefused(arguments, status: 74, naming: "corrupt.sqlite", mentions: ["not a database"])
        }
    }

    /// Another program's database is refused by every command before anything is simulated or
    /// written, even when its user_version looks like ours.
    func testForeignDatabaseWithAUserVersion() throws {
        do {
            let database = try Database(path: workPath("customers.sqlite"))
            try database.execute("CREATE TABLE customers (id INT); PRAGMA user_version = 1")
        }
        for arguments in [Self.run + ["--db", "customers.sqlite"], ["list", "--db", "customers.sqlite"],
                          ["report", "1", "--db", "customers.sqlite"]] {
            try assertRefused(arguments, status: 74, naming: "customers.sqlite",
                              mentions: ["not a ReminderSim database", "customers"])
        }
    }

    /// A negative user_version, which no ReminderSim writes: another program's database, or ours damaged;
    /// refused (74) rather than a trap.
    func testANegativeUserVersion() throws {
        do {
            let database = try Database(path: workPath("notes.sqlite"))
            try database.execute("CREATE TABLE notes (a); PRAGMA user_version = -7")
        }
        for arguments in [Self.run + ["--db", "notes.sqlite"], ["list", "--db", "notes.sqlite"], ["list", "--json", "--db", "notes.sqlite"],
                          ["export", "1", "--csv", "out", "--db", "notes.sqlite"]] {
            try assertRefused(arguments, status: 74, naming: "notes.sqlite", mentions: ["not a ReminderSim database", "user_version -7"])
        }
        assertExit(try remindersim(arguments: Self.run + ["--db", "own.sqlite", "--out", "first"]), 0)
        do {
            let database = try Database(path: workPath("own.sqlite"), create: false)
            try database.execute("PRAGMA user_version = -1")
        }
        for arguments in [["list", "--db", "own.sqlite"], ["report", "1", "--db", "own.sqlite"], Self.run + ["--db", "own.sqlite"]] {
            try assertRefused(arguments, status: 74, naming: "own.sqlite", mentions: ["a damaged ReminderSim database", "is -1"])
        }
    }

    /// A version set back by hand below what the tables already hold: the upgrade cannot apply, and the
    /// error says the database is damaged rather than print SQLite's complaint alone; nothing is changed.
    func testAVersionSetBackIsDamage() throws {
        assertExit(try remindersim(arguments: Self.run + ["--db", "back.sqlite", "--out", "first"]), 0)
        let current = try XCTUnwrap(try Database(path: workPath("back.sqlite"), create: false)
            .rows("PRAGMA user_version").first?.integer(0))
        do {
            let database = try Database(path: workPath("back.sqlite"), create: false)
            try database.execute("PRAGMA user_version = \(current - 1)")
        }
        for arguments in [["list", "--db", "back.sqlite"], Self.run + ["--db", "back.sqlite"]] {
            try assertRefused(arguments, status: 74, naming: "back.sqlite",
                              mentions: ["a damaged ReminderSim database: it says schema version \(current - 1)",
                                         "the upgrade to version \(current) does not apply"])
        }
    }

    /// ReminderSim's own database with a table dropped is named as damaged, with the table it lacks.
    func testADroppedTableIsNamed() throws {
        assertExit(try remindersim(arguments: Self.run + ["--db", "dropped.sqlite", "--out", "first"]), 0)
        do {
            let database = try Database(path: workPath("dropped.sqlite"), create: false)
            try database.execute("DROP TABLE hourly_stats")
        }
        for arguments in [["list", "--db", "dropped.sqlite"], ["report", "1", "--db", "dropped.sqlite"]] {
            try assertRefused(arguments, status: 74, naming: "dropped.sqlite",
                              mentions: ["a damaged ReminderSim database (schema version", "it lacks hourly_stats"])
        }
    }

    func testNewerSchema() throws {
        assertExit(try remindersim(arguments: Self.run + ["--db", "newer.sqlite", "--out", "first"]), 0)
        do {
            let database = try Database(path: workPath("newer.sqlite"), create: false)
            try database.execute("PRAGMA user_version = \(RunStore.schemaVersion + 1)")
        }  // closed here: the last connection checkpoints the WAL into the file
        try FileManager.default.removeItem(at: workDirectory.appendingPathComponent("first"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("newer.sqlite-wal")), "the database was left open")

        for arguments in [Self.run + ["--db", "newer.sqlite"], ["list", "--db", "newer.sqlite"],
                          ["report", "1", "--db", "newer.sqlite"], ["compare", "1", "2", "--db", "newer.sqlite"]] {
            try assertRefused(arguments, status: 74, naming: "newer.sqlite",
                              mentions: ["newer", "schema version \(RunStore.schemaVersion + 1)"])
        }
    }

    /// Root can write to any ordinary folder whatever its permissions, so the unwritable location is
    /// in /proc, which no one can create files in. Both a file there and one in a folder that would
    /// have to be created there are tried.
    func testUnwritableLocation() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/proc/self"), "needs /proc (Linux)")
        // The message names the file, or the folder that could not be made for it.
        for (path, named) in [("/proc/remindersim.sqlite", "/proc/remindersim.sqlite"),
                              ("/proc/remindersim-test/runs.sqlite", "/proc/remindersim-test")] {
            try assertRefused(Self.run + ["--db", path], status: 74, naming: named)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        }
    }

    func testListOfMissingDatabaseIsNoInput() throws {
        try assertRefused(["list", "--db", "missing.sqlite"], status: 66, naming: "missing.sqlite", mentions: ["no such database"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("missing.sqlite")))
        // The same for the default database, which does not exist in a fresh folder.
        try assertRefused(["list"], status: 66, naming: "Reports/remindersim.sqlite")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("Reports")), "list created the Reports folder")
    }

    func testMissingRunIsNoInput() throws {
        assertExit(try remindersim(arguments: Self.run), 0)
        try assertRefused(["report", "99"], status: 66, naming: "Reports/remindersim.sqlite", mentions: ["no run 99"])
        try assertRefused(["compare", "1", "99"], status: 66, naming: "Reports/remindersim.sqlite", mentions: ["no run 99"])
    }

    /// Exporting a run that is not there is the same mistake as reporting it: 66, and no folder of empty tables.
    func testExportOfMissingRunIsNoInput() throws {
        assertExit(try remindersim(arguments: Self.run), 0)
        try assertRefused(["export", "99", "--csv", "out"], status: 66, naming: "Reports/remindersim.sqlite",
                          mentions: ["no run 99"])
    }
}
