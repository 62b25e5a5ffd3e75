import Console
import Foundation
import Reporting
import Storage

/// `remindersim list`: the runs stored in a database.
struct ListCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "list",
        abstract: "List the runs stored in the database.",
        arguments: [StoreAccess.databaseOption])

    let database: String

    init(arguments: ParsedArguments) throws {
        database = try arguments.value("--db")
    }

    func run(context: CommandContext) throws {
        let store = try StoreAccess.open(database, create: false)
        let runs = try StoreAccess.perform { try store.list() }
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
}
