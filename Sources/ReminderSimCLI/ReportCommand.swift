import Console
import FilePaths
import Foundation
import Reporting
import Simulation
import Storage

/// `remindersim report`: renders a stored run again.
struct ReportCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "report",
        abstract: "Render a stored run's or tune's report (Markdown, HTML, CSV and SVG charts) again.",
        discussion: """
            Writes <out>/<scenario>-<run>/report.md and the files it links. A tune (tune:<number> or \
            tune:latest) is worked out again from its stored scenario, seed, users and model draws, which \
            gives the same figures and takes about as long as the tune did; its report goes to \
            <out>/<scenario>-tune-<n>/ as 'tune' writes it. \
            Examples: remindersim report latest; remindersim report tune:latest
            """,
        arguments: StoredRunSelection.specs + ReportFolderOption.specs + [CSVSafeFlag.spec] + ScenarioDataOption.specs)

    let selection: StoredRunSelection
    let output: String
    let csvSafe: Bool
    let dataFolder: String?

    init(arguments: ParsedArguments) throws {
        selection = try StoredRunSelection(arguments)
        output = try ReportFolderOption(arguments).path
        csvSafe = try arguments.flag(CSVSafeFlag.spec)
        dataFolder = try ScenarioDataOption(arguments).folder
    }

    func run(context: CommandContext) throws {
        try StoreAccess.checkOutputFolder(output)
        try ScenarioDataOption.check(dataFolder)
        switch try selection.open() {
        case let (store, .run(id)):
            // The second look is worked out again (under model draws, as long as the run's own simulation):
            // a terminal is told so while it lasts.
            let status = StatusLine(io: context.io)
            status.show("run \(id): checking its decision again and writing its report…")
            let folder: String
            do {
                folder = try Self.render(id, store: store, output: output, csvSafe: csvSafe, dataFolder: dataFolder)
            } catch {
                status.clear()
                throw error
            }
            status.clear()
            context.stdout.writeLine("Report of run \(id): \(OutputPaths.listed(Path.join(folder, "report.md")))")
            try StoreAccess.finishOutput(context, saved: "the report is written to \(folder)", storedOnce: false)
        case let (store, .tune(id)):
            let folder = try StoredTuneOutput.report(id, store: store, output: output, csvSafe: csvSafe, dataFolder: dataFolder,
                                                     context: context)
            context.stdout.writeLine("Report of tune \(id): \(OutputPaths.listed(Path.join(folder, "report.md")))")
            try StoreAccess.finishOutput(context, saved: "the report is written to \(folder)", storedOnce: false)
        }
    }

    /// Renders run `id` of `store` into its folder under `output`; returns the folder. The run is loaded
    /// once. Its recorded logs, if its scenario reads any, are read relative to `dataFolder`.
    static func render(_ id: Int64, store: RunStore, output: String, csvSafe: Bool, dataFolder: String?) throws -> String {
        let run = try StoreAccess.perform { try store.load(id) }
        return try render(run, output: output, csvSafe: csvSafe, secondLook: recomputedSecondLook(run, dataFolder: dataFolder))
    }

    /// The second looks at a stored run's decision, worked out again from its scenario, seed and users
    /// (deterministic, so the same figures as when it ran, with the default number of model draws);
    /// nil for a shard, whose decision needs every user. A scenario that reads recorded logs reads them
    /// relative to `dataFolder` (the working folder by default); when they cannot be read the report
    /// cannot be the run's, and nothing is written: the error says where the logs were looked for.
    /// Errors name the scenario as `source`, by default as the stored run's.
    static func recomputedSecondLook(_ run: StoredRun, dataFolder: String?, source: String? = nil) throws -> DecisionSecondLook? {
        guard run.record.shard == nil else { return nil }
        let scenario = run.results.scenario
        let recorded: RecordedLogs
        do {
            recorded = try ScenarioLoading.compileReading(scenario, path: nil, stored: true, dataFolder: dataFolder).recorded
        } catch let error as CommandError {
            throw CommandError(error.code, "\(source ?? "run \(run.id)"): its second look cannot be worked out again: \(error.message)"
                + ScenarioDataOption.hint(scenario, dataFolder))
        }
        try ScenarioDataOption.checkSame(recorded, scenario, stored: run.record.recordedData, owner: source ?? "run \(run.id)", dataFolder)
        return try SecondLookRunner(
            results: run.results, recorded: recorded, threads: ProcessInfo.processInfo.activeProcessorCount,
            draws: SecondLookRunner.draws(run.record.modelDraws, scenario: scenario), path: nil,
            source: source ?? SecondLookRunner.stored(run.id, scenario)
        ).compute()
    }

    /// Renders a run loaded or just saved into its folder under `output`, from its results in memory;
    /// returns the folder. `csvSafe` as `--csv-safe`.
    static func render(_ run: StoredRun, output: String, csvSafe: Bool, secondLook: DecisionSecondLook?) throws -> String {
        let folder = StoreAccess.reportFolder(out: output, scenarioName: run.record.scenario.name, runID: run.id)
        return try StoreAccess.publish(folder) { partial in
            do {
                _ = try StoreAccess.perform { try ReportWriter.write(run, to: partial, csvSafe: csvSafe, secondLook: secondLook) }
            } catch let error as CocoaError {
                throw CommandError.ioError("\(folder): cannot write the report: \(CommandRunner.systemReason(error))")
            }
        }
    }
}
