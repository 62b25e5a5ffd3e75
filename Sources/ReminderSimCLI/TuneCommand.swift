import Console
import FilePaths
import Foundation
import Reporting
import Simulation
import Storage
import Synchronization

/// `remindersim tune`: searches a scenario's tune space for the configuration to ship.
struct TuneCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "tune",
        abstract: "Search the scenario's \"tune\" space for the best configuration under its constraints.",
        discussion: """
            Races every candidate of the space (timePeriods lists, inactivity sequences, mixes) and every \
            configuration the scenario lists on the same virtual users: each stage simulates the \
            remaining candidates on more users and drops those clearly infeasible or clearly worse than \
            the leader (paired intervals); the best 20 and the listed configurations still racing finish \
            at --users, the winner is re-checked on other users against the baseline and the best listed \
            configuration, and the top five are re-run with the response model changed. The result depends only on the scenario, --seed and --users, never on --threads. \
            Progress goes to stderr; the recommendation to stdout and to \
            <out>/<scenario>-tune-<n>/ (report.md, report.html, recommendation.json, candidates.csv, Pareto charts); \
            the tune and every candidate it evaluated to the database (--db). With --json, stdout holds one \
            JSON object instead of the text: tuneID, database, report (its report.md), wallSeconds, threads, \
            summary (the text otherwise printed) and recommendation (as in recommendation.json: the \
            configuration, null when no candidate meets every constraint, its estimates and the stages).
            """,
        arguments: [ScenarioFileArgument.spec.described("Scenario JSON file with a \"tune\" block, - for standard input.")]
            + SimulationArguments.options + [CSVSafeFlag.spec, budget, json, ModelDrawsArgument.spec])

    static let budget = ArgumentSpec.option("--budget", valueName: "seconds", help: """
        Refuse, before searching, a space whose search would take longer than this (estimated \
        from racing batches timed first, counting every stage full, as if no candidate left the race early).
        """, default: String(Int(defaultBudget)))
    /// `--budget` when not given, in seconds.
    static let defaultBudget = 600.0
    static let json = JSONFlag.spec.described("""
        Print the summary and the recommendation as one JSON document on stdout instead of text (see above).
        """)

    let simulation: SimulationArguments
    let csvSafe: Bool
    let budget: Double
    let json: Bool
    /// `--model-draws`, nil when not given.
    let modelDraws: Int?

    init(arguments: ParsedArguments) throws {
        simulation = try SimulationArguments(arguments)
        csvSafe = try arguments.flag(CSVSafeFlag.spec)
        budget = try arguments.value(Self.budget, expected: "a number of seconds > 0", where: { (x: Double) in x > 0 && x.isFinite })
        json = try arguments.flag(Self.json)
        modelDraws = try arguments.optionalValue(ModelDrawsArgument.spec, as: ModelDrawsArgument.self)?.draws
    }

    func run(context: CommandContext) throws {
        let scenario = try simulation.overrides.load(simulation.path)
        let name = ScenarioLoading.displayName(simulation.path) ?? "the built-in scenario"
        let (model, recorded) = try ScenarioLoading.compileReading(
            scenario, path: simulation.path, days: simulation.overrides.days)
        ScenarioLoading.warn(scenario, path: simulation.path, context: context, tunes: true)
        SecondLookRunner.warnIfNothingToDraw(modelDraws, scenario: scenario, context: context)
        var tuner: Tuner
        do {
            tuner = try Tuner(scenario: scenario, threads: simulation.threads, recorded: recorded)
            tuner.modelDraws = SecondLookRunner.draws(modelDraws, scenario: scenario)
        } catch {
            throw CommandError.dataError("\(name): \(error.located)")
        }
        // Where the results go is checked first, before a new database is made.
        try StoreAccess.checkOutputFolder(simulation.output)
        try StoreAccess.saving(into: simulation.database, inputs: [simulation.path], stderr: context.stderr) { store in
            try tuneAndSave(tuner, scenario: scenario, model: model, recorded: recorded, name: name, store: store, context: context)
        }
    }

    /// How long `tuner`'s search could take on this machine on its threads: the plan's runs and
    /// configuration-users at most (every stage full, as if no candidate left early; the users a stage
    /// takes from the stage before and the holdouts kept are not counted off), at the costs of racing
    /// batches timed here (`Tuner.cost`). `name` names the scenario in its errors.
    static func estimatedSeconds(_ tuner: Tuner, name: String) throws -> Double {
        do {
            return try tuner.cost().seconds(tuner.plan, modelDraws: tuner.modelDraws)
        } catch {
            throw CommandError.dataError("\(name): \(error.located)")
        }
    }

    /// The tune itself, from the store opened: its cost checked against the budget, raced, saved and reported.
    private func tuneAndSave(_ tuner: Tuner, scenario: Scenario, model: CompiledModel, recorded: RecordedLogs, name: String,
                             store: () throws -> RunStore, context: CommandContext) throws {
        let started = DispatchTime.now()
        let estimate = try Self.estimatedSeconds(tuner, name: name)
        let plan = tuner.plan
        context.stderr.writeLine(
            "tune: \(Self.count(plan.candidates)) candidates, stages of \(plan.stageUsers.map(Self.count).joined(separator: " → ")) users, "
                + "\(Self.about(estimate)) on \(simulation.threads) thread\(simulation.threads == 1 ? "" : "s")")
        if estimate > budget {
            throw CommandError.dataError(
                "\(name): tune.space: its \(Self.count(plan.candidates)) candidates would take \(Self.about(estimate)) at "
                    + "\(Self.count(scenario.users)) final users, over the budget of \(budget < 0.1 ? String(format: "%g s", budget) : Self.duration(budget)) (--budget): "
                    + "narrow the periods or sequence lengths, lower --users, or raise --budget")
        }

        let printer = ProgressPrinter(io: context.io, estimate: estimate)
        let result: TuneResult
        do {
            result = try tuner.run { printer.show($0) }
        } catch {
            throw CommandError.dataError("\(name): \(error.located)")
        }
        printer.done()
        let wall = RunCommand.seconds(since: started)

        let record = TuneRecord(result: result, toolVersion: ReminderSim.version,
                                createdAt: ISO8601DateFormatter().string(from: Date()), wallSeconds: wall, threads: simulation.threads,
                                modelDraws: modelDraws, recordedData: recorded.fingerprint(of: scenario))
        let tuneID = try StoreAccess.save("the tune") { try store().save(record) }
        let status = StatusLine(io: context.io)
        status.show("tune \(tuneID) is saved in \(OutputPaths.shown(simulation.database)); planning its live test and writing its report…")
        let (report, written) = try StoreAccess.reporting(saved: "tune \(tuneID)", in: simulation.database, reference: "tune:\(tuneID)") {
            var report = TuneReport(result: result, wallSeconds: wall, threads: simulation.threads)
            report.liveTest = try Self.liveTestPlan(result, recorded: recorded, threads: simulation.threads, path: simulation.path)
            return (report, try Self.write(report, out: simulation.output, scenarioName: scenario.name, tuneID: tuneID, csvSafe: csvSafe))
        }
        status.clear()
        let reportFile = Path.join(written, "report.md")
        if json {
            context.stdout.write(try report.commandJSON(tuneID: tuneID, database: simulation.database, report: reportFile))
        } else {
            context.stdout.write(report.summary())
            context.stdout.writeLine("\nSaved as tune \(tuneID) in \(OutputPaths.listed(simulation.database)); report: \(OutputPaths.listed(reportFile))")
        }
        try StoreAccess.finishOutput(context, saved: "tune \(tuneID) is saved in \(simulation.database), its report in \(written)")
    }

    /// The live-test plan of the winner against the baseline: the two simulated together on the final
    /// stage's number of users under the re-check's seed — users the race never saw, so the difference
    /// it sizes the test for carries no luck of the selection that picked the winner (the race's own
    /// figures lean its way) —, each arm's per-user mean and variance taken as independent samples, with
    /// the scenario's `liveTest` settings; and with CUPED, from the two simulated on users who already
    /// have the app. Nil without a winner.
    static func liveTestPlan(_ result: TuneResult, recorded: RecordedLogs, threads: Int, path: String?) throws -> LiveTestPlan? {
        guard let w = result.winner else { return nil }
        let winner = result.candidates[w].spec, baseline = result.baseline
        var s = result.scenario
        s.grid = nil
        s.tune = nil
        s.users = result.final.users
        s.seed = Tuner.recheckSeed(result.scenario.seed)
        s.decision = result.rule
        s.baseline = baseline.label
        let same = winner == baseline || winner.label == baseline.label
        s.configurations = same ? [baseline] : [winner, baseline]
        let sent = Set(s.configurations.flatMap { $0.reminders.flatMap(\.messages) })
        s.response.messageWeights = s.response.messageWeights.filter { sent.contains($0.key) }
        let results = try SecondLookRunner.simulate(s, recorded: recorded, threads: threads, path: path)
        let settings = s.liveTest ?? LiveTestSettings()
        let prePeriod = PrePeriodSimulation.run(s, recommended: 1, baseline: same ? 1 : 2, metric: result.rule.objective.pairMeasure,
                                                settings: settings, recorded: recorded, threads: threads)
        return results.liveTestPlan(settings: settings, recommended: 1, baseline: same ? 1 : 2, prePeriod: prePeriod)
    }

    /// Writes the report files into `<out>/<scenario>-tune-<n>`, n the first number not taken, whole or
    /// not at all (see `FolderPublishing`).
    /// Writes tune `tuneID`'s report folder, `<out>/<scenario>-tune-<id>`, whole or not at all. A folder of
    /// that name holding this very tune's report (the same recommendation.json) is replaced, as a run's
    /// is; one holding another tune's (another database's tune of the same number) is left alone and the
    /// report goes to `…-2`, `…-3`.
    static func write(_ report: TuneReport, out: String, scenarioName: String, tuneID: Int64, csvSafe: Bool) throws -> String {
        let folder = StoreAccess.reportFolder(out: out, scenarioName: scenarioName + "-tune", runID: tuneID)
        let markdown = report.markdown(), charts = report.charts()
        let html = HTMLReport.render(markdown: markdown, charts: Dictionary(charts, uniquingKeysWith: { a, _ in a }),
                                     title: "Tune: \(scenarioName)")
        let files = [("report.md", markdown), ("report.html", html), ("recommendation.json", try report.recommendationJSON()),
                     ("candidates.csv", report.candidatesCSV(tuneID: tuneID, safe: csvSafe))] + charts
        return try FolderPublishing.publish(folder, what: "the tune's report", render: { partial in
            do {
                try FileManager.default.createDirectory(atPath: partial, withIntermediateDirectories: false)
                for (file, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: Path.join(partial, file))) }
            } catch {
                // Named by where it goes: the hidden folder it is written in first means nothing to the user.
                throw CommandError.ioError("\(OutputPaths.shown(folder)): cannot write the tune's report: \(CommandRunner.systemReason(error))")
            }
        }, existing: { existing, rendered in
            let mine = FileManager.default.contents(atPath: Path.join(rendered, "recommendation.json"))
            return mine != nil && FileManager.default.contents(atPath: Path.join(existing, "recommendation.json")) == mine
                && FolderPublishing.onlyHoldsNamesOf(existing, rendered) ? .replace : .numberAnother
        })
    }

    static func count(_ n: Int) -> String {
        let f = NumberFormatter()
        f.numberStyle = .decimal
        f.locale = Locale(identifier: "en_US")
        return f.string(from: NSNumber(value: n)) ?? String(n)
    }

    /// An estimate in words: "about 3.3 s", or "under 0.1 s".
    static func about(_ seconds: Double) -> String { (seconds < 0.1 ? "" : "about ") + duration(seconds) }

    static func duration(_ seconds: Double) -> String {
        seconds < 0.1 ? "under 0.1 s" : seconds < 10 ? String(format: "%.2g s", seconds) : seconds < 90 ? String(format: "%.0f s", seconds) : seconds < 5_400 ? String(format: "%.1f min", seconds / 60)
            : String(format: "%.1f h", seconds / 3_600)
    }
}

/// Progress lines on stderr: one when a stage or phase begins, then at most one every few seconds
/// (redrawn in place on a terminal), with the candidates left and an ETA: from the estimate made
/// before the search while it has done less than `settled` of its planned work (the first batches
/// are mostly setting up, and would make it several times too long), from the work done after.
final class ProgressPrinter: Sendable {
    private struct State {
        var key = ""
        var last: UInt64 = 0
    }

    private let io: ConsoleIO
    private let state = Mutex(State())
    private let start = DispatchTime.now().uptimeNanoseconds
    /// The search's estimated seconds, from when the printer is made.
    private let estimate: Double
    static let settled = 0.05

    init(io: ConsoleIO, estimate: Double) {
        self.io = io
        self.estimate = estimate
    }

    /// Called from worker threads: the clock is read and the line written under the lock, so lines
    /// neither interleave nor see the clock go back.
    func show(_ p: TuneProgress) {
        let key = "\(p.phase) \(p.stage)"
        state.withLock { s in
            let now = DispatchTime.now().uptimeNanoseconds
            let fresh = s.key != key
            guard fresh || now >= s.last + (redraws ? 250_000_000 : 5_000_000_000) else { return }
            s.key = key
            s.last = now
            let elapsed = Double(now - start) / 1e9
            let eta = p.simulated >= Self.settled * p.planned && p.simulated > 0
                ? elapsed * max(0, p.planned - p.simulated) / p.simulated : max(0, estimate - elapsed)
            let what = p.phase == "race"
                ? "stage \(p.stage)/\(p.stages) at \(TuneCommand.count(p.users)) users: \(TuneCommand.count(p.evaluated)) of "
                    + "\(TuneCommand.count(p.entered)) evaluated, \(TuneCommand.count(p.left)) left"
                : "\(p.phase) at \(TuneCommand.count(p.users)) users, \(TuneCommand.count(p.entered)) candidate\(p.entered == 1 ? "" : "s")"
            let line = "tune: \(what), ETA \(ProgressBar.formatDuration(eta))"
            // Redrawn in place on a terminal that knows escapes, cut to its width so that it never wraps;
            // one line each time elsewhere (a file, a pipe, TERM=dumb).
            if redraws {
                io.stderr.write("\r\u{1B}[K" + String(line.prefix(Terminal.width(fd: STDERR_FILENO) ?? 80)))
            } else {
                io.stderr.writeLine(line)
            }
        }
    }

    func done() {
        if redraws { io.stderr.write("\r\u{1B}[K") }
    }

    private var redraws: Bool { io.stderrIsTerminal && io.stderrUnderstandsEscapes }
}
