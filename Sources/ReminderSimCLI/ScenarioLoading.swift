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
            let message = (path.map { "\($0): " } ?? "") + error.description
            switch error.kind {
            case .missing: throw CommandError.noInput(message)
            case .unreadable: throw CommandError.ioError(message)
            case .badData: throw CommandError.dataError(message)
            }
        }
    }

    static func invalid(_ error: ScenarioError) -> CommandError {
        let count = error.issues.count
        return CommandError.dataError(
            "invalid scenario (\(count) problem\(count == 1 ? "" : "s")):\n" + error.description)
    }
}
