import Console
import Foundation
import Reporting
import Simulation

/// `remindersim validate`: checks scenario files without running them.
struct ValidateCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "validate",
        abstract: "Check scenario files and report every problem, with its JSON path.",
        discussion: """
            Every file is checked. Exits 0 when all are valid, 66 when one is missing, 74 when one cannot be \
            read, otherwise 65 when any is invalid. With --json, stdout holds one JSON array with an object \
            per file, in the order given: file (its path as given, "<stdin>" for standard input), valid, problems (each with its JSON path, "" for the whole \
            file, and reason), warnings (the same), notes (texts), and for a valid file configurations (not \
            counting the holdout), users and horizonDays, null otherwise; the exit status is the same, and \
            the errors are still named on stderr.
            """,
        arguments: [scenarios, json])

    static let scenarios = ArgumentSpec.variadic("scenario", help: "Scenario JSON files to check (- for standard input).")
    static let json = JSONFlag.spec.described("Print what was found as JSON on stdout instead of text (see above).")

    let paths: [String]
    let json: Bool

    init(arguments: ParsedArguments) throws {
        paths = try arguments.values(Self.scenarios)
        if paths.isEmpty { throw UsageError("missing scenario file to validate") }
        try InputFile.requireStandardInputOnce(paths)
        json = try arguments.flag(Self.json)
    }

    func run(context: CommandContext) throws {
        let checks = paths.map(FileCheck.init)
        if json {
            context.stdout.write(try FileCheck.json(checks))
        } else {
            for check in checks {
                guard let s = check.scenario else { continue }
                let n = s.expandedConfigurations.count
                context.stdout.writeLine(
                    "\(check.name): ok — \(TuneCommand.count(n)) configuration\(n == 1 ? "" : "s") and the holdout, \(TuneCommand.count(s.users)) user\(s.users == 1 ? "" : "s"), \(TextLimit.days(s.horizonDays))")
                for note in check.notes { context.stderr.writeLine("\(check.name): note: \(note)") }
                ScenarioLoading.warn(s, path: check.path, context: context, tunes: true)
            }
        }
        let failures = checks.compactMap(\.failure)
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

/// What `validate` found in one file: the scenario when it is valid, otherwise its problems and the
/// error the command fails with.
struct FileCheck {
    let path: String
    let scenario: Scenario?
    let problems: [ScenarioIssue]
    let failure: CommandError?

    /// How the file is named in messages (`<stdin>` for standard input).
    var name: String { ScenarioLoading.displayName(path) ?? path }

    init(_ path: String) {
        self.path = path
        do {
            let s = try ScenarioLoading.decode(path)
            // Recorded logs are read too, so a broken log is found before a run.
            _ = try ScenarioLoading.check(s, path: path)
            // A tune block is laid out as `tune` would lay it out, so a space it would refuse (too
            // large, or holding no candidate) is found here too.
            if s.tune != nil {
                do {
                    _ = try Tuner(scenario: s, threads: 1)
                } catch {
                    throw ScenarioError(source: ScenarioLoading.displayName(path) ?? path,
                                        issues: [ScenarioIssue(path: error.path, reason: error.reason)])
                }
            }
            (scenario, problems, failure) = (s, [], nil)
        } catch let error as ScenarioError {
            (scenario, problems, failure) = (nil, error.issues, ScenarioLoading.invalid(error))
        } catch {
            let failure = error as? CommandError ?? CommandError.software("\(path): \(error)")
            // The message names the file first; the problem is the rest.
            let prefix = (ScenarioLoading.displayName(path) ?? path) + ": "
            let reason = failure.message.hasPrefix(prefix) ? String(failure.message.dropFirst(prefix.count)) : failure.message
            (scenario, problems, self.failure) = (nil, [ScenarioIssue(path: "", reason: reason)], failure)
        }
    }

    /// What the file says that most likely does not mean what it seems to (see `ValidateCommand.periodNotes`).
    var notes: [String] { scenario.map(ValidateCommand.periodNotes) ?? [] }

    /// The checks as `validate --json` prints them.
    static func json(_ checks: [FileCheck]) throws -> String {
        func issues(_ list: [ScenarioIssue]) -> [[String: String]] { list.map { ["path": $0.path, "reason": $0.reason] } }
        let files: [[String: Any]] = checks.map { check in
            let s = check.scenario
            return [
                // The path as given (JSON escapes what it must), so that a reader gets the file's name back.
                "file": check.path == InputFile.standardInput ? "<stdin>" : check.path, "valid": s != nil, "problems": issues(check.problems),
                "warnings": issues(s?.warnings() ?? []), "notes": check.notes,
                "configurations": s.map { $0.expandedConfigurations.count } ?? NSNull(),
                "users": s.map(\.users) ?? NSNull(), "horizonDays": s.map(\.horizonDays) ?? NSNull(),
            ]
        }
        return try JSONFlag.text(files)
    }
}
