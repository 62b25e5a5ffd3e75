import Console
import Foundation
import Reporting
import Storage

/// `remindersim list`: the runs and the tunes stored in a database.
struct ListCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "list",
        abstract: "List the runs and the tunes stored in the database.",
        discussion: """
            Runs first, then tunes, each oldest first; 'report' and 'export' take a run by its number and \
            a tune as tune:<number>. With --json, stdout holds one JSON array with an object per run, \
            oldest first, with the columns of the table: id, scenario, seed, users, days, configurations, \
            status, finished (UTC, ISO 8601) and wallSeconds; then an object per tune with kind "tune", \
            id, scenario, seed, users, candidates, recommended (null when no candidate met every \
            constraint), finished and wallSeconds. An empty database gives [].
            """,
        arguments: DatabaseOption.specs + [json])

    static let json = JSONFlag.spec.described("Print the runs and tunes as JSON on stdout instead of tables (see above).")

    let database: String
    let json: Bool

    init(arguments: ParsedArguments) throws {
        database = try DatabaseOption(arguments).path
        json = try arguments.flag(Self.json)
    }

    func run(context: CommandContext) throws {
        // An empty file is an empty database to SQLite, as is a database without tables; one that only
        // reads leaves it as it is, without a schema, and lists nothing in it.
        func empty() {
            context.stdout.write(json ? "[]\n" : "No runs in \(OutputPaths.listed(database)) yet; 'remindersim run' adds one.\n")
        }
        if OutputPaths.entry(at: database) == .regularFile,
           ((try? FileManager.default.attributesOfItem(atPath: database)[.size]) as? NSNumber)?.intValue == 0 {
            return empty()
        }
        guard let store = try StoreAccess.openUnlessEmpty(database) else { return empty() }
        let runs = try StoreAccess.perform { try store.list() }
        let tunes = try StoreAccess.perform { try store.tunes() }
        if json {
            context.stdout.write(try JSONFlag.text(runs.map(Self.jsonObject) + tunes.map(Self.jsonObject)))
            return
        }
        guard !runs.isEmpty || !tunes.isEmpty else {
            context.stdout.writeLine("No runs in \(OutputPaths.listed(database)) yet; 'remindersim run' adds one.")
            return
        }
        if runs.isEmpty {
            context.stdout.writeLine("No runs in \(OutputPaths.listed(database)) yet, only tunes; 'remindersim run' adds one.")
        } else {
            context.stdout.write(Self.runTable(runs))
        }
        if !tunes.isEmpty {
            context.stdout.writeLine("")
            context.stdout.write(Self.tuneTable(tunes))
        }
    }

    static func runTable(_ runs: [RunListing]) -> String {
        var rows = [["run", "scenario", "seed", "users", "days", "configurations", "status", "finished (UTC)", "wall"]]
        for r in runs {
            rows.append([
                String(r.id), TerminalText.printable(r.scenarioName, limit: 32), String(UInt64(bitPattern: r.seed)), Text.group(r.users),
                String(r.horizonDays), String(r.configurations), TerminalText.printable(r.status, limit: 16),
                TerminalText.printable(r.createdAt, limit: 32),
                String(format: "%.2f s", r.wallSeconds),
            ])
        }
        return TerminalText.table(rows, rightAligned: [2, 3, 4, 5, 8])
    }

    /// The tunes' table, each named as `report` and `export` take it (`tune:3`).
    static func tuneTable(_ tunes: [TuneListing]) -> String {
        var rows = [["tune", "scenario", "seed", "final users", "candidates", "recommended", "finished (UTC)", "wall"]]
        for t in tunes {
            rows.append([
                "tune:\(t.id)", TerminalText.printable(t.scenarioName, limit: 32), String(UInt64(bitPattern: t.seed)), Text.group(t.users),
                Text.group(t.candidates), t.winnerLabel.map { TerminalText.printable($0, limit: 40) } ?? "none meets the constraints",
                TerminalText.printable(t.createdAt, limit: 32), String(format: "%.2f s", t.wallSeconds),
            ])
        }
        return TerminalText.table(rows, rightAligned: [2, 3, 4, 7])
    }

    /// One run as `list --json` shows it: the table's columns, the text as stored.
    static func jsonObject(_ r: RunListing) -> [String: Any] {
        ["id": r.id, "scenario": r.scenarioName, "seed": UInt64(bitPattern: r.seed), "users": r.users, "days": r.horizonDays,
         "configurations": r.configurations, "status": r.status, "finished": r.createdAt,
         "wallSeconds": JSONFlag.number(r.wallSeconds)]
    }

    /// One tune as `list --json` shows it, told from a run by its kind.
    static func jsonObject(_ t: TuneListing) -> [String: Any] {
        ["kind": "tune", "id": t.id, "scenario": t.scenarioName, "seed": UInt64(bitPattern: t.seed), "users": t.users, "candidates": t.candidates,
         "recommended": t.winnerLabel ?? NSNull(), "finished": t.createdAt, "wallSeconds": JSONFlag.number(t.wallSeconds)]
    }
}
