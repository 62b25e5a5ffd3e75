import Console
import FilePaths
import Foundation
import ScenarioData
import Simulation

/// Reads scenario files and turns their problems into the tool's exit codes.
enum ScenarioLoading {
    /// The scenario path that means standard input, as for other Unix tools.
    static let standardInput = "-"

    /// How a scenario path is named in messages: standard input as `<stdin>`.
    static func displayName(_ path: String?) -> String? {
        path.map(InputFile.displayName)
    }

    /// The scenario in `path` (`-`: standard input), or the built-in default when `path` is nil.
    static func load(_ path: String?) throws -> Scenario {
        guard let path else { return Scenario.builtInDefault }
        do {
            return try decode(path)
        } catch let error as ScenarioError {
            throw invalid(error)
        }
    }

    /// Like `load`, but a scenario's problems are thrown as they are, a `ScenarioError` with one issue
    /// each; a file that cannot be read as a scenario at all throws the tool's `CommandError`.
    static func decode(_ path: String) throws -> Scenario {
        let text = try readText(path)
        guard text.contains(where: { !$0.isWhitespace }) else {
            throw CommandError.dataError("\(displayName(path) ?? path): empty (a scenario is a JSON object)")
        }
        return try Scenario.decode(text, source: displayName(path))
    }

    /// The text of `path` (`-`: standard input), at most `InputFile.maximumBytes` of UTF-8.
    /// `kind` names the file in messages.
    static func readText(_ path: String, kind: String = "a scenario file") throws -> String {
        let bytes = try InputFile.bytes(path, kind: kind)
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            throw CommandError.dataError("\(displayName(path) ?? path): not UTF-8 text")
        }
        return text
    }

    /// The folder a scenario's recorded logs are found relative to: the scenario file's own. A
    /// scenario from standard input (or the built-in one) reads them relative to the working folder.
    static func dataFolder(_ path: String?) -> String? {
        guard let path, path != standardInput else { return nil }
        return Path.parent(path)
    }

    /// The model of a scenario read from `path` (nil: the built-in one), with its recorded logs loaded.
    /// `days` is the `--days` that overrode the scenario's horizon, named in any problem it caused.
    static func compile(_ scenario: Scenario, path: String?, days: Int? = nil, decides: Bool = true) throws -> CompiledModel {
        try compileReading(scenario, path: path, days: days, decides: decides).model
    }

    /// The model of a scenario read from `path`, as `compile`, and the recorded logs it read for it, for a
    /// command that compiles variants of the scenario without reading them again. The scenario's own
    /// problems come before any log is read. `stored`: a scenario read back from the database, not held to
    /// the limits on new runs; `decides`: the command makes a decision (all but `trace`).
    static func compileReading(_ scenario: Scenario, path: String?, days: Int? = nil, stored: Bool = false,
                               decides: Bool = true, dataFolder: String? = nil) throws -> (model: CompiledModel, recorded: RecordedLogs)
    {
        do {
            return try checkReading(scenario, path: path, days: days, stored: stored, decides: decides, dataFolder: dataFolder)
        } catch let error as ScenarioError {
            throw invalid(error)
        }
    }

    /// Like `compile`, but the scenario's problems are thrown as they are, a `ScenarioError`; a recorded
    /// log that cannot be read throws the tool's `CommandError`.
    static func check(_ scenario: Scenario, path: String?, days: Int? = nil) throws -> CompiledModel {
        try checkReading(scenario, path: path, days: days).model
    }

    private static func checkReading(_ scenario: Scenario, path: String?, days: Int? = nil, stored: Bool = false,
                                     decides: Bool = true, dataFolder folder: String? = nil) throws -> (model: CompiledModel, recorded: RecordedLogs)
    {
        let name = displayName(path)
        do {
            let issues = scenario.semanticIssues(relaxed: stored, decides: decides)
            if !issues.isEmpty { throw ScenarioError(issues: issues) }
            let recorded = try RecordedLogs.read(for: scenario, folder: folder ?? dataFolder(path))
            return (try CompiledModel(scenario, recorded: recorded), recorded)
        } catch let error as ScenarioError {
            let issues = error.issues.map { issue in
                guard let days, issue.path == "horizonDays" || issue.reason.contains("horizonDays") else { return issue }
                let option = ScenarioOverrides.days.name
                return ScenarioIssue(path: issue.path, reason: issue.reason + " (horizonDays is \(days) from \(option) \(days))")
            }
            throw ScenarioError(source: name, issues: issues)
        } catch let error as RecordedDataError {
            throw commandError(error, message: (name.map { "\($0): " } ?? "") + error.description)
        }
    }

    /// A recorded log's problem as the tool's exit code: 66 missing, 74 unreadable, 65 bad data.
    static func commandError(_ error: RecordedDataError, message: String) -> CommandError {
        switch error.kind {
        case .missing: return CommandError.noInput(message)
        case .unreadable: return CommandError.ioError(message)
        case .badData, .badFormat: return CommandError.dataError(message)
        }
    }

    /// A run stopped at the session limit, as the tool's error naming the scenario, the user and the segment.
    static func sessionLimitError(_ breach: SessionLimitBreach, in model: CompiledModel, path: String?) -> CommandError {
        CommandError.dataError("\(displayName(path) ?? "the built-in scenario"): \(model.explain(breach))")
    }

    /// Shows on stderr, one line each, what the scenario allows but most likely does not mean; the
    /// command goes on. `path` is the scenario's file, nil for the built-in one.
    /// `tunes`: whether the command reads the scenario's `tune` block; a command that ignores it says
    /// nothing of it.
    static func warn(_ scenario: Scenario, path: String?, context: CommandContext, tunes: Bool = false) {
        let tool = context.commandPath.split(separator: " ").first.map(String.init) ?? "remindersim"
        let name = displayName(path) ?? "the built-in scenario"
        let warnings = scenario.warnings().filter { tunes || !$0.path.hasPrefix("tune.") }
        // As many as the problems an error lists; the rest counted (`validate --json` lists them all).
        for warning in warnings.prefix(listedProblems) {
            context.stderr.writeLine("\(tool): warning: \(name): \(warning)")
        }
        if warnings.count > listedProblems {
            context.stderr.writeLine("\(tool): warning: \(name): … and \(warnings.count - listedProblems) more warnings "
                + "(`remindersim validate --json` lists them all)")
        }
    }

    /// The most problems the error lists, one line each; the count says how many there are
    /// (`validate --json` lists them all).
    static let listedProblems = 100

    static func invalid(_ error: ScenarioError) -> CommandError {
        let count = error.issues.count
        var listed = error
        listed.issues = Array(error.issues.prefix(listedProblems))
        let more = count - listed.issues.count
        return CommandError.dataError(
            "invalid scenario (\(count) problem\(count == 1 ? "" : "s")):\n" + listed.description
                + (more > 0 ? "\n… and \(more) more (`remindersim validate --json` lists them all)" : ""))
    }
}

/// The scenario file a simulating command reads: `-` for standard input, none for the built-in one.
struct ScenarioFileArgument: OptionGroup {
    static let spec = ArgumentSpec.optionalPositional(
        "scenario", help: "Scenario JSON file, - for standard input (default: the built-in scenario).")
    static let specs = [spec]

    let path: String?

    init(_ arguments: ParsedArguments) throws {
        path = try arguments.optionalValue(Self.spec)
    }
}

/// `--users`, `--days`, `--seed` and `--install-spread`, which override a scenario's own values.
struct ScenarioOverrides: OptionGroup {
    static let users = ArgumentSpec.option(
        "--users", short: "n", valueName: "n", help: "Number of virtual users (overrides the scenario).")
    static let days = ArgumentSpec.option(
        "--days", valueName: "n", help: "Days simulated from the start date (overrides the scenario).")
    static let seed = ArgumentSpec.option("--seed", valueName: "n", help: "Random seed (overrides the scenario).")
    static let installSpread = ArgumentSpec.option(
        "--install-spread", valueName: "days", help: """
            Days over which installs are spread from the start date (overrides population.installSpreadDays; \
            0 installs everyone at the start). A run shorter than the spread needs one no longer than it.
            """)
    static let specs = [users, days, seed, installSpread]

    let users: Int?
    /// `--install-spread`, nil when not given.
    let installSpread: Double?
    /// Named in any problem the new horizon causes (see `ScenarioLoading.compile`).
    let days: Int?
    let seed: UInt64?

    init(_ arguments: ParsedArguments) throws {
        users = try arguments.valueIfPresent(Self.users, expected: "a whole number from 1 to \(Scenario.maximumUsers)",
                                             where: { (1...Scenario.maximumUsers).contains($0) })
        days = try arguments.valueIfPresent(Self.days, expected: "a whole number of days from 1 to 3650",
                                            where: { (1...3650).contains($0) })
        seed = try Self.seed(arguments)
        installSpread = try arguments.valueIfPresent(Self.installSpread, expected: "a number of days from 0 to 3650",
                                                     where: { (0...3650).contains($0) })
    }

    /// `--seed` when given: a seed a scenario can hold (JSON keeps whole numbers exact up to 2^53 − 1).
    static func seed(_ arguments: ParsedArguments) throws -> UInt64? {
        try arguments.valueIfPresent(seed, expected: "a whole number from 0 to \(Scenario.maximumSeed)",
                                     where: { $0 <= Scenario.maximumSeed })
    }

    /// The scenario in `path` (see `ScenarioLoading.load`) with these values in place of its own.
    func load(_ path: String?) throws -> Scenario {
        var scenario = try ScenarioLoading.load(path)
        if let users { scenario.users = users }
        if let days { scenario.horizonDays = days }
        if let seed { scenario.seed = seed }
        if let installSpread { scenario.population.installSpreadDays = installSpread }
        return scenario
    }
}

/// `--threads`: how many worker threads simulate. Results never depend on it.
struct ThreadsOption: OptionGroup {
    static let spec = ArgumentSpec.option(
        "--threads", short: "j", valueName: "n", help: "Worker threads.",
        default: String(ProcessInfo.processInfo.activeProcessorCount))
    static let specs = [spec]

    let count: Int

    init(_ arguments: ParsedArguments) throws {
        count = try arguments.value(Self.spec, expected: "a whole number from 1 to 512", where: { (1...512).contains($0) })
    }
}

/// What a simulating command reads the same way: the scenario (with `--users`, `--days`, `--seed`),
/// the threads, and where the run and its report go.
struct SimulationArguments: OptionGroup {
    static let specs = ScenarioFileArgument.specs + options
    /// Every option but the scenario file, for a command that describes its scenario its own way
    /// (`ScenarioFileArgument.spec.described(…)`).
    static let options = ScenarioOverrides.specs + ThreadsOption.specs + DatabaseOption.specs + ReportFolderOption.specs

    let path: String?
    let overrides: ScenarioOverrides
    let threads: Int
    let database: String
    let output: String

    init(_ arguments: ParsedArguments) throws {
        path = try ScenarioFileArgument(arguments).path
        overrides = try ScenarioOverrides(arguments)
        threads = try ThreadsOption(arguments).count
        database = try DatabaseOption(arguments).path
        output = try ReportFolderOption(arguments).path
    }
}

extension Scenario {
    /// Whether the scenario names recorded logs, which are read relative to its file's folder.
    var readsRecordedLogs: Bool { !RecordedLogs.files(of: self, folder: nil).isEmpty }
}
