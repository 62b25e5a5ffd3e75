import Console
import FilePaths
import Foundation
import Reporting
import Storage

/// `remindersim export`: a stored run's tables as CSV files.
struct ExportCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "export",
        abstract: "Write a stored run's or tune's tables as CSV files (RFC 4180, one per table, with a header).",
        discussion: """
            A tune (tune:<number> or tune:latest) writes tunes.csv, tune_stages.csv, tune_candidates.csv \
            and tune_constraint_values.csv, its rows of those tables. The files of an earlier export in \
            the folder are replaced; any other file by a table's name is left alone and the export refused. \
            The decision's files (decision.csv, decision_constraints.csv, decision_checks.csv, live_test.csv) and the charts' data \
            (retention_difference.csv, daily_active_difference.csv) are not tables: they come with the report \
            folder, which 'remindersim report' writes again. \
            Examples: remindersim export latest --csv exports/; remindersim export tune:2 --csv exports/
            """,
        arguments: StoredRunSelection.specs + [csv, CSVSafeFlag.spec, csvRaw])

    static let csv = ArgumentSpec.option("--csv", valueName: "dir", help: "The folder to write the CSV files into.", required: true)
    static let csvRaw = ArgumentSpec.flag("--csv-raw", help: "Write text exactly as stored: the default, kept for scripts that name it.")

    let selection: StoredRunSelection
    let folder: String
    let safe: Bool

    init(arguments: ParsedArguments) throws {
        selection = try StoredRunSelection(arguments)
        folder = try arguments.value(Self.csv)
        safe = try arguments.flag(CSVSafeFlag.spec)
        let raw = try arguments.flag(Self.csvRaw)
        if safe && raw { throw UsageError("\(CSVSafeFlag.spec.name) and \(Self.csvRaw.name): choose one") }
    }

    func run(context: CommandContext) throws {
        try OutputPaths.checkFolder(folder, option: Self.csv.name)
        // A table's file that is the database itself (or a link to it) would be written over it.
        if let database = OutputPaths.identity(of: selection.database) {
            for name in RunStore.exportedTables + RunStore.tuneTables
            where OutputPaths.identity(of: Path.join(folder, "\(name).csv")).map({ $0 == database }) ?? false {
                throw UsageError("\(OutputPaths.shown(Path.join(folder, "\(name).csv"))): is the database this command reads; "
                    + "\(Self.csv.name) must name a folder where the export would not write over it")
            }
        }
        let (store, item) = try selection.open()
        let files: [String]
        do {
            let tables: [CSVFile]
            switch item {
            case let .run(id): tables = try StoreAccess.perform { CSVExport.files(try store.load(id)) }
            case let .tune(id): tables = try StoreAccess.perform { try CSVExport.files(tune: id, store: store) }
            }
            for table in tables { try Self.checkReplaceable(table, in: folder) }
            FolderPublishing.removeLeftovers(in: folder)
            files = try CSVExport.write(tables, to: folder, raw: !safe)
        } catch let error as CocoaError {
            throw CommandError.ioError("\(folder): cannot write CSV files: \(CommandRunner.systemReason(error))")
        }
        for f in files { context.stdout.writeLine(OutputPaths.listed(Path.join(folder, f))) }
        try StoreAccess.finishOutput(context, saved: "the tables are written to \(OutputPaths.shown(folder))", storedOnce: false)
    }

    /// An export replaces what an earlier export of the same table left at its file's place, and
    /// nothing else: a file of the user's own that happens to bear the name is refused before any
    /// file is written, as are links, folders and devices there.
    static func checkReplaceable(_ table: CSVFile, in folder: String) throws {
        let tableName = table.name.hasSuffix(".csv") ? String(table.name.dropLast(4)) : table.name
        try OutputPaths.checkReplaceable(
            Path.join(folder, table.name), what: "an export of the \(tableName) table (its first line is not that table's header)",
            advice: "move it away or name another folder with \(csv.name)"
        ) { firstLine, _ in table.isHeader(of: firstLine) }
    }
}
