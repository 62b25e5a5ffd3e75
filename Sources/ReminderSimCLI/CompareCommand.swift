import Console
import Foundation
import Reporting
import Simulation
import Storage

/// `remindersim compare`: two stored runs' configurations side by side.
struct CompareCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "compare",
        abstract: "Put the configurations of two stored runs side by side, with B − A differences and intervals.",
        discussion: """
            Configurations are matched by label; a label found in one run only is shown with n/a for the \
            other. When both runs simulated the same users (same seed, user count, population and holdout), a \
            difference's interval is bounded by se(A) + se(B) (method "bounded"), and a difference the same \
            users make exact (the holdout's, every one of two alike runs) is shown as exact; otherwise the runs \
            are independent (method "independent"). \
            Example: remindersim compare 3 latest --format csv
            """,
        arguments: [runA, runB, format, CSVSafeFlag.spec] + DatabaseOption.specs)

    static let runA = ArgumentSpec.positional("run-a", help: "The first run (a number from 'remindersim list', or 'latest').")
    static let runB = ArgumentSpec.positional("run-b", help: "The second run.")
    static let format = ArgumentSpec.option("--format", valueName: "text|csv|json|markdown", help: """
        Output format: an aligned table (text), tidy CSV with one row per configuration and measure, \
        JSON, or a Markdown table.
        """, default: "text")

    let first: RunReference
    let second: RunReference
    let database: String
    let format: RunComparison.Format
    let csvSafe: Bool

    init(arguments: ParsedArguments) throws {
        first = try arguments.value(Self.runA, as: RunReference.self)
        second = try arguments.value(Self.runB, as: RunReference.self)
        database = try DatabaseOption(arguments).path
        format = try arguments.value(Self.format, as: ComparisonFormat.self).format
        csvSafe = try arguments.flag(CSVSafeFlag.spec)
        if csvSafe && format != .csv { throw UsageError("\(CSVSafeFlag.spec.name): only with --format csv") }
    }

    func run(context: CommandContext) throws {
        let store = try StoreAccess.open(database, create: false)
        let ids = (try StoreAccess.runID(first, in: store), try StoreAccess.runID(second, in: store))
        guard ids.0 != ids.1 else {
            throw UsageError("<run-a> and <run-b> name the same run, \(ids.0): every difference from itself is 0; name two runs")
        }
        let a = try StoreAccess.perform { try store.load(ids.0) }
        let b = try StoreAccess.perform { try store.load(ids.1) }
        func describe(_ run: StoredRun) -> String {
            let s = run.record.scenario
            // A shard run holds only its share of the scenario's users: say which, and how many.
            let users = run.record.shard.map { shard in
                let range = run.record.results.users
                return "shard \(shard.index) of \(shard.count): \(Text.group(Int64(range.count))) of its "
                    + "\(Text.group(Int64(s.users))) users (\(range.lowerBound)..<\(range.upperBound))"
            } ?? "\(Text.group(Int64(s.users))) users"
            return "run \(run.id): \"\(TerminalText.printable(s.name))\", seed \(s.seed), \(users), "
                + "\(TextLimit.days(s.horizonDays)) from \(s.startDate)"
        }
        context.stdout.write(RunComparison(a, b).render(format, describeA: describe(a), describeB: describe(b), csvSafe: csvSafe))
    }
}

/// `--format` of `compare`.
struct ComparisonFormat: ArgumentValue {
    let format: RunComparison.Format

    init(argument: String) throws(ArgumentValueError) {
        guard let f = RunComparison.Format(rawValue: argument) else {
            throw ArgumentValueError(expected: RunComparison.Format.allCases.map(\.rawValue).joined(separator: ", "))
        }
        format = f
    }
}
