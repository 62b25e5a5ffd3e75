import Console
import FilePaths
import Foundation
import Reporting
import Storage

/// `remindersim report`: renders a stored run again.
struct ReportCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "report",
        abstract: "Render a stored run's report (Markdown, CSV and SVG charts) again.",
        discussion: "Writes <out>/<scenario>-<run>/report.md and the files it links. Example: remindersim report latest",
        arguments: StoredRunSelection.specs + ReportFolderOption.specs + [CSVSafeFlag.spec])

    let selection: StoredRunSelection
    let output: String
    let csvSafe: Bool

    init(arguments: ParsedArguments) throws {
        selection = try StoredRunSelection(arguments)
        output = try ReportFolderOption(arguments).path
        csvSafe = try arguments.flag(CSVSafeFlag.spec)
    }

    func run(context: CommandContext) throws {
        try StoreAccess.checkOutputFolder(output)
        let (store, id) = try selection.open()
        let folder = try Self.render(id, store: store, output: output, csvSafe: csvSafe)
        context.stdout.writeLine("Report of run \(id): \(Path.join(folder, "report.md"))")
    }

    /// Renders run `id` of `store` into its folder under `output`; returns the folder. The run is loaded once.
    static func render(_ id: Int64, store: RunStore, output: String, csvSafe: Bool) throws -> String {
        try render(StoreAccess.perform { try store.load(id) }, output: output, csvSafe: csvSafe)
    }

    /// Renders a run loaded or just saved into its folder under `output`, from its results in memory;
    /// returns the folder. `csvSafe` as `--csv-safe`.
    static func render(_ run: StoredRun, output: String, csvSafe: Bool) throws -> String {
        let folder = StoreAccess.reportFolder(out: output, scenarioName: run.record.scenario.name, runID: run.id)
        return try StoreAccess.publish(folder) { partial in
            do {
                _ = try StoreAccess.perform { try ReportWriter.write(run, to: partial, csvSafe: csvSafe) }
            } catch let error as CocoaError {
                throw CommandError.ioError("\(folder): cannot write the report: \(CommandRunner.systemReason(error))")
            }
        }
    }
}
