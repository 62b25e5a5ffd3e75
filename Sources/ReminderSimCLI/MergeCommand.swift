import Console
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
        arguments: [
            .variadic("shard-db", help: "Databases holding the shard runs."),
            .option("--into", valueName: "path", help: "The database to save the merged run into.", required: true),
            StoreAccess.outputOption,
        ])

    let shardDatabases: [String]
    let into: String
    let output: String

    init(arguments: ParsedArguments) throws {
        shardDatabases = try arguments.values("shard-db")
        if shardDatabases.isEmpty { throw UsageError("missing shard databases to merge") }
        into = try arguments.value("--into")
        output = try arguments.value("--out")
    }

    func run(context: CommandContext) throws {
        var shards: [(source: String, run: StoredRun)] = []
        for path in shardDatabases {
            let store = try StoreAccess.open(path, create: false)
            let found = try StoreAccess.perform { try store.list().filter { $0.status == "shard" } }
            if found.isEmpty { throw CommandError.dataError("\(path): holds no shard run (written by 'remindersim run --shard k/n')") }
            for listing in found {
                shards.append(("\(path) run \(listing.id)", try StoreAccess.perform { try store.load(listing.id) }))
            }
        }
        let merged = try Self.merge(shards)

        let store = try StoreAccess.open(into, create: true)
        let record = RunRecord(
            scenario: merged.scenario, tallies: merged.tallies, toolVersion: Remindersim.version,
            createdAt: ISO8601DateFormatter().string(from: Date()),
            wallSeconds: shards.reduce(0) { $0 + $1.run.record.wallSeconds },
            threads: shards.map(\.run.record.threads).max() ?? 1)
        let id = try StoreAccess.perform { try store.save(record) }
        let folder = try ReportCommand.render(id, store: store, output: output)
        context.stdout.writeLine(
            "Merged \(shards.count) shards of \"\(TerminalText.printable(merged.scenario.name))\" into run \(id) in \(into); "
                + "report: \((folder as NSString).appendingPathComponent("report.md"))")
    }

    /// The whole run from its shards, after checking they belong together and cover every user once.
    static func merge(_ shards: [(source: String, run: StoredRun)]) throws -> (scenario: Scenario, tallies: RunTallies) {
        guard let first = shards.first else { throw UsageError("missing shard databases to merge") }
        let reference = first.run.record
        let referenceJSON = try reference.scenario.canonicalJSON()
        guard let count = reference.shard?.count else { throw CommandError.dataError("\(first.source): not a shard") }
        var problems: [String] = []
        var byIndex: [Int: String] = [:]
        for (source, run) in shards {
            let r = run.record
            guard let shard = r.shard else {
                problems.append("\(source): not a shard")
                continue
            }
            if r.scenario.seed != reference.scenario.seed {
                problems.append("\(source): seed \(r.scenario.seed), but \(first.source) has seed \(reference.scenario.seed)")
            } else if r.scenario.users != reference.scenario.users {
                problems.append("\(source): \(r.scenario.users) users, but \(first.source) has \(reference.scenario.users)")
            } else if try r.scenario.canonicalJSON() != referenceJSON {
                problems.append("\(source): a different scenario from \(first.source) (\"\(r.scenario.name)\")")
            }
            if shard.count != count {
                problems.append("\(source): shard \(shard.index + 1)/\(shard.count), but \(first.source) is one of \(count)")
                continue
            }
            let expected = Shard(index: shard.index + 1, count: count)!.users(of: r.scenario.users)
            if r.tallies.users != expected {
                problems.append("\(source): covers users \(r.tallies.users), expected \(expected) for shard \(shard.index + 1)/\(count)")
            }
            if let other = byIndex[shard.index] {
                problems.append("shard \(shard.index + 1)/\(count) appears twice: \(other) and \(source)")
            } else {
                byIndex[shard.index] = source
            }
        }
        if problems.isEmpty {
            for i in 0..<count where byIndex[i] == nil { problems.append("shard \(i + 1)/\(count) is missing") }
        }
        if !problems.isEmpty {
            throw CommandError.dataError("cannot merge these shards:\n" + problems.joined(separator: "\n"))
        }
        var total = RunTallies(
            tallies: reference.tallies.tallies.map { Tally(layout: $0.layout) }, users: 0..<reference.scenario.users)
        for (_, run) in shards.sorted(by: { $0.run.record.shard!.index < $1.run.record.shard!.index }) {
            total.merge(run.record.tallies)
        }
        return (reference.scenario, total)
    }
}
