import Foundation
import Storage
import XCTest

/// A place that cannot be written is noticed before the simulation starts, not after it, and the
/// refused run leaves nothing behind. The user count is large enough that simulating first would
/// take minutes in a debug build: a run that is refused at once cannot have simulated.
extension BadDatabaseTests {
    static let bigRun = ["run", "--users", "10000000", "--days", "35", "--threads", "1"]

    func testReadOnlyDatabaseIsRefusedBeforeSimulating() throws {
        assertExit(try remindersim(arguments: Self.run + ["--db", "runs.sqlite", "--out", "first"]), 0)
        try FileManager.default.removeItem(at: workDirectory.appendingPathComponent("first"))
        try requireUnprivileged()
        try FileManager.default.createDirectory(at: workDirectory.appendingPathComponent("reports"),
                                                withIntermediateDirectories: false)
        chmod(workPath("reports"), 0o777)
        chmod(workPath("runs.sqlite"), 0o444)
        chmod(workDirectory.path, 0o555)
        try assertRefused(Self.bigRun + ["--db", "runs.sqlite", "--out", "reports"], status: 74, naming: "runs.sqlite",
                          mentions: ["cannot be written", "read-only"])
    }

    func testUnwritableOutputIsRefusedBeforeSimulating() throws {
        try writeFile("a-file", "not a folder\n")
        try assertRefused(Self.bigRun + ["--db", "new.sqlite", "--out", "a-file"], status: 74, naming: "a-file",
                          mentions: ["--out", "not a folder"])
        try assertRefused(Self.bigRun + ["--db", "new.sqlite", "--out", "a-file/reports"], status: 74,
                          naming: "a-file/reports", mentions: ["--out", "a-file", "not a folder"])

        try requireUnprivileged()
        try FileManager.default.createDirectory(at: workDirectory.appendingPathComponent("locked"),
                                                withIntermediateDirectories: false)
        chmod(workPath("locked"), 0o555)
        chmod(workDirectory.path, 0o777)
        // The database could be made, but is not: nothing is created when the run cannot finish.
        for out in ["locked", "locked/reports/deeper"] {
            try assertRefused(Self.bigRun + ["--db", "new.sqlite", "--out", out], status: 74, naming: out,
                              mentions: ["--out", "cannot be written"])
        }
    }
}
