import Foundation
import Simulation
import ReminderSimTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Paths of every shape, output files that must not be replaced, streams that close early: the tool
/// ends with its own exit status and message, never a signal, and writes only where it was told.
final class PathAndOutputTests: ReminderSimTestCase {
    static let small = ["--users", "40", "--days", "35", "--threads", "1"]

    func assertNoSignal(_ result: CommandResult, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(result.crashed, "killed by a signal:\n\(result)", file: file, line: line)
        XCTAssertLessThan(result.status, 128, "an exit status of a signal:\n\(result)", file: file, line: line)
    }

    /// Runs `script` with `bash` in the working folder, `$R` the tool; returns the status and stderr.
    func shell(_ script: String) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = workDirectory
        var environment = self.environment([:])
        environment["R"] = try executableURL().path
        process.environment = environment
        let errors = spoolDirectory.appendingPathComponent("shell-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, try String(contentsOf: errors, encoding: .utf8))
    }

    // MARK: Paths of one character, trailing slashes, accents

    func testShortAndUnusualPathsWork() throws {
        let scenario = try remindersim("scenario")
        try writeFile("s", scenario.stdout)
        for out in ["j", "x/y", "a/", "é", "with space", "quote'\"d"] {
            let result = try remindersim(arguments: ["run"] + Self.small + ["--db", "runs.sqlite", "--out", out])
            assertExit(result, 0)
            XCTAssertTrue(FileManager.default.fileExists(atPath: workPath("\(out)/default-\(try runCount())/report.md")),
                          "no report under --out \(out):\n\(result)")
        }
        assertExit(try remindersim(arguments: ["run"] + Self.small + ["--db", "d", "--out", "r"]), 0)
        for command in [["run", "s", "--db", "k"] + Self.small, ["validate", "s"], ["trace", "s", "--user", "3"]] {
            assertExit(try remindersim(arguments: command), 0)
        }
        let tune = try remindersim("tune", "s", "--users", "200")
        assertNoSignal(tune)
        assertExit(tune, 65)
        assertContains(tune.stderr, "s: tune:")
        assertExit(try remindersim(arguments: ["run", "--shard", "1/1", "--db", "h"] + Self.small), 0)
        assertExit(try remindersim("merge", "h", "--into", "m", "--out", "z"), 0)
    }

    private func runCount() throws -> Int {
        let list = try remindersim("list", "--db", "runs.sqlite")
        return list.stdoutLines.dropFirst().filter { !$0.isEmpty }.count
    }

    /// The arms here cannot identify the response (too few users for the fit): what matters is that a
    /// scenario from standard input, and files named by one letter, get as far as the fit and its message.
    func testCalibrateReadsAScenarioFromStandardInputAndOneLetterFiles() throws {
        try writeFile("r", "arm,users,delivered,opens,opt_outs\nholdout,1000,0,800,0\n2d,1000,3000,840,60\n")
        let scenario = try remindersim("scenario")
        let fromInput = try remindersim("calibrate", "-", "r", "--users", "200", "--out", "c", stdin: scenario.stdout)
        assertNoSignal(fromInput)
        assertExit(fromInput, 65)
        assertContains(fromInput.stderr, "remindersim: error: r: baseResponse cannot be identified")
        try writeFile("s", scenario.stdout)
        let named = try remindersim("calibrate", "s", "r", "--users", "200")
        assertExit(named, 65)
        assertContains(named.stderr, "remindersim: error: r: baseResponse cannot be identified")
    }

    /// A problem with calibrate's results file is said of the results file, not of a scenario.
    func testCalibrateBlamesTheResultsFileForItsOwnProblems() throws {
        try writeFile("s", try remindersim("scenario").stdout)
        try FileManager.default.createDirectory(atPath: workPath("arms"), withIntermediateDirectories: false)
        let folder = try remindersim("calibrate", "s", "arms")
        assertExit(folder, 74)
        assertContains(folder.stderr, "arms: is a directory, not a results file")
        XCTAssertFalse(folder.stderr.contains("scenario"), folder.stderr)
    }

    // MARK: Files a command writes

    func testCalibrateNeverWritesOverAnInputALinkOrADevice() throws {
        let arms = "arm,users,delivered,opens,opt_outs\nholdout,1000,0,800,0\n2d,1000,3000,840,60\n"
        try writeFile("arms.csv", arms)
        let scenario = try remindersim("scenario").stdout
        try writeFile("app.json", scenario)
        try FileManager.default.createSymbolicLink(atPath: workPath("link.json"), withDestinationPath: "elsewhere.json")
        try FileManager.default.createSymbolicLink(atPath: workPath("same.csv"), withDestinationPath: "arms.csv")
        let refusals: [(String, Int32, String)] = [
            ("arms.csv", 64, "is an input"), ("app.json", 64, "is an input"), ("same.csv", 64, "symbolic link"),
            ("link.json", 64, "symbolic link"), ("/dev/null", 64, "not a regular file"), (".", 64, "is a folder"),
            ("missing/out.json", 74, "does not exist"), ("", 64, "empty"),
        ]
        for (out, status, reason) in refusals {
            let result = try remindersim("calibrate", "app.json", "arms.csv", "--users", "200", "--out", out)
            assertExit(result, status)
            assertContains(result.stderr, reason, "calibrate --out \(out)")
            XCTAssertFalse(result.stderr.contains("simulations in"), "refused after fitting:\n\(result)")
        }
        XCTAssertEqual(try String(contentsOf: workDirectory.appendingPathComponent("arms.csv"), encoding: .utf8), arms)
        XCTAssertEqual(try String(contentsOf: workDirectory.appendingPathComponent("app.json"), encoding: .utf8), scenario)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: workPath("link.json")), "elsewhere.json")
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: workPath("."))),
                       ["arms.csv", "app.json", "link.json", "same.csv"], "nothing was written")
    }

    func testReportFoldersAreCheckedBeforeSimulating() throws {
        try FileManager.default.createSymbolicLink(atPath: workPath("dangling"), withDestinationPath: "nowhere")
        try FileManager.default.createSymbolicLink(atPath: workPath("loop"), withDestinationPath: "loop")
        try writeFile("file", "x\n")
        let big = ["run", "--users", "10000000", "--days", "35", "--db", "never.sqlite"]
        for (out, reason) in [("dangling", "symbolic link to nothing"), ("loop", "loop of symbolic links"),
                              ("dangling/x", "symbolic link to nothing"), ("file/x", "is a file"), ("", "empty")] {
            let result = try remindersim(arguments: big + ["--out", out], timeout: 20)
            XCTAssertTrue([64, 74].contains(result.status), "--out \(out):\n\(result)")
            assertContains(result.stderr, reason, "run --out \(out)")
        }
        let merge = try remindersim("merge", "nothing.sqlite", "--into", "m.sqlite", "--out", "file")
        assertExit(merge, 74)
        assertContains(merge.stderr, "file: is a file, not a folder; --out must name a folder")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("never.sqlite")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("m.sqlite")))
    }

    /// A fit writes its folder afresh: no file of an earlier fit of another log stays beside the new
    /// ones; a folder holding files a fit does not write is left alone.
    func testFitReplacesItsFolderWhole() throws {
        var lines = ["user,time"]
        for u in 0..<200 { lines.append("u\(u),\(1_704_067_200 + (u * 7_919) % 8_640_000)") }
        try writeFile("once.csv", lines.joined(separator: "\n") + "\n")
        try writeFile("again.txt", try Self.cdnowExcerpt())
        let earlier = try remindersim("fit", "again.txt", "--format", "cdnow", "--calibration-end", "1997-03-01", "--out", "fit")
        assertExit(earlier, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: workPath("fit/customers.csv")), earlier.description)
        let fit = try remindersim("fit", "once.csv", "--timestamp", "epochSeconds", "--out", "fit")
        assertExit(fit, 0)
        XCTAssertFalse(fit.stdout.contains("customers.csv"), "this log gives no per-customer predictions:\n\(fit)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("fit/customers.csv")),
                       "an earlier fit's customers.csv stayed beside this fit's files")
        XCTAssertTrue(FileManager.default.fileExists(atPath: workPath("fit/segments.json")))

        try writeFile("other/mine.txt", "keep\n")
        let foreign = try remindersim("fit", "once.csv", "--timestamp", "epochSeconds", "--out", "other")
        assertExit(foreign, 64)
        assertContains(foreign.stderr, "--out: the folder holds mine.txt, which a fit does not write")
        XCTAssertTrue(FileManager.default.fileExists(atPath: workPath("other/mine.txt")))
    }

    /// The first 3,000 lines of the CDNOW log: enough for a fit with per-customer predictions.
    static func cdnowExcerpt() throws -> String {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Datasets/cdnow/CDNOW_master.txt").path
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        return lines.prefix(3_000).joined(separator: "\n") + "\n"
    }

    /// A file of the user's own that bears the name of a fit's file is not a fit's: its folder is
    /// refused (64) and the file left as it was, whichever of the four names it bears.
    func testFitNeverWritesOverAFileOfTheSameNameThatIsNotAFits() throws {
        try writeFile("log.txt", try Self.cdnowExcerpt())
        let fitLog = ["fit", "log.txt", "--format", "cdnow", "--calibration-end", "1997-03-01", "--out", "crm"]
        for (name, text) in [("customers.csv", "name,email\nAlice,alice@example.com\n"), ("segments.json", "{\"mine\": 1}\n"),
                             ("survival.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"><title>Mine</title></svg>\n"),
                             ("repeat-visits.svg", "")] {
            try writeFile("crm/\(name)", text)
            let fit = try remindersim(arguments: fitLog)
            assertExit(fit, 64)
            assertContains(fit.stderr, "--out: the folder holds \(name), which is not a file an earlier fit wrote")
            XCTAssertEqual(try String(contentsOfFile: workPath("crm/\(name)"), encoding: .utf8), text)
            try FileManager.default.removeItem(atPath: workPath("crm"))
        }
        // Each of an earlier fit's own files is known as one.
        assertExit(try remindersim(arguments: fitLog), 0)
        let written = try FileManager.default.contentsOfDirectory(atPath: workPath("crm")).sorted()
        XCTAssertEqual(written, ["customers.csv", "repeat-visits.svg", "segments.json", "survival.svg"])
        assertExit(try remindersim(arguments: fitLog), 0)
    }

    /// A log on standard input is read from the descriptor where it stands: a FIFO whose writer is
    /// gone is not waited on, and a file partly read already is read from there.
    func testALogOnStandardInputIsReadWhereItStands() throws {
        try writeFile("log.csv", "user,time\nu1,2024-01-01T10:00:00Z\nu1,2024-01-05T10:00:00Z\nu2,2024-01-02T10:00:00Z\n")
        try writeFile("skip.csv", "a line of something else\nuser,time\nu1,2024-01-01T10:00:00Z\nu1,2024-01-05T10:00:00Z\n")
        let fifo = try shell("mkfifo p && (cat log.csv > p &) && sleep 0.3 && timeout 20 $R import - < p > fifo.txt")
        XCTAssertEqual(fifo.status, 0, fifo.stderr)
        assertContains(try String(contentsOfFile: workPath("fifo.txt"), encoding: .utf8), "users: 2, visits: 3")
        let skipped = try shell("{ read line; $R import - > skip.txt; } < skip.csv")
        XCTAssertEqual(skipped.status, 0, skipped.stderr)
        assertContains(try String(contentsOfFile: workPath("skip.txt"), encoding: .utf8), "users: 1, visits: 2")
    }

    /// A fit of a log redirected from a file names that file in its segments, which a scenario can read
    /// again; through a pipe they can only name /dev/stdin, and the fit warns.
    func testAFitOfStandardInputNamesTheFileItCameFrom() throws {
        var log = "user,time\n"
        for u in 0..<40 { for d in stride(from: 1, to: 28, by: 3 + u % 4) { log += "u\(u),2024-01-\(d < 10 ? "0" : "")\(d)T10:00:00Z\n" } }
        try writeFile("log.csv", log)
        let redirected = try shell("$R fit - --out a < log.csv > /dev/null")
        XCTAssertEqual(redirected.status, 0, redirected.stderr)
        XCTAssertFalse(redirected.stderr.contains("warning"), redirected.stderr)
        let file = try String(contentsOfFile: workPath("a/segments.json"), encoding: .utf8)
        let real = URL(fileURLWithPath: workPath("log.csv")).resolvingSymlinksInPath().path
        assertContains(file, "\"data\" : \"\(real)\"")
        let piped = try shell("cat log.csv | $R fit - --out b > /dev/null")
        XCTAssertEqual(piped.status, 0, piped.stderr)
        assertContains(piped.stderr, "warning: the resampled and replayed segments read /dev/stdin again")
        assertContains(try String(contentsOfFile: workPath("b/segments.json"), encoding: .utf8), "\"data\" : \"/dev/stdin\"")
        // The log redirected from the fit's own folder is refused, as when it is named.
        try FileManager.default.copyItem(atPath: workPath("log.csv"), toPath: workPath("a/log.csv"))
        let inside = try shell("$R fit - --out a < a/log.csv")
        XCTAssertEqual(inside.status, 64, inside.stderr)
    }

    /// A log read from a closed standard input says so.
    func testAClosedStandardInputIsNamed() throws {
        for command in ["$R import - <&-", "$R fit - --out f <&-"] {
            let closed = try shell(command)
            XCTAssertEqual(closed.status, 66, closed.stderr)
            XCTAssertTrue(closed.stderr.contains("error: <stdin>: standard input is closed"), closed.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("f")))
    }

    /// Inputs inside the folders a command writes are never written over or deleted with them: a log
    /// named like a fit's file in the fit's folder, a database in the report folder it re-renders or
    /// named like an exported table.
    func testInputsInsideOutputFoldersSurvive() throws {
        var lines = ["user,time"]
        for u in 0..<50 { lines.append("u\(u),\(1_704_067_200 + (u * 7_919) % 864_000)") }
        let log = lines.joined(separator: "\n") + "\n"
        try FileManager.default.createDirectory(atPath: workPath("fx"), withIntermediateDirectories: false)
        // Standard input redirected from a file in the folder, named `-`.
        try writeFile("fx/segments.json", log)
        let piped = try shell("$R fit - --timestamp epochSeconds --out fx < fx/segments.json")
        XCTAssertEqual(piped.status, 64, piped.stderr)
        XCTAssertEqual(try String(contentsOfFile: workPath("fx/segments.json"), encoding: .utf8), log)
        try FileManager.default.removeItem(atPath: workPath("fx/segments.json"))
        for name in ["customers.csv", "survival.svg"] {
            try writeFile("fx/\(name)", log)
            let fit = try remindersim("fit", "fx/\(name)", "--timestamp", "epochSeconds", "--out", "fx")
            assertExit(fit, 64)
            assertContains(fit.stderr, "--out: the folder holds the log fx/\(name) itself")
            XCTAssertEqual(try String(contentsOfFile: workPath("fx/\(name)"), encoding: .utf8), log, name)
            try FileManager.default.removeItem(atPath: workPath("fx/\(name)"))
        }

        assertExit(try remindersim(arguments: ["run"] + Self.small + ["--db", "r.sqlite", "--out", "out"]), 0)
        let database = try Data(contentsOf: URL(fileURLWithPath: workPath("r.sqlite")))
        try database.write(to: URL(fileURLWithPath: workPath("out/default-1/r.sqlite")))
        try writeFile("out/default-1/notes.txt", "mine\n")
        let again = try remindersim("report", "1", "--db", "out/default-1/r.sqlite", "--out", "out")
        assertExit(again, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: workPath("out/default-1/r.sqlite")), "the database went with the folder")
        XCTAssertTrue(FileManager.default.fileExists(atPath: workPath("out/default-1/notes.txt")), "a file of the user's went")
        XCTAssertTrue(FileManager.default.fileExists(atPath: workPath("out/default-1-2/report.md")), "\(again)")
        // A folder of the report's files only (default-1-2 now) is replaced in place.
        assertExit(try remindersim("report", "1", "--db", "r.sqlite", "--out", "out"), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("out/default-1-3")))

        try FileManager.default.createDirectory(atPath: workPath("ex"), withIntermediateDirectories: false)
        try database.write(to: URL(fileURLWithPath: workPath("ex/runs.csv")))
        let export = try remindersim("export", "1", "--db", "ex/runs.csv", "--csv", "ex")
        assertExit(export, 64)
        assertContains(export.stderr, "ex/runs.csv: is the database this command reads")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: workPath("ex/runs.csv"))), database)
    }

    /// Standard output full after the work is saved: 74, saying what is saved (and, for a store,
    /// not to run it again).
    func testAFullStandardOutputSaysWhatIsSaved() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("no /dev/full here") }
        let run = try shell("$R run --users 40 --days 35 --threads 1 --db r.sqlite --out o > /dev/full")
        XCTAssertEqual(run.status, 74, run.stderr)
        XCTAssertTrue(run.stderr.contains("run 1 is saved in r.sqlite, its report in o/default-1: do not run it again"), run.stderr)
        // Paths with line breaks are shown escaped, on the message's one line.
        let odd = try shell("$R run --users 40 --days 35 --threads 1 --db \"$(printf 'a\\nb.sqlite')\" --out \"$(printf 'o\\nq')\" > /dev/full")
        XCTAssertEqual(odd.status, 74, odd.stderr)
        XCTAssertTrue(odd.stderr.hasSuffix("run 1 is saved in a\\nb.sqlite, its report in o\\nq/default-1: do not run it again\n"), odd.stderr)
        XCTAssertEqual(odd.stderr.split(separator: "\n").count, 1, odd.stderr)
        try writeFile("app.json", try CalibrationFixture.experiment(baseResponse: 0.12).canonicalJSON())
        var truth = CalibrationFixture.experiment(baseResponse: 0.12)
        truth.users = 400
        try writeFile("test.csv", try CalibrationFixture.results(of: truth))
        let calibrate = try shell("$R calibrate app.json test.csv --fit baseResponse --users 300 --out c.json > /dev/full")
        XCTAssertEqual(calibrate.status, 74, calibrate.stderr)
        XCTAssertTrue(calibrate.stderr.hasSuffix("the calibrated scenario is written to c.json\n"), calibrate.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: workPath("c.json")))
    }

    /// The commands that write files from a stored run, a readout or a fit say so too when standard
    /// output is full once the files are written.
    func testAFullStandardOutputSaysWhichFilesAreWritten() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("no /dev/full here") }
        XCTAssertEqual(try shell("$R run --users 40 --days 35 --threads 1 --db r.sqlite --out o > /dev/null").status, 0)
        try writeFile("app.json", try CalibrationFixture.experiment(baseResponse: 0.12).canonicalJSON())
        var truth = CalibrationFixture.experiment(baseResponse: 0.12)
        truth.users = 400
        try writeFile("test.csv", try CalibrationFixture.results(of: truth))
        var log = "user,time\n"
        for u in 0..<30 { for d in stride(from: 1, to: 28, by: 2 + u % 5) { log += "u\(u),2024-01-\(d < 10 ? "0" : "")\(d)T10:00:00Z\n" } }
        try writeFile("log.csv", log)
        for (command, said, written) in [
            ("export 1 --db r.sqlite --csv e", "the tables are written to e", "e/runs.csv"),
            ("report 1 --db r.sqlite --out again", "the report is written to again/default-1", "again/default-1/report.md"),
            ("readout app.json test.csv --out ro", "the readout is written to ro", "ro/readout.md"),
            ("fit log.csv --out f", "the fit's files are written to f", "f/segments.json"),
        ] {
            let result = try shell("$R \(command) > /dev/full")
            XCTAssertEqual(result.status, 74, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasSuffix("No space left on device; \(said)\n"), "\(command): \(result.stderr)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: workPath(written)), command)
        }
    }

    /// Paths the system would refuse only when writing are refused before the work: a name longer
    /// than a file system takes (64), a file where a folder belongs (74), a folder's slash where a
    /// file belongs (64); no database is made.
    func testPathsTheSystemWouldRefuseAreFoundFirst() throws {
        try writeFile("notes.txt", "mine\n")
        let long = String(repeating: "e", count: 300)
        let cases: [([String], Int32, String)] = [
            (["run"] + Self.small + ["--db", "p.sqlite", "--out", long], 64, "is 300 bytes long; a file or folder name may have at most 255"),
            (["run"] + Self.small + ["--db", "p.sqlite", "--out", "notes.txt/"], 74, "notes.txt/: a part of it is a file, not a folder"),
            (["export", "1", "--db", "p.sqlite", "--csv", "notes.txt/x"], 74, "notes.txt/x: a part of it is a file, not a folder"),
            (["calibrate", "a.json", "b.csv", "--out", "new.json/"], 64, "new.json/: ends in /, as a folder does; --out must name a file"),
            (["calibrate", "a.json", "b.csv", "--out", long + ".json"], 64, "a file or folder name may have at most 255"),
            // '-' is standard input or output everywhere else: not a file named '-' that `run -` would not read.
            (["calibrate", "a.json", "b.csv", "--out", "-"], 64, "--out: '-' is not a file: --out names the file to write"),
            (["run"] + Self.small + ["--db", "p.sqlite", "--out", "-"], 64, "--out: '-' is not a folder"),
            (["export", "1", "--db", "p.sqlite", "--csv", "-"], 64, "--csv: '-' is not a folder"),
        ]
        for (arguments, status, message) in cases {
            let result = try remindersim(arguments: arguments)
            assertExit(result, status)
            assertContains(result.stderr, message)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("p.sqlite")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("-")))
        XCTAssertEqual(try String(contentsOfFile: workPath("notes.txt"), encoding: .utf8), "mine\n")
    }

    /// The scenario given as the database is named as such (64), and left as it was.
    func testTheScenarioAsTheDatabaseIsAUsageError() throws {
        let scenario = try remindersim("scenario").stdout
        try writeFile("s.json", scenario)
        let tune = try String(contentsOf: TuneCommandTests.datasets.appendingPathComponent("tune-periods.json"), encoding: .utf8)
        try writeFile("t.json", tune)
        for (command, file, text) in [("run", "s.json", scenario), ("tune", "t.json", tune)] {
            let result = try remindersim(command, file, "--users", "40", "--db", file)
            assertExit(result, 64)
            assertContains(result.stderr, "\(file): is the scenario this command reads; --db must name a database")
            XCTAssertEqual(try String(contentsOfFile: workPath(file), encoding: .utf8), text)
        }
        let piped = try shell("$R run - --users 40 --db s.json < s.json")
        XCTAssertEqual(piped.status, 64, piped.stderr)
        XCTAssertTrue(piped.stderr.contains("s.json: is the same file as the scenario on standard input"), piped.stderr)
    }

    /// A folder where nothing can be made, whatever its permissions say (/proc), is found before the
    /// run: 74, and no database is left.
    func testAnOutputFolderWhereNothingCanBeMadeIsRefusedFirst() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self") else { throw XCTSkip("no /proc here") }
        let run = try remindersim(arguments: ["run"] + Self.small + ["--db", "p.sqlite", "--out", "/proc/remindersim-x"])
        assertExit(run, 74)
        XCTAssertTrue(run.stderr.contains("/proc/remindersim-x: cannot be written: nothing can be made in /proc (")
                      || run.stderr.contains("/proc/remindersim-x: cannot be written: /proc is read-only to this user"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("p.sqlite")))
        let calibrate = try remindersim("calibrate", "nothing.json", "nothing.csv", "--out", "/proc/c.json")
        assertExit(calibrate, 74)
        assertContains(calibrate.stderr, "/proc/c.json: cannot be written")
    }

    /// An export replaces an earlier export's files in its folder (of any run, or of a release that
    /// wrote fewer columns) and refuses, before writing any file, a file of the user's own by a
    /// table's name, or a link or folder there.
    func testExportReplacesOnlyEarlierExports() throws {
        assertExit(try remindersim(arguments: ["run"] + Self.small + ["--db", "r.sqlite", "--out", "out"]), 0)
        assertExit(try remindersim(arguments: ["run"] + Self.small + ["--seed", "9", "--db", "r.sqlite", "--out", "out"]), 0)
        assertExit(try remindersim("export", "1", "--db", "r.sqlite", "--csv", "ex"), 0)
        let first = try String(contentsOfFile: workPath("ex/configurations.csv"), encoding: .utf8)
        // An older export of fewer columns, with CRLF line ends.
        try writeFile("ex/period_stats.csv", "run_id,config_index,label\r\n1,0,a\r\n")
        assertExit(try remindersim("export", "2", "--db", "r.sqlite", "--csv", "ex"), 0)
        let second = try String(contentsOfFile: workPath("ex/configurations.csv"), encoding: .utf8)
        XCTAssertNotEqual(first, second, "run 2's export replaced run 1's")
        XCTAssertTrue(second.contains("\n2,"), second)
        assertContains(try String(contentsOfFile: workPath("ex/period_stats.csv"), encoding: .utf8), "trigger_rate")

        let mine = "name,total\nmine,3\n"
        try writeFile("ex/runs.csv", mine)
        let before = try String(contentsOfFile: workPath("ex/configurations.csv"), encoding: .utf8)
        let refused = try remindersim("export", "1", "--db", "r.sqlite", "--csv", "ex")
        assertExit(refused, 64)
        assertContains(refused.stderr, "ex/runs.csv: already exists and is not an export of the runs table")
        XCTAssertEqual(try String(contentsOfFile: workPath("ex/runs.csv"), encoding: .utf8), mine)
        XCTAssertEqual(try String(contentsOfFile: workPath("ex/configurations.csv"), encoding: .utf8), before,
                       "nothing is written when one file is refused")
        // A header that starts like the table's but names a column it does not have is not an export.
        try writeFile("ex/runs.csv", "run_id,my_note\n1,x\n")
        assertExit(try remindersim("export", "1", "--db", "r.sqlite", "--csv", "ex"), 64)
        // Nor is one whose first line runs past what a first glance reads.
        let long = "run_id" + String(repeating: ",seed", count: 818) + ",my_notes\nprecious\n"
        try writeFile("ex/runs.csv", long)
        assertExit(try remindersim("export", "1", "--db", "r.sqlite", "--csv", "ex"), 64)
        XCTAssertEqual(try String(contentsOfFile: workPath("ex/runs.csv"), encoding: .utf8), long)
        try FileManager.default.removeItem(atPath: workPath("ex/runs.csv"))

        try FileManager.default.createSymbolicLink(atPath: workPath("ex/runs.csv"), withDestinationPath: "elsewhere.csv")
        let link = try remindersim("export", "1", "--db", "r.sqlite", "--csv", "ex")
        assertExit(link, 64)
        assertContains(link.stderr, "ex/runs.csv: is a symbolic link")
        try FileManager.default.removeItem(atPath: workPath("ex/runs.csv"))
        try FileManager.default.createDirectory(atPath: workPath("ex/runs.csv"), withIntermediateDirectories: false)
        assertExit(try remindersim("export", "1", "--db", "r.sqlite", "--csv", "ex"), 64)
    }

    /// Partial and old folders that killed processes left are removed by the next command publishing
    /// into the same folder, whatever report they were for; a live process's are left alone, and so
    /// are fresh ones: a process this one cannot see (on another machine sharing the folder, in
    /// another container) may be writing them.
    func testLeftoversOfKilledProcessesAreRemoved() throws {
        let dead = try XCTUnwrap(deadProcessID())
        let live = ProcessInfo.processInfo.processIdentifier
        for name in [".other-7.partial-\(dead)", ".default-3.old-\(dead)", ".mine.partial-\(live)", ".fresh.partial-\(dead)"] {
            try FileManager.default.createDirectory(atPath: workPath("Reports/\(name)/x"), withIntermediateDirectories: true)
        }
        try writeFile("Reports/.notes.partial-\(dead)", "a file, not a folder a render made\n")
        for name in [".other-7.partial-\(dead)", ".default-3.old-\(dead)", ".mine.partial-\(live)", ".notes.partial-\(dead)"] {
            try makeOld(workPath("Reports/\(name)"))
        }
        assertExit(try remindersim(arguments: ["run"] + Self.small + ["--db", "r.sqlite"]), 0)
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: workPath("Reports"))),
                       ["default-1", ".mine.partial-\(live)", ".notes.partial-\(dead)", ".fresh.partial-\(dead)"])

        // An export or a readout removes what a killed one left, and a killed report's folder.
        assertExit(try remindersim("export", "1", "--db", "r.sqlite", "--csv", "csv"), 0)
        for name in [".runs.csv.partial-\(dead)", ".configurations.csv.partial-\(dead)", ".mine.csv.partial-\(dead)"] {
            try writeFile("csv/\(name)", "half a file\n")
            try makeOld(workPath("csv/\(name)"))
        }
        try FileManager.default.createDirectory(atPath: workPath("csv/.default-1.partial-\(dead)"), withIntermediateDirectories: false)
        try makeOld(workPath("csv/.default-1.partial-\(dead)"))
        try writeFile("csv/.runs.csv.partial-\(live)", "another export's, still being written\n")
        try makeOld(workPath("csv/.runs.csv.partial-\(live)"))
        assertExit(try remindersim("export", "1", "--db", "r.sqlite", "--csv", "csv"), 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: workPath("csv")).filter { $0.hasPrefix(".") }
        XCTAssertEqual(Set(left), [".mine.csv.partial-\(dead)", ".runs.csv.partial-\(live)"],
                       "only an export's own files are removed, and only a dead process's")
    }

    /// Sets the modification time of `path` to a day ago, past the age at which a leftover is removed.
    private func makeOld(_ path: String) throws {
        var times = [timespec(tv_sec: time(nil) - 86_400, tv_nsec: 0), timespec(tv_sec: time(nil) - 86_400, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW), 0, path)
    }

    /// A process id that no process has now: one that just ended.
    private func deadProcessID() throws -> Int32? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        let pid = process.processIdentifier
        return kill(pid, 0) != 0 && errno == ESRCH ? pid : nil
    }

    // MARK: Streams

    /// A reader that stops early (`| head -1`) ends the run quietly, after its report is written.
    func testAClosedPipeEndsTheRunQuietlyWithItsReport() throws {
        let piped = try shell("set -o pipefail; \"$R\" run --users 3000 --days 30 --db p.sqlite --out o | head -c 1 >/dev/null")
        XCTAssertEqual(piped.status, 0, "the tool's own status in the pipe: \(piped.stderr)")
        XCTAssertEqual(piped.stderr, "", "nothing to say about a reader that left")
        XCTAssertTrue(FileManager.default.fileExists(atPath: workPath("o/default-1/report.md")))
    }

    /// Standard output full or closed: exit 74, and a run that was saved is named so it is not run twice.
    func testStandardOutputFullOrClosed() throws {
        let full = try remindersim(arguments: ["run"] + Self.small + ["--db", "f.sqlite"], stdout: .path("/dev/full"))
        assertExit(full, 74)
        assertContains(full.stderr, "No space left on device; run 1 is saved in f.sqlite")
        XCTAssertEqual(full.stderr.components(separatedBy: "standard output").count, 2, "said once:\n\(full.stderr)")
        let closed = try shell("\"$R\" run --users 40 --days 35 --db c.sqlite >&-")
        XCTAssertEqual(closed.status, 74, closed.stderr)
        XCTAssertTrue(closed.stderr.contains("standard output is closed"), closed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("c.sqlite")), "nothing is started")
    }

    func testTuneNamesShortBudgetsAsTheyAre() throws {
        let tune = try remindersim("tune", Self.datasets + "tune-periods.json", "--budget", "0.001", "--users", "500")
        assertExit(tune, 65)
        XCTAssertFalse(tune.stderr.contains("about 0 s"), tune.stderr)
        assertContains(tune.stderr, "budget of 0.001 s (--budget)")
    }

    static let datasets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Datasets").path + "/"
}
