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

    /// Opens the store; `create` only for commands that write a run.
    static func open(_ path: String, create: Bool) throws -> RunStore {
        do {
            return try RunStore(path: path, create: create)
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
