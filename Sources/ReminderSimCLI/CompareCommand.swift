import Console
import Foundation
import Reporting
import Simulation
import Storage

/// `remindersim compare`: two stored runs' configurations side by side.
struct CompareCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "compare",
        abstract: "Put the configurations of two stored runs side by side.",
        discussion: """
            Configurations are matched by label; a label found in one run only is shown with n/a for the \
            other. Example: remindersim compare 3 latest
            """,
        arguments: [
            .positional("run-a", help: "The first run (a number from 'remindersim list', or 'latest')."),
            .positional("run-b", help: "The second run."),
            StoreAccess.databaseOption,
        ])

    let first: RunReference
    let second: RunReference
    let database: String

    init(arguments: ParsedArguments) throws {
        first = try arguments.value("run-a", as: RunReference.self)
        second = try arguments.value("run-b", as: RunReference.self)
        database = try arguments.value("--db")
    }

    func run(context: CommandContext) throws {
        let store = try StoreAccess.open(database, create: false)
        let a = try StoreAccess.perform { try store.load(StoreAccess.runID(first, in: store)) }
        let b = try StoreAccess.perform { try store.load(StoreAccess.runID(second, in: store)) }
        func metrics(_ run: StoredRun) -> [String: ConfigurationMetrics] {
            Dictionary(run.results.all.map { ($0.label, $0.metrics) }, uniquingKeysWith: { first, _ in first })
        }
        let ma = metrics(a), mb = metrics(b)
        var labels = a.results.all.map(\.label)
        for c in b.results.all where !labels.contains(c.label) { labels.append(c.label) }

        func describe(_ run: StoredRun) -> String {
            let s = run.record.scenario
            return "run \(run.id): \"\(TerminalText.printable(s.name))\", seed \(s.seed), \(Text.group(Int64(s.users))) users, "
                + "\(s.horizonDays) days from \(s.startDate)"
        }
        context.stdout.writeLine("A = \(describe(a))")
        context.stdout.writeLine("B = \(describe(b))")
        if try a.record.scenario.canonicalJSON() != b.record.scenario.canonicalJSON() {
            context.stdout.writeLine("Note: the runs come from different scenarios; rows are matched by label only.")
        }
        context.stdout.writeLine("")
        var rows = [["configuration", "trigger rate A", "trigger rate B", "opens/user lift A", "opens/user lift B",
                     "D7 A", "D7 B", "D30 A", "D30 B"]]
        for label in labels {
            let x = ma[label], y = mb[label]
            func pct(_ m: ConfigurationMetrics?, _ p: (ConfigurationMetrics) -> Proportion) -> String {
                m.map { Text.percent(p($0), withInterval: false) } ?? "n/a"
            }
            func lift(_ m: ConfigurationMetrics?) -> String {
                guard let m, !m.isHoldout else { return m == nil ? "n/a" : "—" }
                return Text.signed(m.opensLiftPerUser, digits: 3)
            }
            rows.append([
                TerminalText.printable(label), pct(x, \.triggerRate), pct(y, \.triggerRate), lift(x), lift(y),
                pct(x, \.retentionD7), pct(y, \.retentionD7), pct(x, \.retentionD30), pct(y, \.retentionD30),
            ])
        }
        context.stdout.write(TerminalText.table(rows, rightAligned: Set(1...8)))
    }
}
