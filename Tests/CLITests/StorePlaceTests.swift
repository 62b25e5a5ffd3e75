import Foundation
import Storage
import ReminderSimTestSupport
import XCTest

/// Where the run database is, and what happens around it: a path that cannot hold a database is
/// refused before anything runs, a store that is only read leaves no file beside it (even where its
/// folder is read-only), a write that hits the file size limit fails cleanly, and a writer that waits
/// for another one says so.
final class StorePlaceTests: ReminderSimTestCase {
    static let run = ["run", "--users", "200", "--days", "35", "--threads", "1"]

    /// Runs `remindersim` through `/bin/sh` after `limits` (shell `ulimit` commands).
    func remindersimLimited(_ limits: String, _ arguments: [String], file: StaticString = #filePath,
                            line: UInt = #line) throws -> CommandResult {
        let executable = try executableURL(file: file, line: line)
        let child = try ChildProcess(
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", "\(limits); exec \"$0\" \"$@\"", executable.path] + arguments,
            environment: environment([:]), directory: workDirectory, spool: spoolDirectory)
        let result = child.wait(timeout: 120)
        return try XCTUnwrap(result, "remindersim \(arguments) did not finish within 120 s", file: file, line: line)
    }

    // MARK: A result saved, its report not written

    /// A run, tune or merged run whose report cannot be written once it is saved (here a umask of 777
    /// leaves the report's folders unwritable to the process that makes them) says that it is saved
    /// and how `report` renders it, so that it is not made and stored again.
    func testASavedResultWhoseReportFailsSaysItIsSaved() throws {
        try requireUnprivileged()
        chmod(workDirectory.path, 0o777)
        for k in 1...2 {
            assertExit(try remindersim(arguments: Self.run + ["--shard", "\(k)/2", "--db", "s\(k).sqlite", "--out", "unused"]), 0)
        }
        let data = try Data(contentsOf: TuneCommandTests.datasets.appendingPathComponent("tune-periods.json"))
        let space: [String: Any] = ["periods": ["min": 1, "max": 3], "sequenceLength": ["min": 1, "max": 1]]
        let edited = try JSONEdit.setting(space, at: "tune.space",
                                          in: JSONEdit.setting(30, at: "horizonDays", in: JSONSerialization.jsonObject(with: data)))
        _ = try writeFile("tune.json", try JSONEdit.text(edited))
        // Databases made beforehand: under that umask a new one cannot be opened once made.
        for database in ["r.sqlite", "t.sqlite", "my runs.sqlite"] {
            assertExit(try remindersim(arguments: Self.run + ["--db", database, "--out", "unused"]), 0)
        }
        let cases: [([String], String)] = [
            (Self.run + ["--db", "r.sqlite", "--out", "R1"], "; run 2 is saved in r.sqlite: `remindersim report 2 --db r.sqlite` renders it again"),
            (["tune", "tune.json", "--users", "300", "--db", "t.sqlite", "--out", "R2"],
             "; tune 1 is saved in t.sqlite: `remindersim report tune:1 --db t.sqlite` renders it again"),
            (["merge", "s1.sqlite", "s2.sqlite", "--into", "my runs.sqlite", "--out", "R3"],
             "; run 2 is saved in my runs.sqlite: `remindersim report 2 --db 'my runs.sqlite'` renders it again"),
            // And a new database that cannot be opened once made: nothing is saved, and the message says so.
            (Self.run + ["--db", "new.sqlite", "--out", "R4"], "; the run was not saved (the database is as it was)"),
        ]
        let binary = try executableURL().path
        for (arguments, saved) in cases {
            var words = ["-c", "umask 777; exec \"$0\" \"$@\"", binary] + arguments
            var executable = URL(fileURLWithPath: "/bin/sh")
            if getuid() == 0 {
                words = ["--reuid=65534", "--regid=65534", "--clear-groups", "--", executable.path] + words
                executable = URL(fileURLWithPath: "/usr/bin/setpriv")
            }
            let child = try ChildProcess(executable: executable, arguments: words, environment: environment([:]),
                                         directory: workDirectory, spool: spoolDirectory)
            let result = try XCTUnwrap(child.wait(timeout: 120), "\(arguments) did not finish")
            assertExit(result, 74)
            assertContains(result.stderr, saved)
            XCTAssertFalse(result.stderr.contains(".partial-"), "the report is named by where it goes: \(result.stderr)")
        }
    }

    // MARK: Paths that cannot hold a database

    /// Devices and pipes are refused by name before SQLite opens them, so no journal is made beside
    /// them (in /dev, where root could make one); an empty path is a usage error.
    func testPathsThatAreNotRegularFiles() throws {
        for device in ["/dev/null", "/dev/full"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: device + "-journal"), "\(device)-journal is already there")
            defer {
                // Never leave a file in /dev, even when the test fails.
                for suffix in ["-journal", "-wal", "-shm"] { unlink(device + suffix) }
            }
            for arguments in [Self.run + ["--out", "reports"], ["list"], ["report", "1"], ["export", "1", "--csv", "csv"]] {
                let result = try remindersim(arguments: arguments + ["--db", device])
                assertExit(result, 74)
                assertContains(result.stderr, "remindersim: error: \(device): not a regular file (a character device)")
                for suffix in ["-journal", "-wal", "-shm"] {
                    XCTAssertFalse(FileManager.default.fileExists(atPath: device + suffix), "\(arguments) made \(device)\(suffix)")
                }
            }
        }
        XCTAssertEqual(mkfifo(workPath("pipe.sqlite"), 0o644), 0)
        let pipe = try remindersim("list", "--db", "pipe.sqlite")
        assertExit(pipe, 74)
        assertContains(pipe.stderr, "pipe.sqlite: not a regular file (a named pipe)")

        XCTAssertEqual(symlink("nowhere.sqlite", workPath("dangling.sqlite")), 0)
        let dangling = try remindersim(arguments: Self.run + ["--db", "dangling.sqlite", "--out", "reports"])
        assertExit(dangling, 74)
        assertContains(dangling.stderr, "dangling.sqlite: a symbolic link to a file that does not exist")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("nowhere.sqlite")))

        for arguments in [Self.run, ["list"], ["report", "1"]] {
            let empty = try remindersim(arguments: arguments + ["--db", ""])
            assertExit(empty, 64)
            assertContains(empty.stderr, "remindersim: error: --db: the database path is empty")
            let dash = try remindersim(arguments: arguments + ["--db", "-"])
            assertExit(dash, 64)
            assertContains(dash.stderr, "remindersim: error: --db: '-' is not a database")
        }
        let into = try remindersim("merge", "a.sqlite", "--into", "-")
        assertExit(into, 64)
        assertContains(into.stderr, "--into: '-' is not a database")
        XCTAssertEqual(workTree(), ["pipe.sqlite", "dangling.sqlite"].sorted())
    }

    /// A symbolic link to a database is as good as the database.
    func testALinkToADatabase() throws {
        assertExit(try remindersim(arguments: Self.run + ["--db", "runs.sqlite", "--out", "reports"]), 0)
        XCTAssertEqual(symlink("runs.sqlite", workPath("link.sqlite")), 0)
        assertExit(try remindersim(arguments: Self.run + ["--db", "link.sqlite", "--out", "reports"]), 0)
        let list = try remindersim("list", "--db", "link.sqlite")
        assertExit(list, 0)
        XCTAssertEqual(list.stdoutLines.count, 3, list.description)
    }

    /// A new database in a folder that cannot be written is refused before the run simulates, naming
    /// the folder; a missing database's missing folder is named too.
    func testFoldersThatCannotHoldANewDatabase() throws {
        try writeFile("a-file", "not a folder\n")
        let underFile = try remindersim(arguments: Self.run + ["--db", "a-file/runs.sqlite", "--out", "reports"])
        assertExit(underFile, 74)
        assertContains(underFile.stderr, "a-file/runs.sqlite: cannot be created: a-file is not a folder")
        let missing = try remindersim("list", "--db", "nowhere/runs.sqlite")
        assertExit(missing, 66)
        assertContains(missing.stderr, "nowhere/runs.sqlite: no such database (folder nowhere does not exist)")

        try requireUnprivileged()
        try FileManager.default.createDirectory(atPath: workPath("locked"), withIntermediateDirectories: false)
        chmod(workPath("locked"), 0o555)
        chmod(workDirectory.path, 0o777)
        // A million users would take minutes: the refusal comes first.
        let started = Date()
        let locked = try remindersim("run", "--users", "1000000", "--db", "locked/deeper/runs.sqlite", "--out", "reports")
        assertExit(locked, 74)
        assertContains(locked.stderr, "locked/deeper/runs.sqlite: cannot be created: folder locked is read-only to this user")
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "the run simulated before the refusal")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("reports")))
    }

    // MARK: Stores that are only read

    /// A WAL database that this user cannot write: listing, reporting and exporting it work and leave
    /// no -wal or -shm file beside it.
    func testReadOnlyDatabaseLeavesNoFiles() throws {
        assertExit(try remindersim(arguments: Self.run + ["--db", "runs.sqlite", "--out", "reports"]), 0)
        try FileManager.default.removeItem(atPath: workPath("reports"))
        try requireUnprivileged()
        chmod(workDirectory.path, 0o777)
        chmod(workPath("runs.sqlite"), 0o444)
        try assertReadsLeaveNothing()
    }

    /// A WAL database in a folder this user cannot write, which SQLite cannot make a -shm file in.
    func testDatabaseInAReadOnlyFolder() throws {
        try FileManager.default.createDirectory(atPath: workPath("store"), withIntermediateDirectories: false)
        assertExit(try remindersim(arguments: Self.run + ["--db", "store/runs.sqlite", "--out", "reports"]), 0)
        assertExit(try remindersim(arguments: Self.run + ["--db", "store/runs.sqlite", "--out", "reports"]), 0)
        try FileManager.default.removeItem(atPath: workPath("reports"))
        try requireUnprivileged()
        chmod(workDirectory.path, 0o777)
        chmod(workPath("store/runs.sqlite"), 0o666)
        chmod(workPath("store"), 0o555)
        try assertReadsLeaveNothing(database: "store/runs.sqlite")
        let compare = try remindersim("compare", "1", "2", "--db", "store/runs.sqlite")
        assertExit(compare, 0)
    }

    func assertReadsLeaveNothing(database: String = "runs.sqlite", file: StaticString = #filePath, line: UInt = #line) throws {
        let before = workTree()
        let list = try remindersim("list", "--db", database, file: file, line: line)
        assertExit(list, 0, file: file, line: line)
        assertContains(list.stdout, "complete", "list", file: file, line: line)
        XCTAssertEqual(workTree(), before, "list left files", file: file, line: line)
        assertExit(try remindersim("report", "1", "--db", database, "--out", "reports", file: file, line: line), 0,
                   file: file, line: line)
        assertExit(try remindersim("export", "1", "--db", database, "--csv", "csv", file: file, line: line), 0,
                   file: file, line: line)
        XCTAssertEqual(workTree().filter { !$0.hasPrefix("reports") && !$0.hasPrefix("csv") }, before,
                       "reading the store left files", file: file, line: line)
    }

    /// An export that cannot write one of its files (here the file size limit) writes none: a new
    /// folder is not left behind, and an earlier export keeps every one of its files.
    func testAnExportIsWrittenWholeOrNotAtAll() throws {
        assertExit(try remindersim(arguments: Self.run + ["--db", "runs.sqlite", "--out", "reports"]), 0)
        assertExit(try remindersim(arguments: ["run", "--users", "300", "--days", "35", "--seed", "5", "--db", "runs.sqlite",
                                               "--out", "reports"]), 0)
        let limited = try remindersimLimited("ulimit -f 2", ["export", "2", "--db", "runs.sqlite", "--csv", "new/csv"])
        assertExit(limited, 74)
        // Whichever file meets the limit first (SQLite's shared-memory file here), the system's reason is given.
        assertContains(limited.stderr, "File too large")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("new")), "the folders made for it are removed")
        assertExit(try remindersim("export", "1", "--db", "runs.sqlite", "--csv", "csv"), 0)
        let before = try FileManager.default.contentsOfDirectory(atPath: workPath("csv")).sorted()
        let contents = try before.map { try Data(contentsOf: URL(fileURLWithPath: workPath("csv/\($0)"))) }
        assertExit(try remindersimLimited("ulimit -f 2", ["export", "2", "--db", "runs.sqlite", "--csv", "csv"]), 74)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: workPath("csv")).sorted(), before)
        XCTAssertEqual(try before.map { try Data(contentsOf: URL(fileURLWithPath: workPath("csv/\($0)"))) }, contents,
                       "run 1's export is whole")
    }

    // MARK: The file size limit

    /// Under a file size limit too small for the database, the run fails with exit 74 and "File too
    /// large" instead of being killed by SIGXFSZ, and leaves no new database (or folder made for it):
    /// whether the limit is hit while the schema is written or while the run is saved.
    func testFileSizeLimit() throws {
        for blocks in [4, 400] {
            let result = try remindersimLimited("ulimit -f \(blocks)", Self.run + ["--db", "new/runs.sqlite", "--out", "reports"])
            XCTAssertFalse(result.crashed, "ulimit -f \(blocks): killed:\n\(result)")
            assertExit(result, 74)
            assertContains(result.stderr, "remindersim: error: new/runs.sqlite: ")
            assertContains(result.stderr, "File too large")
            XCTAssertEqual(workTree(), [], "ulimit -f \(blocks) left files behind")
        }
        // An existing database is left as it was, with its runs.
        assertExit(try remindersim(arguments: Self.run + ["--db", "runs.sqlite", "--out", "reports"]), 0)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: workPath("runs.sqlite"))[.size] as? Int)
        let blocks = size / 512 + 16  // sh counts 512-byte blocks
        let bigger = ["run", "--users", "3000", "--days", "35", "--threads", "1", "--db", "runs.sqlite", "--out", "reports"]
        let full = try remindersimLimited("ulimit -f \(blocks)", bigger)
        assertExit(full, 74)
        assertContains(full.stderr, "File too large")
        let list = try remindersim("list", "--db", "runs.sqlite")
        assertExit(list, 0)
        XCTAssertEqual(list.stdoutLines.count, 2, "the first run should still be there:\n\(list)")
    }

    // MARK: Waiting for another writer

    /// A run whose save waits for another process's write lock says so on stderr, once, and then
    /// saves when the lock is released.
    func testAWriterThatWaitsSaysSo() throws {
        assertExit(try remindersim(arguments: Self.run + ["--db", "runs.sqlite", "--out", "reports"]), 0)
        let holder = try Database(path: workPath("runs.sqlite"), create: false)
        try holder.execute("BEGIN IMMEDIATE")
        let waiting = try startRemindersim(Self.run + ["--db", "runs.sqlite", "--out", "reports"])
        Thread.sleep(forTimeInterval: 4)
        try holder.execute("COMMIT")
        guard let result = waiting.wait(timeout: 60) else { return XCTFail("the waiting run did not finish") }
        assertExit(result, 0)
        XCTAssertEqual(result.stderrLines, ["remindersim: waiting up to 60 s for another process writing runs.sqlite"],
                       result.description)
        assertContains(result.stdout, "Saved as run 2")
    }
}
