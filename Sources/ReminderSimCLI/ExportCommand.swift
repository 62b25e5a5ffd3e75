import Console
import FilePaths
import Foundation
import Reporting
import Storage

/// `remindersim export`: a stored run's tables as CSV files.
struct ExportCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "export",
        abstract: "Write a stored run's tables as CSV files (RFC 4180, one per table, with a header).",
        discussion: "Example: remindersim export latest --csv exports/",
        arguments: StoredRunSelection.specs + [csv, csvRaw])

    static let csv = ArgumentSpec.option("--csv", valueName: "dir", help: "The folder to write the CSV files into.", required: true)
    static let csvRaw = ArgumentSpec.flag("--csv-raw", help: """
        Write text exactly as stored, without the leading ' that keeps a spreadsheet from running \
        a cell as a formula: for pipelines that never open a spreadsheet.
        """)

    let selection: StoredRunSelection
    let folder: String
    let raw: Bool

    init(arguments: ParsedArguments) throws {
        selection = try StoredRunSelection(arguments)
        folder = try arguments.value(Self.csv)
        raw = try arguments.flag(Self.csvRaw)
    }

    func run(context: CommandContext) throws {
        try OutputPaths.checkFolder(folder, option: Self.csv.name)
        let (store, id) = try selection.open()
        let files: [String]
        do {
            files = try StoreAccess.perform { try CSVExport.write(run: id, store: store, to: folder, raw: raw) }
        } catch let error as CocoaError {
            throw CommandError.ioError("\(folder): cannot write CSV files: \(CommandRunner.systemReason(error))")
        }
        for f in files { context.stdout.writeLine(Path.join(folder, f)) }
    }
}
