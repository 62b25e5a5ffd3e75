import Console
import FilePaths
import Foundation
import Reporting
import Simulation
import Storage

/// `remindersim run`: simulates a scenario and reports every configuration against the holdout.
struct RunCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "run",
        abstract: "Simulate a scenario (the built-in default when none is given) and report the results.",
        discussion: """
            Every configuration and a holdout without reminders are simulated for the same virtual \
            users. Results depend only on the scenario, the seed and the user count, never on --threads. \
            Progress goes to stderr when it is a terminal; results go to stdout.
            """,
        arguments: SimulationArguments.specs + [CSVSafeFlag.spec, stats, json, shard, allPairs, ModelDrawsArgument.spec, liveUsers])

    static let stats = StatsFlag.spec.described("Print wall time, throughput, peak memory and the share of the configurations' sessions walked before they part from the holdout to stderr.")
    static let json = JSONFlag.spec.described("""
        Print the run's summary as JSON on stdout instead of text: configurations, headline \
        measures with their intervals, paired comparisons with the baseline and the recommendation. \
        A shard prints what it saved: shard, runID, database, scenario, users, firstUser, endUser.
        """)
    static let shard = ArgumentSpec.option("--shard", valueName: "k/n", help: """
        Simulate only shard k of n (1-based) and save it as a shard run, to be combined with \
        'remindersim merge'. Each shard should have its own --db.
        """)
    static let allPairs = AllPairsFlag.spec.described("""
        Keep the paired comparison of every two configurations. By default a run of more than \
        \(PairSet.everyPairUpTo) configurations keeps each configuration against the holdout, the \
        baseline, the recommendation and the runner-up (finding the last two takes a second pass \
        over the users), so that its cost grows with the configurations rather than their square; \
        one of at most \(PairSet.everyPairUpTo) keeps every pair. A shard keeps every pair; 'merge' \
        keeps those the whole run would.
        """)

    static let liveUsers = ArgumentSpec.option("--live-users", valueName: "n", help: """
        Users the team can put in the live test of the recommendation: the report's live-test plan gives \
        the smallest difference a test of that size detects (overrides liveTest.users).
        """)

    let simulation: SimulationArguments
    /// `--live-users`, nil when not given.
    let liveUsers: Int?
    let stats: Bool
    let json: Bool
    let shard: Shard?
    let csvSafe: Bool
    let allPairs: Bool
    /// `--model-draws`, nil when not given.
    let modelDraws: Int?

    init(arguments: ParsedArguments) throws {
        simulation = try SimulationArguments(arguments)
        liveUsers = try arguments.valueIfPresent(Self.liveUsers, expected: "a whole number from 1 to 9007199254740991",
                                                 where: { (1...9_007_199_254_740_991).contains($0) })
        shard = try arguments.optionalValue(Self.shard, as: ShardArgument.self)?.shard
        stats = try arguments.flag(Self.stats)
        json = try arguments.flag(Self.json)
        csvSafe = try arguments.flag(CSVSafeFlag.spec)
        allPairs = try arguments.flag(Self.allPairs)
        modelDraws = try arguments.optionalValue(ModelDrawsArgument.spec, as: ModelDrawsArgument.self)?.draws
    }

    func run(context: CommandContext) throws {
        var scenario = try simulation.overrides.load(simulation.path)
        if let liveUsers {
            var settings = scenario.liveTest ?? LiveTestSettings()
            settings.users = liveUsers
            scenario.liveTest = settings
        }
        let (model, recorded) = try ScenarioLoading.compileReading(scenario, path: simulation.path, days: simulation.overrides.days)
        ScenarioLoading.warn(scenario, path: simulation.path, context: context)
        SecondLookRunner.warnIfNothingToDraw(modelDraws, scenario: scenario, context: context)

        // A shard with no user would be a run of nothing, merged as if it were a part of the run.
        if let shard, shard.count > scenario.users {
            throw UsageError("\(Self.shard.name) \(shard): \(shard.count) shards of \(scenario.users) user"
                + "\(scenario.users == 1 ? "" : "s") would leave some without users; split into at most \(scenario.users)")
        }
        // Where the results go is checked first: a report folder or a store that cannot be written
        // stops the run before it starts, and before a new database is made.
        if shard == nil { try StoreAccess.checkOutputFolder(simulation.output) }  // a shard writes no report
        try StoreAccess.saving(into: simulation.database, inputs: [simulation.path], stderr: context.stderr) { store in
            try simulateAndSave(scenario, model: model, recorded: recorded, store: store, context: context)
        }
    }

    /// The run itself, from the store opened: simulated, saved, second looks, report and summary.
    private func simulateAndSave(_ scenario: Scenario, model: CompiledModel, recorded: RecordedLogs,
                                 store: () throws -> RunStore, context: CommandContext) throws {
        let started = DispatchTime.now()
        let users = shard?.users(of: scenario.users) ?? 0..<scenario.users
        let progress = ProgressBar(total: users.count, label: shard.map { "shard \($0)" } ?? "simulating", io: context.io)
        // A shard cannot know the recommendation, which needs every user: it keeps every pair, and
        // merging the shards keeps the pairs the whole run would.
        let pairs: PairChoice = allPairs || shard != nil ? .all : .decision
        var options = RunOptions(threads: simulation.threads, users: users, progress: { progress.advance(by: $0) }, pairs: pairs)
        let meter = RunWorkMeter()
        if stats { options.meter = meter }
        let result = model.run(options: options)
        progress.finish()
        if let breach = result.sessionLimitBreach {
            throw ScenarioLoading.sessionLimitError(breach, in: model, path: simulation.path)
        }
        let wall = Self.seconds(since: started)

        let results = RunResults(scenario: scenario, tallies: result)
        // The second looks at the decision (the re-check on other users, the model draws or the
        // sensitivity runs) before anything is saved: one that cannot be made (a user past the session
        // limit under a changed response) leaves no run behind, as the run itself would not. A shard's
        // decision needs every user: its merge makes them.
        var second: DecisionSecondLook?
        var lookSeconds = 0.0
        if shard == nil {
            let status = StatusLine(io: context.io)
            status.show("checking the decision…")
            let looking = DispatchTime.now()
            do {
                second = try SecondLookRunner(
                    results: results, recorded: recorded, threads: simulation.threads,
                    draws: SecondLookRunner.draws(modelDraws, scenario: scenario), path: simulation.path
                ).compute()
            } catch {
                status.clear()
                throw error
            }
            status.clear()
            lookSeconds = Self.seconds(since: looking)
        }

        let storing = DispatchTime.now()
        let record = RunRecord(
            results: results, toolVersion: ReminderSim.version,
            createdAt: ISO8601DateFormatter().string(from: Date()), wallSeconds: wall, threads: simulation.threads, shard: shard,
            modelDraws: modelDraws, recordedData: recorded.fingerprint(of: scenario))
        let runID = try StoreAccess.save("the run") { try store().save(record) }
        let storeSeconds = Self.seconds(since: storing)
        if let shard {
            // A shard's numbers are a part of the run, not a result: they are reported once merged.
            if json {
                context.stdout.write(try JSONFlag.text([
                    "shard": "\(shard)", "runID": runID, "database": simulation.database, "scenario": scenario.name,
                    "firstUser": users.lowerBound, "endUser": users.upperBound, "users": scenario.users,
                    "next": "remindersim merge SHARD-DB... --into DB",
                ] as [String: Any]))
            } else {
                context.stdout.writeLine(
                    "Shard \(shard) (users \(users.lowerBound)..<\(users.upperBound) of \(scenario.users)) saved as run \(runID) in \(OutputPaths.listed(simulation.database)).")
                context.stdout.writeLine("Combine the shards with: remindersim merge SHARD-DB... --into DB")
            }
            // Said when what was saved cannot be printed, so that the shard is not run (and stored) twice.
            try StoreAccess.finishOutput(context, saved: "shard \(shard) is saved as run \(runID) in \(simulation.database)")
            if stats { printStats(context, results: results, users: users.count, wall: wall, store: storeSeconds, report: 0, look: 0, meter: meter) }
            return
        }

        // Said while it lasts, and left standing if the command is stopped before the report is written.
        let status = StatusLine(io: context.io)
        status.show("run \(runID) is saved in \(OutputPaths.shown(simulation.database)); writing its report…")

        // The report is written before anything is printed: a reader that stops early (`| head`)
        // still leaves a run with its report.
        let rendering = DispatchTime.now()
        // Rendered from the results in memory: the saved run reads back to the same results.
        let folder = try StoreAccess.reporting(saved: "run \(runID)", in: simulation.database, reference: "\(runID)") {
            try ReportCommand.render(StoredRun(id: runID, record: record), output: simulation.output, csvSafe: csvSafe,
                                     secondLook: second)
        }
        let renderSeconds = Self.seconds(since: rendering)
        status.clear()
        let report = Path.join(folder, "report.md")
        if json {
            context.stdout.write(RunJSON.render(results, runID: runID, report: report, secondLook: second))
        } else {
            context.stdout.write(SummaryText.render(results, wallSeconds: wall, threads: simulation.threads, secondLook: second))
            context.stdout.writeLine("\nSaved as run \(runID) in \(OutputPaths.listed(simulation.database)); report: \(OutputPaths.listed(report))")
        }
        try StoreAccess.finishOutput(context, saved: "run \(runID) is saved in \(simulation.database), its report in \(folder)")
        if stats {
            printStats(context, results: results, users: scenario.users, wall: wall, store: storeSeconds, report: renderSeconds,
                       look: lookSeconds, meter: meter)
        }
    }

    /// `--stats`: the run's figures on stderr (a shard's: its users, no report or second look).
    func printStats(_ context: CommandContext, results: RunResults, users: Int, wall: Double, store: Double, report: Double,
                    look: Double, meter: RunWorkMeter) {
        let sessions = results.sessions
        let perCore = Double(sessions) / wall / Double(min(simulation.threads, ProcessInfo.processInfo.activeProcessorCount))
        context.stderr.writeLine(String(
            format: "stats: users %d, wall %.3f s, sessions %lld, %.0f sessions/s per core, threads %d, peak RSS %.1f MB, store %.3f s, report %.3f s, decision checks %.3f s, "
                + "configuration sessions %lld, before divergence %.1f%%",
            users, wall, sessions, perCore, simulation.threads, ResourceUsage.peakResidentMegabytes, store,
            report, look, meter.configurationSessions,
            100 * Double(meter.sessionsBeforeDivergence) / Double(max(meter.configurationSessions, 1))))
    }

    static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}

/// `--shard k/n` on the command line.
struct ShardArgument: ArgumentValue {
    let shard: Shard

    init(argument: String) throws(ArgumentValueError) {
        guard let shard = Shard(argument) else {
            throw ArgumentValueError(expected: "k/n with whole numbers 1 ≤ k ≤ n, such as 2/8")
        }
        self.shard = shard
    }
}
