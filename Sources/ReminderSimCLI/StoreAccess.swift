import Console
import Foundation
import Storage

/// Opening the run database and naming runs, with the tool's exit codes.
enum StoreAccess {
    static let defaultDatabase = "Reports/remindersim.sqlite"
    static let defaultOutput = "Reports"

    static let databaseOption = ArgumentSpec.option(
        "--db", valueName: "path", help: "The run database.", default: defaultDatabase)
    static let outputOption = ArgumentSpec.option(
        "--out", valueName: "dir", help: "Where report folders are written.", default: defaultOutput)

    static let runArgument = ArgumentSpec.positional(
        "run", help: "The run (a number from 'remindersim list', or 'latest').")

    /// Opens the store: for writing, and creating it, for commands that write a run (`create`), else
    /// for reading only. `option` names where the path came from in the message for an empty one. A
    /// command that writes passes its `stderr`, where a wait for another process's lock is announced.
    static func open(_ path: String, create: Bool, option: String = "--db", stderr: (any OutputWriter)? = nil) throws -> RunStore {
        if path.isEmpty { throw UsageError("\(option): the database path is empty; give the name of a database file") }
        do {
            return try RunStore(path: path, create: create, readOnly: !create,
                                onWait: stderr.map { err in { err.writeLine("remindersim: \($0)") } })
        } catch {
            throw commandError(error)
        }
    }

    /// Checks, without creating anything, that report folders can be made under `out`: it is a folder
    /// this user can write, or the nearest part of it that exists is. Called before a run simulates, so
    /// that a bad `--out` is not found only when the results are ready to be written.
    static func checkOutputFolder(_ out: String) throws {
        var existing = out.isEmpty ? "." : out
        var isDirectory: ObjCBool = false
        while !FileManager.default.fileExists(atPath: existing, isDirectory: &isDirectory) {
            let parent = (existing as NSString).deletingLastPathComponent
            existing = parent.isEmpty ? "." : parent
        }
        guard isDirectory.boolValue else {
            let what = existing == out ? "" : " (\(existing) is a file)"
            throw CommandError.ioError("\(out): not a folder\(what); --out must name a folder for the reports")
        }
        guard access(existing, W_OK | X_OK) == 0 else {
            let what = existing == out ? "" : " (\(existing) is read-only to this user)"
            throw CommandError.ioError("\(out): cannot be written\(what); --out must name a folder this user can write")
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

    /// The id of a run named on the command line, after checking it is stored.
    static func runID(_ reference: RunReference, in store: RunStore) throws -> Int64 {
        switch reference {
        case .latest:
            guard let last = try perform({ try store.list().last }) else {
                throw CommandError.noInput("\(store.database.path): no runs stored yet")
            }
            return last.id
        case let .id(id):
            guard try perform({ try store.list().contains { $0.id == id } }) else {
                throw CommandError.noInput("\(store.database.path): no run \(id) (see 'remindersim list')")
            }
            return id
        }
    }

    /// Writes a report folder whole or not at all, and never over another run's report.
    ///
    /// `render` writes into a hidden folder beside `folder`, which is then renamed into place: a
    /// process killed while writing leaves no half report under the report's name. Two databases
    /// rendered into one `--out` can both have a run 1 of a scenario: a folder of that name that holds
    /// a different run (its `runs.csv` differs) is left alone and the report goes to `folder-2`,
    /// `folder-3`…; one that holds this very run is replaced. Returns the folder written.
    static func publish(_ folder: String, render: (String) throws -> Void) throws -> String {
        let fileManager = FileManager.default
        let parent = (folder as NSString).deletingLastPathComponent
        let name = (folder as NSString).lastPathComponent
        func inParent(_ child: String) -> String { (parent as NSString).appendingPathComponent(child) }
        func fail(_ path: String, _ error: any Error) -> CommandError {
            CommandError.ioError("\(path): cannot write the report: \(CommandRunner.systemReason(error))")
        }
        do {
            try fileManager.createDirectory(atPath: parent.isEmpty ? "." : parent, withIntermediateDirectories: true)
        } catch {
            throw fail(parent, error)
        }
        // Partial folders of processes that were killed are removed; those of live ones are theirs.
        let partialPrefix = ".\(name).partial-"
        for entry in (try? fileManager.contentsOfDirectory(atPath: parent.isEmpty ? "." : parent)) ?? []
        where entry.hasPrefix(partialPrefix) {
            if let pid = Int32(entry.dropFirst(partialPrefix.count)), kill(pid, 0) != 0, errno == ESRCH {
                try? fileManager.removeItem(atPath: inParent(entry))
            }
        }
        let partial = inParent(partialPrefix + String(getpid()))
        try? fileManager.removeItem(atPath: partial)
        do {
            try render(partial)
        } catch {
            try? fileManager.removeItem(atPath: partial)
            throw error
        }
        let mine = fileManager.contents(atPath: (partial as NSString).appendingPathComponent("runs.csv"))
        var candidate = folder
        var number = 1
        while true {
            var isDirectory: ObjCBool = false
            if !fileManager.fileExists(atPath: candidate, isDirectory: &isDirectory) {
                do {
                    try fileManager.moveItem(atPath: partial, toPath: candidate)
                } catch {
                    try? fileManager.removeItem(atPath: partial)
                    throw fail(candidate, error)
                }
                return candidate
            }
            if isDirectory.boolValue, mine != nil,
               fileManager.contents(atPath: (candidate as NSString).appendingPathComponent("runs.csv")) == mine {
                // The same run rendered again: the old folder is moved aside, then the new one takes its name.
                let old = inParent(".\((candidate as NSString).lastPathComponent).old-\(getpid())")
                try? fileManager.removeItem(atPath: old)
                do {
                    try fileManager.moveItem(atPath: candidate, toPath: old)
                    try fileManager.moveItem(atPath: partial, toPath: candidate)
                } catch {
                    try? fileManager.removeItem(atPath: partial)
                    throw fail(candidate, error)
                }
                try? fileManager.removeItem(atPath: old)
                return candidate
            }
            number += 1
            candidate = folder + "-\(number)"
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
        return (out as NSString).appendingPathComponent("\(trimmed.isEmpty ? "run" : trimmed)-\(runID)")
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

/// The stored run a command reads: which run, in which database.
struct StoredRunSelection {
    let run: RunReference
    let database: String

    init(_ arguments: ParsedArguments) throws {
        run = try arguments.value("run", as: RunReference.self)
        database = try arguments.value("--db")
    }

    /// The database, opened for reading, and the id of the run, checked to be there.
    func open() throws -> (store: RunStore, id: Int64) {
        let store = try StoreAccess.open(database, create: false)
        return (store, try StoreAccess.runID(run, in: store))
    }
}
