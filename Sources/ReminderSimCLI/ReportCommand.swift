import Console
import Foundation
import Reporting
import Storage

/// `remindersim report`: renders a stored run again.
struct ReportCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "report",
        abstract: "Render a stored run's report (Markdown, CSV and SVG charts) again.",
        discussion: "Writes <out>/<scenario>-<run>/report.md and the files it links. Example: remindersim report latest",
        arguments: [
            .positional("run", help: "The run (a number from 'remindersim list', or 'latest')."),
            StoreAccess.databaseOption,
            StoreAccess.outputOption,
        ])

    let run: RunReference
    let database: String
    let output: String

    init(arguments: ParsedArguments) throws {
        run = try arguments.value("run", as: RunReference.self)
        database = try arguments.value("--db")
        output = try arguments.value("--out")
    }

    func run(context: CommandContext) throws {
        let store = try StoreAccess.open(database, create: false)
        let id = try StoreAccess.runID(run, in: store)
        let folder = try Self.render(id, store: store, output: output)
        context.stdout.writeLine("Report of run \(id): \((folder as NSString).appendingPathComponent("report.md"))")
    }

    /// Renders run `id` into its folder under `output`; returns the folder.
    static func render(_ id: Int64, store: RunStore, output: String) throws -> String {
        let name = try StoreAccess.perform { try store.load(id).record.scenario.name }
        let folder = StoreAccess.reportFolder(out: output, scenarioName: name, runID: id)
        return try StoreAccess.publish(folder) { partial in
            do {
                _ = try StoreAccess.perform { try ReportWriter.write(run: id, store: store, to: partial) }
            } catch let error as CocoaError {
                throw CommandError.ioError("\(folder): cannot write the report: \(CommandRunner.systemReason(error))")
            }
        }
    }
}

/// `remindersim export`: a stored run's tables as CSV files.
struct ExportCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "export",
        abstract: "Write a stored run's tables as CSV files (RFC 4180, one per table, with a header).",
        discussion: "Example: remindersim export latest --csv exports/",
        arguments: [
            .positional("run", help: "The run (a number from 'remindersim list', or 'latest')."),
            .option("--csv", valueName: "dir", help: "The folder to write the CSV files into.", required: true),
            StoreAccess.databaseOption,
        ])

    let run: RunReference
    let folder: String
    let database: String

    init(arguments: ParsedArguments) throws {
        run = try arguments.value("run", as: RunReference.self)
        folder = try arguments.value("--csv")
        database = try arguments.value("--db")
    }

    func run(context: CommandContext) throws {
        let store = try StoreAccess.open(database, create: false)
        let id = try StoreAccess.runID(run, in: store)
        let files: [String]
        do {
            files = try StoreAccess.perform { try CSVExport.write(run: id, store: store, to: folder) }
        } catch let error as CocoaError {
            throw CommandError.ioError("\(folder): cannot write CSV files: \(CommandRunner.systemReason(error))")
        }
        for f in files { context.stdout.writeLine((folder as NSString).appendingPathComponent(f)) }
    }
}
