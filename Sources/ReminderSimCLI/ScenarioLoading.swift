import Console
import Foundation
import Simulation

/// Reads scenario files and turns their problems into the tool's exit codes.
enum ScenarioLoading {
    /// The scenario in `path`, or the built-in default when `path` is nil.
    static func load(_ path: String?) throws -> Scenario {
        guard let path else { return Scenario.builtInDefault }
        let text = try readText(path)
        do {
            return try Scenario.decode(text, source: path)
        } catch {
            throw invalid(error)
        }
    }

    static func readText(_ path: String) throws -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandError.noInput("\(path): no such file")
        }
        if isDirectory.boolValue { throw CommandError.noInput("\(path): is a directory, not a scenario file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandError.ioError("\(path): cannot be read (check its permissions)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandError.dataError("\(path): not UTF-8 text")
        }
        return text
    }

    /// The model of a scenario read from `path` (nil: the built-in one), with its recorded logs loaded.
    static func compile(_ scenario: Scenario, path: String?) throws -> CompiledModel {
        do {
            return try CompiledModel(scenario, dataFolder: path.map { ($0 as NSString).deletingLastPathComponent })
        } catch let error as ScenarioError {
            throw invalid(ScenarioError(source: path, issues: error.issues))
        } catch let error as RecordedDataError {
            throw commandError(error, message: (path.map { "\($0): " } ?? "") + error.description)
        }
    }

    /// A recorded log's problem as the tool's exit code: 66 missing, 74 unreadable, 65 bad data.
    static func commandError(_ error: RecordedDataError, message: String) -> CommandError {
        switch error.kind {
        case .missing: return CommandError.noInput(message)
        case .unreadable: return CommandError.ioError(message)
        case .badData: return CommandError.dataError(message)
        }
    }

    /// `--users`, `--days` and `--seed`, which override a scenario's own values.
    static func overrides(_ arguments: ParsedArguments) throws -> (users: Int?, days: Int?, seed: UInt64?) {
        let users: Int? = try arguments.isPresent("--users")
            ? arguments.value("--users", expected: "a whole number from 1 to 9007199254740991",
                              where: { (1...9_007_199_254_740_991).contains($0) }) : nil
        let days: Int? = try arguments.isPresent("--days")
            ? arguments.value("--days", expected: "a whole number of days from 1 to 3650", where: { (1...3650).contains($0) })
            : nil
        let seed: UInt64? = try arguments.isPresent("--seed")
            ? arguments.value("--seed", expected: "a whole number from 0 to 9007199254740991", where: { $0 <= 9_007_199_254_740_991 })
            : nil
        return (users, days, seed)
    }

    static func invalid(_ error: ScenarioError) -> CommandError {
        let count = error.issues.count
        return CommandError.dataError(
            "invalid scenario (\(count) problem\(count == 1 ? "" : "s")):\n" + error.description)
    }
}
