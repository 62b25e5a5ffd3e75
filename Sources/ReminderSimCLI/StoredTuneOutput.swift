import Console
import Foundation
import Simulation
import Storage

/// A stored tune's report, worked out again from what the store keeps.
enum StoredTuneOutput {
    /// Runs tune `id` of `store` again from its stored scenario (seed and final users included) and
    /// writes its report as `tune` does; returns the folder. The search is deterministic, so it finds
    /// the same figures; should the recommendation differ from the stored one (a tune stored by
    /// another release), stderr says so.
    static func report(_ id: Int64, store: RunStore, output: String, csvSafe: Bool, dataFolder: String?,
                       context: CommandContext) throws -> String {
        try StoreAccess.checkOutputFolder(output)
        try ScenarioDataOption.check(dataFolder)
        let stored = try StoreAccess.perform { try store.loadTune(id) }
        let scenario = stored.scenario
        let recorded: RecordedLogs
        do {
            recorded = try ScenarioLoading.compileReading(scenario, path: nil, stored: true, dataFolder: dataFolder).recorded
        } catch let error as CommandError {
            throw CommandError(error.code, "tune \(id): " + error.message + ScenarioDataOption.hint(scenario, dataFolder))
        }
        try ScenarioDataOption.checkSame(recorded, scenario, stored: stored.recordedData, owner: "tune \(id)", dataFolder)
        let threads = ProcessInfo.processInfo.activeProcessorCount
        // The stored scenario has passed a scenario's checks; what a tune checks beyond them, or a
        // search far longer than the stored tune's, says the row was edited.
        func damaged(_ reason: String) -> CommandError {
            CommandError.ioError("\(OutputPaths.shown(store.database.path)): tunes.scenario_json of tune \(id): \(reason)")
        }
        var tuner: Tuner
        do {
            tuner = try Tuner(scenario: scenario, threads: threads, recorded: recorded)
        } catch {
            throw damaged(error.located)
        }
        tuner.modelDraws = SecondLookRunner.draws(stored.modelDraws, scenario: scenario)
        let estimate = try TuneCommand.estimatedSeconds(tuner, name: "tune \(id)")
        // Allowing for a machine 20 times slower, or for a tune that ran briefly.
        let took = stored.wallSeconds * Double(stored.threads) / Double(threads)
        if estimate > max(TuneCommand.defaultBudget, 20 * took) {
            throw damaged("its search would take about \(TuneCommand.duration(estimate)) here, where the tune took "
                + "\(TuneCommand.duration(stored.wallSeconds)) on \(stored.threads) thread\(stored.threads == 1 ? "" : "s") when "
                + "it was stored: the row was edited")
        }
        // The stored tune's own time is the better guess: the estimate counts every stage full.
        context.stderr.writeLine("report: tune \(id) worked out again from its scenario: \(TuneCommand.about(took)) "
            + "on \(threads) thread\(threads == 1 ? "" : "s") (it took \(TuneCommand.duration(stored.wallSeconds)) on "
            + "\(stored.threads) thread\(stored.threads == 1 ? "" : "s") when stored)")
        let printer = ProgressPrinter(io: context.io, estimate: took)
        let result: TuneResult
        do {
            result = try tuner.run { printer.show($0) }
        } catch {
            throw damaged(error.located)
        }
        printer.done()
        let winner = result.winner.map { result.candidates[$0].spec.label }
        if winner != stored.winnerLabel {
            context.stderr.writeLine(
                "remindersim: warning: tune \(id) was stored by \(stored.toolVersion) recommending "
                    + "\(stored.winnerLabel.map { "\"\($0)\"" } ?? "nothing"); worked out again here it recommends "
                    + "\(winner.map { "\"\($0)\"" } ?? "nothing")")
        }
        var report = TuneReport(result: result, wallSeconds: 0, threads: threads)
        report.liveTest = try TuneCommand.liveTestPlan(result, recorded: recorded, threads: threads, path: nil)
        return try TuneCommand.write(report, out: output, scenarioName: scenario.name, tuneID: id, csvSafe: csvSafe)
    }
}
