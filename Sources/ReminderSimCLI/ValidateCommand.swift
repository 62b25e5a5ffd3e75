import Console
import Reporting
import Simulation

/// `remindersim validate`: checks scenario files without running them.
struct ValidateCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "validate",
        abstract: "Check scenario files and report every problem, with its JSON path.",
        discussion: """
            Every file is checked. Exits 0 when all are valid, 66 when one is missing, 74 when one cannot be \
            read, otherwise 65 when any is invalid.
            """,
        arguments: [.variadic("scenario", help: "Scenario JSON files to check (- for standard input).")])

    let paths: [String]

    init(arguments: ParsedArguments) throws {
        paths = try arguments.values("scenario")
        if paths.isEmpty { throw UsageError("missing scenario file to validate") }
        try InputFile.requireStandardInputOnce(paths)
    }

    func run(context: CommandContext) throws {
        var failures: [CommandError] = []
        for path in paths {
            do {
                let s = try ScenarioLoading.load(path)
                // Recorded logs are read too, so a broken log is found before a run.
                _ = try ScenarioLoading.compile(s, path: path)
                let n = s.expandedConfigurations.count
                context.stdout.writeLine(
                    "\(ScenarioLoading.displayName(path) ?? path): ok — \(n) configuration\(n == 1 ? "" : "s") and the holdout, \(s.users) users, \(s.horizonDays) days")
                for note in Self.periodNotes(s) {
                    context.stderr.writeLine("\(ScenarioLoading.displayName(path) ?? path): note: \(note)")
                }
                ScenarioLoading.warn(s, path: path, context: context)
            } catch let error as CommandError {
                failures.append(error)
            }
        }
        guard !failures.isEmpty else { return }
        // The most basic failure decides the status: a missing file before an unreadable one before bad data.
        let code = [ExitCode.noInput, .ioError, .dataError].first { c in failures.contains { $0.code == c } } ?? .dataError
        throw CommandError(code, failures.map(\.message).joined(separator: "\n"))
    }

    /// One line for every configuration whose reminder lists several periods: what that means in
    /// ACPReminder, which is not "a reminder after each of these", and what says that instead.
    static func periodNotes(_ s: Scenario) -> [String] {
        s.expandedConfigurations.compactMap { c -> String? in
            guard let r = c.reminders.first(where: { $0.timePeriods.count > 1 }) else { return nil }
            let periods = r.timePeriods.map(String.init).joined(separator: ", ")
            return "\"\(TerminalText.printable(c.label))\": timePeriods [\(periods)] means one pending notification whose "
                + "delay moves to the next period only after one has fired and the user came back; for a reminder "
                + "after each of \(periods) \(r.unit.rawValue) since the last session, write a \"sequence\" instead"
        }
    }
}
