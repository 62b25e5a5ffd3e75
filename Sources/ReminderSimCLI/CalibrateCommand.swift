import Calibration
import Console
import FilePaths
import Foundation
import Reporting
import Simulation

/// `remindersim calibrate`: the response model fitted to a past experiment's arms.
struct CalibrateCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "calibrate",
        abstract: "Fit the response model to the results of a past live test and write the calibrated scenario.",
        discussion: """
            RESULTS.csv has one row per arm of the test: arm (a configuration label of the scenario, or holdout), \
            users, delivered, opens, opt_outs, and optionally retained_d7, retained_d30, attributed (totals per \
            arm). The chosen response parameters are fitted by simulated minimum distance: the arms are \
            simulated with the same users at every trial point (common random numbers) and Nelder–Mead \
            minimises the squared differences of the per-user rates, each weighted by its sampling variance. \
            From 40,000 users per arm the fit goes in stages: the Nelder–Mead search on a sixteenth of the \
            users (at least 10,000), then Gauss–Newton steps on all of them; the schedule is printed. \
            Prints the fitted values with 95% intervals, every moment observed and simulated, and a \
            goodness-of-fit statistic; writes the scenario with the fitted response block, ready for run. \
            Parameters the arms cannot identify are refused with the reason (exit 65). Example: \
            remindersim calibrate my-app.json past-test.csv --fit baseResponse,optOutPerDelivery
            """,
        arguments: [scenario, results, fit, holdOut, users, seed] + ThreadsOption.specs + [output])

    static let scenario = ArgumentSpec.positional("scenario", help: "The scenario the test ran: its population and configurations.")
    static let results = ArgumentSpec.positional("results", help: "The test's results, one row per arm.")
    static let fit = ArgumentSpec.option("--fit", valueName: "names", help: """
        Comma-separated response parameters to fit: baseResponse, fatigue, optOutPerDelivery, quietFactor, \
        dormantFactor. Fatigue needs arms that differ in how many notifications they send in a row.
        """, default: "baseResponse,optOutPerDelivery")
    static let holdOut = ArgumentSpec.option("--hold-out", valueName: "arm", help: """
        Leave this arm out of the fit, then predict it with the fitted model (under draws of the fitted \
        parameters) and print its observed rates against the prediction: whether the calibration can be \
        trusted for a configuration it was not fitted on.
        """)
    /// The shared `--users` and `--seed`, here for the simulated arms rather than over a scenario.
    static let users = ScenarioOverrides.users.described(
        "Virtual users simulated per arm for the fit (the search runs on a sixteenth of them, at least 10,000, when that is "
            + "a quarter or less).", default: "20000")
    static let seed = ScenarioOverrides.seed.described("Seed of the simulated users (default: the scenario's).")
    /// The shared `--out`, here a file rather than a folder of reports.
    static let output = ReportFolderOption.spec.described(
        "Where the calibrated scenario goes (default: beside the scenario, as NAME-calibrated.json).", valueName: "file")

    let scenarioPath: String
    let resultsPath: String
    let parameters: [ResponseParameter]
    let holdOut: String?
    let users: Int
    let seed: UInt64?
    let threads: Int
    let output: String

    init(arguments: ParsedArguments) throws {
        scenarioPath = try arguments.value(Self.scenario)
        resultsPath = try arguments.value(Self.results)
        try InputFile.requireStandardInputOnce([scenarioPath, resultsPath])
        let names: String = try arguments.value(Self.fit)
        var chosen: [ResponseParameter] = []
        for name in names.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let p = ResponseParameter(rawValue: name) else {
                throw UsageError("\(Self.fit.name): unknown parameter \"\(name)\"; choose from "
                    + ResponseParameter.allCases.map(\.rawValue).joined(separator: ", "))
            }
            if !chosen.contains(p) { chosen.append(p) }
        }
        if chosen.isEmpty { throw UsageError("\(Self.fit.name): name at least one parameter") }
        parameters = chosen
        holdOut = try arguments.optionalValue(Self.holdOut)
        users = try arguments.value(Self.users, expected: "a whole number from 100 to 10000000",
                                    where: { (100...10_000_000).contains($0) })
        seed = try ScenarioOverrides.seed(arguments)
        threads = try ThreadsOption(arguments).count
        // A scenario read from standard input is saved, calibrated, in the working folder.
        let fromInput = scenarioPath == ScenarioLoading.standardInput
        output = try arguments.optionalValue(Self.output)
            ?? Path.join(fromInput ? "" : Path.parent(scenarioPath),
                         "\(fromInput ? "scenario" : Path.stem(scenarioPath))-calibrated.json")
    }

    func run(context: CommandContext) throws {
        // Where the calibrated scenario goes is checked first: never over an input, a link or a device.
        try OutputPaths.checkFile(output, option: Self.output.name,
                                  inputs: [scenarioPath, resultsPath].filter { $0 != ScenarioLoading.standardInput })
        let (scenario, recorded, loaded) = try Self.load(scenarioPath, resultsPath, context: context)
        // Nor over a recorded log the scenario reads, known once the scenario is.
        try OutputPaths.checkFile(output, option: Self.output.name,
                                  inputs: RecordedLogs.files(of: scenario, folder: ScenarioLoading.dataFolder(scenarioPath)))
        let results = try holdOut.map { try Self.without($0, loaded) } ?? loaded
        var options = Calibration.Options()
        options.users = users
        options.seed = seed
        options.threads = threads
        let started = DispatchTime.now()
        let calibration: Calibration
        do {
            calibration = try Calibration.fit(
                scenario: scenario, recorded: recorded, results: results,
                parameters: parameters, options: options)
        } catch {
            throw Self.commandError(error, scenarioPath: scenarioPath, resultsPath: resultsPath)
        }
        let seconds = RunCommand.seconds(since: started)
        context.stdout.write(Self.render(calibration, start: scenario, results: InputFile.displayName(resultsPath), options: options))
        if let holdOut {
            let predictions: ArmPredictions
            do {
                predictions = try ArmPredictions.predict(
                    scenario: calibration.scenario, recorded: recorded, results: loaded,
                    draws: UncertainDecision.defaultDraws, options: ArmPredictions.unseenUsers(options, scenario: scenario))
            } catch {
                throw Self.commandError(error, scenarioPath: scenarioPath, resultsPath: resultsPath)
            }
            context.stdout.write(Self.renderHeldOut(predictions, arm: holdOut))
        }
        // The description says what was calibrated, so the file does not read as the uncalibrated one.
        var calibrated = calibration.scenario
        let fitted = calibration.estimates.map {
            "\($0.parameter.rawValue) \(Self.number($0.value)) (\(Self.number($0.lower))–\(Self.number($0.upper)))"
        }
        let source = resultsPath == "-" ? "standard input" : Path.lastComponent(resultsPath)
        let note = "Response calibrated on \(source): \(fitted.joined(separator: ", "))."
        // A scenario calibrated before keeps its own words, not the earlier calibration's note.
        let own = scenario.description.map { text in
            text.range(of: "Response calibrated on ").map { String(text[..<$0.lowerBound]).trimmingCharacters(in: .whitespaces) } ?? text
        }
        calibrated.description = [own, note].compactMap { $0?.isEmpty == false ? $0 : nil }.joined(separator: " ")
        calibrated = Self.dataPaths(of: calibrated, from: ScenarioLoading.dataFolder(scenarioPath), writtenTo: output)
        do {
            // Written beside its place first and renamed into place; a killed command's partial file is
            // removed by the next one writing there.
            try ReportFiles.writeAll([(Path.lastComponent(output), Data(try calibrated.canonicalJSON().utf8))],
                                     into: Path.folder(of: output))
        } catch {
            throw CommandError.ioError("\(OutputPaths.shown(output)): cannot write the calibrated scenario: \(CommandRunner.systemReason(error))")
        }
        context.stdout.writeLine("\nCalibrated scenario: \(OutputPaths.listed(output)) (run it with: remindersim run \(Path.shellArgument(output)))")
        context.stdout.writeLine("It carries the fitted parameters' covariance (log-odds) as response.uncertainty: run and tune "
            + "decide under \(UncertainDecision.defaultDraws) draws of it (--model-draws K to change).")
        context.stderr.writeLine(String(format: "calibrate: %d simulations in %.1f s", calibration.evaluations, seconds))
        try StoreAccess.finishOutput(context, saved: "the calibrated scenario is written to \(output)", storedOnce: false)
    }

    /// `scenario`, to be written at `output`, with its recorded logs still found: a relative `data` path is
    /// read from the folder of the file that names it, so a scenario written to another folder than
    /// `folder` (the one it was read from; nil: the working folder) names them by absolute paths.
    static func dataPaths(of scenario: Scenario, from folder: String?, writtenTo output: String) -> Scenario {
        guard (folder ?? "") != Path.parent(output) else { return scenario }
        func absolute(_ source: RecordedSource) -> RecordedSource {
            guard source.path.utf8.first != UInt8(ascii: "/") else { return source }
            var moved = source
            let resolved = Path.resolve(Path.resolve(source.path, relativeTo: folder), relativeTo: FileManager.default.currentDirectoryPath)
            moved.path = URL(fileURLWithPath: resolved).standardizedFileURL.path
            return moved
        }
        var s = scenario
        for i in s.population.segments.indices {
            switch s.population.segments[i].returns {
            case let .recordedGaps(source): s.population.segments[i].returns = .recordedGaps(absolute(source))
            case let .replay(source): s.population.segments[i].returns = .replay(absolute(source))
            case .parametric, .empirical: break
            }
        }
        return s
    }

    /// The scenario, its recorded logs and the results file, each read and checked, for calibrate and readout.
    static func load(_ scenarioPath: String, _ resultsPath: String, context: CommandContext) throws
        -> (Scenario, RecordedLogs, ExperimentResults) {
        let scenario = try ScenarioLoading.load(scenarioPath)
        // The scenario is checked whole (recorded logs included) before the results are read.
        let recorded = try ScenarioLoading.compileReading(scenario, path: scenarioPath).recorded
        ScenarioLoading.warn(scenario, path: scenarioPath, context: context)
        let text = try ScenarioLoading.readText(resultsPath, kind: "a results file")
        do {
            return (scenario, recorded, try ExperimentResults.parse(text, file: InputFile.displayName(resultsPath)))
        } catch {
            throw CommandError.dataError(error.description)
        }
    }

    /// A calibration's or a prediction's failure as the command reports it.
    static func commandError(_ error: Error, scenarioPath: String, resultsPath: String) -> Error {
        switch error {
        case let error as CalibrationError:
            // Named as the results file's own problems are: file:line: reason.
            return CommandError.dataError("\(InputFile.displayName(resultsPath))\(error.line.map { ":\($0)" } ?? ""): \(error.description)")
        case let error as RecordedDataError:
            // The recorded logs were read and checked with the scenario; every trial point uses them as read.
            return ScenarioLoading.commandError(error, message: "\(InputFile.displayName(scenarioPath)): \(error.description)")
        default:
            return error
        }
    }

    /// The results without the arm `label`, which must be one of them and not leave the fit without arms.
    static func without(_ label: String, _ results: ExperimentResults) throws -> ExperimentResults {
        guard results.arms.contains(where: { $0.label == label }) else {
            throw UsageError("\(Self.holdOut.name): the results have no arm \"\(TerminalText.printable(label))\" (their arms: "
                + results.arms.map { TerminalText.printable($0.label) }.joined(separator: ", ") + ")")
        }
        let rest = results.arms.filter { $0.label != label }
        guard !rest.isEmpty else { throw UsageError("\(Self.holdOut.name): the results have no other arm to fit on") }
        return ExperimentResults(arms: rest)
    }

    /// The held-out arm observed against the calibrated model's prediction.
    static func renderHeldOut(_ p: ArmPredictions, arm: String) -> String {
        let moments = p.moments.filter { $0.arm == arm }
        let outside = moments.filter { abs($0.z) > 1.959_964 }
        return "\nThe held-out arm \(TerminalText.printable(arm)), predicted by the model fitted without it ("
            + "\(Text.group(Int64(p.simulatedUsers))) simulated users"
            + (p.draws > 0 ? ", \(p.draws) draws of the fitted parameters" : "") + "):\n"
            + TerminalText.table(ReadoutCommand.predictionRows(moments), rightAligned: [2, 3, 4, 5, 6])
            + (outside.isEmpty
                ? "Every rate of the held-out arm falls within its 95% prediction interval.\n"
                : "Outside its 95% prediction interval: \(outside.map(\.name).joined(separator: ", ")): the calibrated model "
                    + "does not carry over to this configuration as it stands.\n")
    }

    static func render(_ c: Calibration, start: Scenario, results: String, options: Calibration.Options) -> String {
        let arms = Set(c.moments.map(\.arm)).count
        var out = "Calibrating the response of \"\(TerminalText.printable(start.name, limit: 80))\" on \(arms) arm\(arms == 1 ? "" : "s") of \(results): "
            + "\(Text.group(Int64(options.users))) simulated users per arm, seed \(options.seed ?? start.seed).\n\n"
        var rows = [["parameter", "start", "fitted", "95% interval"]]
        for e in c.estimates {
            rows.append([e.parameter.rawValue, number(e.parameter.value(in: start.response)), number(e.value),
                         "\(number(e.lower)) – \(number(e.upper))"])
        }
        out += TerminalText.table(rows, rightAligned: [1, 2, 3])
        out += c.converged ? "" : "(the optimiser stopped before converging: treat the values as rough)\n"
        out += schedule(c.stages)

        out += "\nPer-user rates, observed in the test and simulated at the fit, with 95% intervals; z is their difference\n"
            + "over its standard error. Both intervals take the per-user spread the fitted model gives (the results hold\n"
            + "counts, not users' values), so an observed share's interval is not readout's (Wilson's, from the counts alone):\n"
        var moments = [["arm", "rate", "observed", "95% interval", "simulated", "95% interval", "z"]]
        func interval(_ x: Double, _ se: Double) -> String { "\(number(x - 1.959_964 * se)) – \(number(x + 1.959_964 * se))" }
        for m in c.moments {
            moments.append([TerminalText.printable(m.arm), m.name, number(m.observed), interval(m.observed, m.observedStandardError),
                            number(m.simulated), interval(m.simulated, m.simulatedStandardError), String(format: "%+.2f", m.z)])
        }
        out += TerminalText.table(moments, rightAligned: [2, 3, 4, 5, 6])
        if let p = c.pValue {
            out += String(format: "\nGoodness of fit: J = %.2f on %d degree%@ of freedom, p = %.3f", c.statistic,
                          c.degreesOfFreedom, c.degreesOfFreedom == 1 ? "" : "s", p)
            out += p < 0.01
                ? ": the model does not reproduce these arms; the fitted values are the closest it gets.\n"
                : ": the arms are reproduced within their noise.\n"
        } else {
            out += "\nGoodness of fit: n/a (as many parameters as moments: the fit is exact by construction).\n"
        }
        return out
    }

    static func number(_ x: Double) -> String { String(format: "%.4g", x) }

    /// The fit's schedule in a sentence: how many users each stage simulated, and what it did.
    static func schedule(_ stages: [Calibration.Stage]) -> String {
        let parts = stages.map { s -> String in
            let users = "\(Text.group(Int64(s.users))) users per arm"
            let sims = "\(s.simulations) simulation\(s.simulations == 1 ? "" : "s")"
            switch s.method {
            case .nelderMead:
                return "Nelder–Mead on \(users) (\(s.steps) iterations, \(sims) with the weights and the slopes at the start)"
            case .gaussNewton where s.steps == 0:
                return "the slopes and the covariance at the fit on \(users) (\(sims))"
            case .gaussNewton:
                return "\(s.steps) Gauss–Newton step\(s.steps == 1 ? "" : "s") on \(users) (\(sims) with the slopes and "
                    + "the covariance at the fit)"
            }
        }
        return "Schedule: " + parts.joined(separator: ", then ") + ".\n"
    }
}
