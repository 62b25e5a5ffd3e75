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
    static func report(_ id: Int64, store: RunStore, output: String, csvSafe: Bool, context: CommandContext) throws -> String {
        try StoreAccess.checkOutputFolder(output)
        let stored = try StoreAccess.perform { try store.loadTune(id) }
        let scenario = stored.scenario
        let (_, recorded) = try ScenarioLoading.compileReading(scenario, path: nil)
        let threads = ProcessInfo.processInfo.activeProcessorCount
        let printer = ProgressPrinter(io: context.io)
        let result: TuneResult
        do {
            var tuner = try Tuner(scenario: scenario, threads: threads, recorded: recorded)
            tuner.modelDraws = SecondLookRunner.draws(stored.modelDraws, scenario: scenario)
            result = try tuner.run { printer.show($0) }
        } catch {
            throw CommandError.dataError("\(store.database.path): tune \(id): \(error.path.isEmpty ? "" : error.path + ": ")\(error.reason)")
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
