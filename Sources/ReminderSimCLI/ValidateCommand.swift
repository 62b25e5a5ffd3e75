import Console
import Simulation

/// `remindersim validate`: checks scenario files without running them.
struct ValidateCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "validate",
        abstract: "Check scenario files and report every problem, with its JSON path.",
        discussion: "Exits 0 when every file is valid, 65 when any is not, 66 when a file is missing.",
        arguments: [.variadic("scenario", help: "Scenario JSON files to check.")])

    let paths: [String]

    init(arguments: ParsedArguments) throws {
        paths = try arguments.values("scenario")
        if paths.isEmpty { throw UsageError("missing scenario file to validate") }
    }

    func run(context: CommandContext) throws {
        var failures: [String] = []
        for path in paths {
            do {
                let s = try ScenarioLoading.load(path)
                let n = s.expandedConfigurations.count
                context.stdout.writeLine(
                    "\(path): ok — \(n) configuration\(n == 1 ? "" : "s") and the holdout, \(s.users) users, \(s.horizonDays) days")
            } catch let error as CommandError where error.code == .dataError {
                failures.append(error.message)
            }
        }
        if !failures.isEmpty { throw CommandError.dataError(failures.joined(separator: "\n")) }
    }
}
