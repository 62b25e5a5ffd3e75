import Console
import Foundation
import Reporting
import Storage

/// `remindersim list`: the runs stored in a database.
struct ListCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "list",
        abstract: "List the runs stored in the database.",
        discussion: """
            With --json, stdout holds one JSON array with an object per run, oldest first, with the columns \
            of the table: id, scenario, seed, users, days, configurations, status, finished (UTC, ISO 8601) \
            and wallSeconds; an empty database gives [].
            """,
        arguments: DatabaseOption.specs + [json])

    static let json = JSONFlag.spec.described("Print the runs as JSON on stdout instead of a table (see above).")

    let database: String
    let json: Bool

    init(arguments: ParsedArguments) throws {
        database = try DatabaseOption(arguments).path
        json = try arguments.flag(Self.json)
    }

    func run(context: CommandContext) throws {
        let store = try StoreAccess.open(database, create: false)
        let runs = try StoreAccess.perform { try store.list() }
        if json {
            context.stdout.write(try JSONFlag.text(runs.map(Self.jsonObject)))
            return
        }
        guard !runs.isEmpty else {
            context.stdout.writeLine("No runs in \(database) yet; 'remindersim run' adds one.")
            return
        }
        var rows = [["run", "scenario", "seed", "users", "days", "configurations", "status", "finished (UTC)", "wall"]]
        for r in runs {
            rows.append([
                String(r.id), TerminalText.printable(r.scenarioName, limit: 32), String(r.seed), Text.group(r.users),
                String(r.horizonDays), String(r.configurations), r.status, r.createdAt,
                String(format: "%.2f s", r.wallSeconds),
            ])
        }
        context.stdout.write(TerminalText.table(rows, rightAligned: [2, 3, 4, 5, 8]))
    }

    /// One run as `list --json` shows it: the table's columns, the text as stored.
    static func jsonObject(_ r: RunListing) -> [String: Any] {
        ["id": r.id, "scenario": r.scenarioName, "seed": r.seed, "users": r.users, "days": r.horizonDays,
         "configurations": r.configurations, "status": r.status, "finished": r.createdAt,
         "wallSeconds": JSONFlag.number(r.wallSeconds)]
    }
}
