import Console
import FilePaths
import Foundation
import Simulation
import Storage

/// Opening the run database and naming runs, with the tool's exit codes.
enum StoreAccess {
    static let defaultDatabase = "Reports/remindersim.sqlite"
    static let defaultOutput = "Reports"

    /// Opens the store: for writing, and creating it, for commands that write a run (`create`), else
    /// for reading only. `option` names where the path came from in the message for an empty one. A
    /// command that writes passes its `stderr`, where a wait for another process's lock is announced.
    static func open(_ path: String, create: Bool, option: String = DatabaseOption.spec.name, stderr: (any OutputWriter)? = nil) throws -> RunStore {
        try checkName(path, option: option)
        do {
            return try RunStore(path: path, create: create, readOnly: !create,
                                onWait: stderr.map { err in { err.writeLine("remindersim: \($0)") } })
        } catch {
            throw commandError(error)
        }
    }

    /// `open` for reading, nil for a database without a schema (a new SQLite file, tables dropped): one
    /// a command that lists may show as empty.
    static func openUnlessEmpty(_ path: String) throws -> RunStore? {
        try checkName(path)
        do {
            return try RunStore(path: path, create: false, readOnly: true)
        } catch {
            if error.isEmptyDatabase { return nil }
            throw commandError(error)
        }
    }

    /// Refuses a database path that names no file: an empty one, and `-`, which every other input of
    /// the tool reads as standard input (a file of that name is `./-`).
    static func checkName(_ path: String, option: String = DatabaseOption.spec.name) throws {
        if path.isEmpty { throw UsageError("\(option): the database path is empty; give the name of a database file") }
        if path == "-" {
            throw UsageError("\(option): '-' is not a database: a database is a file, not standard input or output "
                + "(a file named '-' is ./-)")
        }
    }

    /// Runs `body`, a command that saves one result into the database at `path` after its work, with
    /// the store to save into: an existing database is opened (and checked) at once; a new one is
    /// only checked, and made when `body` asks for the store to save, so that a command stopped
    /// before it saves anything (bad data found while simulating, a budget refused, Ctrl-C) leaves no
    /// database behind. A database made here that stays empty because `body` failed is removed
    /// again; one that was there before never is.
    static func saving<T>(into path: String, inputs: [String?] = [], stderr: any OutputWriter,
                          _ body: (_ store: () throws -> RunStore) throws -> T) throws -> T {
        // The scenario file given as the database would be refused by SQLite as "not a database"; say what it is.
        func identity(_ input: String) -> (device: UInt64, inode: UInt64)? {
            guard input == "-" else { return OutputPaths.identity(of: input) }
            // Standard input redirected from the database file itself.
            var status = stat()
            guard fstat(STDIN_FILENO, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
            return (UInt64(status.st_dev), UInt64(status.st_ino))
        }
        if let database = OutputPaths.identity(of: path),
           let input = inputs.compactMap({ $0 }).first(where: { identity($0).map { $0 == database } ?? false }) {
            let named = input == "-" ? "on standard input" : OutputPaths.shown(input)
            throw UsageError("\(OutputPaths.shown(path)): is \(input == path ? "the scenario" : "the same file as the scenario \(named)") "
                + "this command reads; \(DatabaseOption.spec.name) must name a database")
        }
        try checkName(path)
        var store: RunStore?
        if OutputPaths.entry(at: path) == .missing {
            do { try RunStore.checkCanCreate(path) } catch { throw commandError(error) }
        } else {
            store = try open(path, create: true, stderr: stderr)
        }
        func opened() throws -> RunStore {
            if let store { return store }
            let made = try open(path, create: true, stderr: stderr)
            store = made
            return made
        }
        do {
            return try body(opened)
        } catch {
            // Removed once released, with the folders made for it, if nothing was saved in it
            // meanwhile and no other process has it open.
            store?.abandon()
            throw error
        }
    }

    /// Checks, without creating anything, that report folders can be made under `out`: it is a folder
    /// this user can write, or the nearest part of it that exists is. Called before a run simulates, so
    /// that a bad `--out` is not found only when the results are ready to be written.
    static func checkOutputFolder(_ out: String) throws {
        try OutputPaths.checkFolder(out, option: ReportFolderOption.spec.name)
    }

    /// Runs `write`, the report of what was just saved as `saved` ("run 3", "tune 2") in `database`;
    /// when it fails, its error also says that the result is saved and how `report` renders it again
    /// (`reference`: "3", "tune:2"), so that the command is not run again to store it twice.
    static func reporting<T>(saved: String, in database: String, reference: String, _ write: () throws -> T) throws -> T {
        do {
            return try write()
        } catch let error as CommandError {
            throw CommandError(error.code, error.message + "; \(saved) is saved in \(OutputPaths.shown(database)): "
                + "`remindersim report \(reference) --db \(Path.shellWord(database))` renders it again")
        }
    }

    /// Pushes out what a command that saved something printed. When standard output cannot take it
    /// (a full disk, a closed descriptor), the error says what was saved, so that running the command
    /// again does not store it twice; a reader that closed the pipe early ends the command quietly.
    /// `saved` names paths as given: it is shown on one line, their line breaks and control characters escaped.
    static func finishOutput(_ context: CommandContext, saved: String, storedOnce: Bool = true) throws {
        do {
            try context.stdout.flush()
        } catch where CommandRunner.isClosedPipe(error) {
            return
        } catch {
            throw CommandError.ioError("cannot write to standard output: \(CommandRunner.systemReason(error)); "
                + MessageText.oneLine(saved, limit: .max) + (storedOnce ? ": do not run it again" : ""))
        }
    }

    static func commandError(_ error: StoreError) -> CommandError {
        switch error.kind {
        case .notFound: return CommandError.noInput(error.description)
        case .invalid: return CommandError.dataError(error.description)
        default: return CommandError.ioError(error.description)
        }
    }

    /// Runs `body`, turning store failures into the tool's errors.
    static func perform<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw commandError(error)
        }
    }

    /// Runs `body`, which saves `what` (e.g. "the run") in one transaction, turning store failures into
    /// the tool's errors that say nothing of it was saved: a transaction that fails leaves the database
    /// as it was, so the command can be run again once the cause (a full disk, a lock) is gone.
    static func save<T>(_ what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw notSaved(commandError(error))
        } catch let error as CommandError {
            // A new database that could not be made: an error of `open`.
            throw notSaved(error)
        }
        func notSaved(_ failure: CommandError) -> CommandError {
            CommandError(failure.code, failure.message + "; \(what) was not saved (the database is as it was)")
        }
    }

    /// The id of a run named on the command line, after checking it is stored.
    static func runID(_ reference: RunReference, in store: RunStore) throws -> Int64 {
        switch reference {
        case .latest:
            guard let last = try perform({ try store.runIDs().last }) else {
                throw CommandError.noInput("\(store.database.path): no runs stored yet")
            }
            return last
        case let .id(id):
            guard try perform({ try store.runIDs().contains(id) }) else {
                throw CommandError.noInput("\(store.database.path): no run \(id) (see 'remindersim list')")
            }
            return id
        }
    }

    /// The id of a tune named on the command line (`tune:<n>`, `tune:latest`), after checking it is stored.
    static func tuneID(_ reference: RunReference, in store: RunStore) throws -> Int64 {
        let tunes = try perform { try store.tunes() }
        switch reference {
        case .latest:
            guard let last = tunes.last else { throw CommandError.noInput("\(store.database.path): no tunes stored yet") }
            return last.id
        case let .id(id):
            guard tunes.contains(where: { $0.id == id }) else {
                throw CommandError.noInput("\(store.database.path): no tune \(id) (see 'remindersim list')")
            }
            return id
        }
    }

    /// Writes a run's report folder whole or not at all, and never over another run's report.
    ///
    /// Two databases rendered into one `--out` can both have a run 1 of a scenario: a folder of that
    /// name that holds a different run (its `runs.csv` differs) is left alone and the report goes to
    /// `folder-2`, `folder-3`…; one that holds this very run is replaced, unless it also holds files a
    /// report does not write (a database, notes), which are never deleted. Returns the folder written.
    static func publish(_ folder: String, render: (String) throws -> Void) throws -> String {
        try FolderPublishing.publish(folder, what: "the report", render: render) { existing, rendered in
            let mine = FileManager.default.contents(atPath: Path.join(rendered, "runs.csv"))
            return mine != nil && FileManager.default.contents(atPath: Path.join(existing, "runs.csv")) == mine
                && FolderPublishing.onlyHoldsNamesOf(existing, rendered) ? .replace : .numberAnother
        }
    }

    /// The folder of a run's report: `<out>/<scenario>-<run id>`, with the name made safe for a path.
    static func reportFolder(out: String, scenarioName: String, runID: Int64) -> String {
        let safe = String(scenarioName.unicodeScalars.map {
            CharacterSet.alphanumerics.contains($0) && $0.isASCII || "-_.".unicodeScalars.contains($0) ? Character($0) : "-"
        })
        // Long names are cut: a path component has a length limit, and a folder name only needs to be recognisable.
        let trimmed = String(safe.trimmingCharacters(in: CharacterSet(charactersIn: "-.")).prefix(64))
            .trimmingCharacters(in: CharacterSet(charactersIn: "-."))
        return Path.join(out, "\(trimmed.isEmpty ? "run" : trimmed)-\(runID)")
    }
}


/// A run as named on the command line: a number, or `latest`.
enum RunReference: ArgumentValue {
    case latest
    case id(Int64)

    init(argument: String) throws(ArgumentValueError) {
        if argument == "latest" || argument == "last" {
            self = .latest
        } else if let id = Int64(argument), id > 0 {
            self = .id(id)
        } else {
            throw ArgumentValueError(expected: "a run number (see 'remindersim list') or 'latest'")
        }
    }
}

/// A group of one option naming a path, which has a default.
protocol PathOption: OptionGroup {
    static var spec: ArgumentSpec { get }
    var path: String { get }
    init(path: String)
}

extension PathOption {
    static var specs: [ArgumentSpec] { [spec] }

    init(_ arguments: ParsedArguments) throws {
        self.init(path: try arguments.value(Self.spec))
    }
}

/// `--db`: the run database a command reads or writes.
struct DatabaseOption: PathOption {
    static let spec = ArgumentSpec.option(
        "--db", valueName: "path", help: "The run database.", default: StoreAccess.defaultDatabase)
    let path: String
}

/// `--out`: the folder report folders are written under.
struct ReportFolderOption: PathOption {
    static let spec = ArgumentSpec.option(
        "--out", valueName: "dir", help: "Where report folders are written.", default: StoreAccess.defaultOutput)
    let path: String
}

/// `--data`: where a stored scenario's recorded logs are read from. `run` and `tune` read them relative
/// to the scenario file's folder, which the store does not keep: a command that simulates a stored
/// scenario again (the second look of `report` and `merge`, a tune's report) reads them relative to
/// this folder, the working folder by default.
struct ScenarioDataOption: OptionGroup {
    static let spec = ArgumentSpec.option(
        "--data", valueName: "dir",
        help: "The folder the stored scenario's recorded logs are read from, as 'run' read them from the scenario file's "
            + "folder (default: the working folder). Needed only by a scenario that reads a log.")
    static var specs: [ArgumentSpec] { [spec] }
    let folder: String?

    init(_ arguments: ParsedArguments) throws {
        folder = try arguments.optionalValue(Self.spec.name, as: String.self)
        if folder?.isEmpty == true { throw UsageError("\(Self.spec.name): expected a folder, got an empty path") }
    }

    /// Refuses a `--data` that is not a folder (66), before anything is read or written.
    static func check(_ folder: String?) throws {
        guard let folder else { return }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw CommandError.noInput("\(spec.name) \(MessageText.oneLine(folder)): no such folder")
        }
        guard isFolder.boolValue else { throw CommandError.noInput("\(spec.name) \(MessageText.oneLine(folder)): not a folder") }
    }

    /// Refuses (65) recorded logs read again whose visits are not those `owner` read (its stored
    /// fingerprint), which would work out other figures than it had; one stored without a fingerprint is
    /// taken as it is.
    static func checkSame(_ recorded: RecordedLogs, _ scenario: Scenario, stored: String?, owner: String, _ folder: String?) throws {
        guard let stored, recorded.fingerprint(of: scenario) != stored else { return }
        let place = folder.map { "\(spec.name) \(MessageText.oneLine($0))" } ?? "the working folder"
        throw CommandError.dataError("\(owner): the recorded logs read from \(place) are not the ones it read (their visits "
            + "differ), so its figures cannot be worked out again from them; give the folder of the logs it read with \(spec.name)")
    }

    /// What a failure to read a stored scenario's recorded logs adds: where they were looked for.
    static func hint(_ scenario: Scenario, _ folder: String?) -> String {
        guard scenario.readsRecordedLogs else { return "" }
        guard let folder else {
            return "; its recorded logs are named relative to the scenario file's folder: give that folder with \(spec.name)"
        }
        return "; its recorded logs were looked for under \(spec.name) \(MessageText.oneLine(folder))"
    }
}

/// A run or a tune as named on the command line: a run's number or `latest`, or `tune:` before a
/// tune's number or `latest`.
enum StoredReference: ArgumentValue {
    case run(RunReference)
    case tune(RunReference)

    static let tunePrefix = "tune:"

    init(argument: String) throws(ArgumentValueError) {
        do {
            self = argument.hasPrefix(Self.tunePrefix)
                ? .tune(try RunReference(argument: String(argument.dropFirst(Self.tunePrefix.count))))
                : .run(try RunReference(argument: argument))
        } catch {
            throw ArgumentValueError(expected: "a run number (see 'remindersim list'), 'latest', or a tune as tune:<number> or tune:latest")
        }
    }
}

/// What a selection names, checked to be stored: a run's id or a tune's.
enum StoredItem: Equatable {
    case run(Int64)
    case tune(Int64)
}

/// The stored run or tune a command reads, in which database.
struct StoredRunSelection: OptionGroup {
    static let run = ArgumentSpec.positional(
        "run", help: "The run (a number from 'remindersim list', or 'latest'), or a tune: tune:<number> or tune:latest.")
    static let specs = [run] + DatabaseOption.specs

    let reference: StoredReference
    let database: String

    init(_ arguments: ParsedArguments) throws {
        reference = try arguments.value(Self.run, as: StoredReference.self)
        database = try DatabaseOption(arguments).path
    }

    /// The database, opened for reading, and what the selection names, checked to be there.
    func open() throws -> (store: RunStore, item: StoredItem) {
        let store = try StoreAccess.open(database, create: false)
        switch reference {
        case let .run(r): return (store, .run(try StoreAccess.runID(r, in: store)))
        case let .tune(r): return (store, .tune(try StoreAccess.tuneID(r, in: store)))
        }
    }
}
