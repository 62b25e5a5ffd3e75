import Console
import FilePaths
import Foundation
import Reporting
import Simulation
import Storage

/// `remindersim merge`: combines the shards of one run into the whole run.
struct MergeCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "merge",
        abstract: "Combine the shards of a split run into one run, identical to running it whole.",
        discussion: """
            Each SHARD-DB is a database written by 'remindersim run --shard k/n'; every shard run in it is \
            used. All shards must come from the same scenario, seed and user count, and every shard 1..n \
            must be there exactly once. The merged run is saved into --into and its report rendered under --out.
            """,
        arguments: [shardDatabases, into, allPairs] + ReportFolderOption.specs + [CSVSafeFlag.spec] + ScenarioDataOption.specs)

    static let shardDatabases = ArgumentSpec.variadic("shard-db", help: "Databases holding the shard runs.")
    static let into = ArgumentSpec.option("--into", valueName: "path", help: "The database to save the merged run into.", required: true)
    static let allPairs = AllPairsFlag.spec.described("""
        Keep the paired comparison of every two configurations, as 'run --all-pairs' does. By \
        default the merged run keeps the pairs the whole run would: every pair for at most \
        \(PairSet.everyPairUpTo) configurations, else each configuration against the holdout, the \
        baseline, the recommendation and the runner-up.
        """)

    let shardDatabases: [String]
    let into: String
    let output: String
    let csvSafe: Bool
    let allPairs: Bool
    let dataFolder: String?

    init(arguments: ParsedArguments) throws {
        shardDatabases = try arguments.values(Self.shardDatabases)
        if shardDatabases.isEmpty { throw UsageError("missing shard databases to merge") }
        into = try arguments.value(Self.into)
        output = try ReportFolderOption(arguments).path
        csvSafe = try arguments.flag(CSVSafeFlag.spec)
        allPairs = try arguments.flag(Self.allPairs)
        dataFolder = try ScenarioDataOption(arguments).folder
    }

    /// The `--model-draws` the merged run records, whatever the shards' order: what every shard was
    /// run with when they agree; otherwise (the default beside the number it stands for, or numbers
    /// for a response with nothing to draw) the draws they come to, or none when there is nothing to draw.
    static func storedDraws(_ draws: [Int?], effective: Int) -> Int? {
        guard let first = draws.first, draws.allSatisfy({ $0 == first }) else { return effective > 0 ? effective : nil }
        return first
    }

    func run(context: CommandContext) throws {
        // Where the merged run's report goes is checked before any shard is read.
        try StoreAccess.checkOutputFolder(output)
        try ScenarioDataOption.check(dataFolder)
        try StoreAccess.checkName(into, option: Self.into.name)
        var shards: [(source: String, run: StoredRun)] = []
        for path in shardDatabases {
            let store = try StoreAccess.open(path, create: false, option: Self.shardDatabases.name)
            let found = try StoreAccess.perform { try store.list().filter { $0.status == "shard" } }
            if found.isEmpty {
                throw CommandError.dataError("\(OutputPaths.shown(path)): holds no shard run (written by 'remindersim run --shard k/n')")
            }
            for listing in found {
                shards.append(("\(OutputPaths.shown(path)) run \(listing.id)", try StoreAccess.perform { try store.load(listing.id) }))
            }
        }
        let merged = try StoreAccess.perform { try ShardMerge.merge(shards, keepEveryPair: allPairs) }
        // The shards' second look is the merged run's: they must have asked for the same model draws.
        let draws = shards.map(\.run.record.modelDraws)
        // Compared as the draws they come to: --model-draws 32 is the default for an uncertain response.
        let effective = shards.map { SecondLookRunner.draws($0.run.record.modelDraws, scenario: $0.run.results.scenario) }
        if let different = shards.indices.first(where: { effective[$0] != effective[0] }) {
            func shown(_ k: Int?) -> String { k.map { "--model-draws \($0)" } ?? "the default model draws" }
            throw CommandError.dataError("\(shards[different].source): ran with \(shown(draws[different])), but "
                + "\(shards[0].source) with \(shown(draws[0])); shards of one run are run alike")
        }

        // Shards that read different recorded logs are parts of no one run (shards stored before the
        // fingerprint was kept carry none, and are taken as they are).
        let fingerprints = shards.compactMap { shard in shard.run.record.recordedData.map { (shard.source, $0) } }
        if let first = fingerprints.first, let other = fingerprints.first(where: { $0.1 != first.1 }) {
            throw CommandError.dataError("\(other.0): read other recorded logs than \(first.0) (their visits differ); shards of "
                + "one run read the same logs")
        }
        let record = RunRecord(
            results: merged, toolVersion: ReminderSim.version,
            createdAt: ISO8601DateFormatter().string(from: Date()),
            wallSeconds: shards.reduce(0) { $0 + $1.run.record.wallSeconds },
            threads: shards.map(\.run.record.threads).max() ?? 1, modelDraws: Self.storedDraws(draws, effective: effective[0]),
            recordedData: fingerprints.first?.1)
        // The merged run's second look before it is saved: one that cannot be made leaves no run
        // behind, as `run` leaves none (it is worked out from the shards' scenario, named so).
        let status = StatusLine(io: context.io)
        status.show("checking the decision…")
        let second: DecisionSecondLook?
        do {
            second = try ReportCommand.recomputedSecondLook(
                StoredRun(id: 0, record: record), dataFolder: dataFolder,
                source: "the shards' scenario \"\(TerminalText.printable(merged.scenario.name))\"")
        } catch {
            status.clear()
            throw error
        }
        let store = try StoreAccess.open(into, create: true, option: Self.into.name, stderr: context.stderr)
        let id = try StoreAccess.save("the merged run") { try store.save(record) }
        let run = StoredRun(id: id, record: record)
        status.show("run \(id) is saved in \(OutputPaths.shown(into)); writing its report…")
        let folder = try StoreAccess.reporting(saved: "run \(id)", in: into, reference: "\(id)") {
            try ReportCommand.render(run, output: output, csvSafe: csvSafe, secondLook: second)
        }
        status.clear()
        context.stdout.writeLine(
            "Merged \(shards.count) shard\(shards.count == 1 ? "" : "s") of \"\(TerminalText.printable(merged.scenario.name))\" into run \(id) in \(OutputPaths.listed(into)); "
                + "report: \(OutputPaths.listed(Path.join(folder, "report.md")))")
        try StoreAccess.finishOutput(context, saved: "run \(id) is saved in \(into), its report in \(folder)")
    }
}
