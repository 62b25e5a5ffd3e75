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
            Prints the fitted values with 95% intervals, every moment observed and simulated, and a \
            goodness-of-fit statistic; writes the scenario with the fitted response block, ready for run. \
            Parameters the arms cannot identify are refused with the reason (exit 65). Example: \
            remindersim calibrate my-app.json past-test.csv --fit baseResponse,optOutPerDelivery
            """,
        arguments: [scenario, results, fit, users, seed] + ThreadsOption.specs + [output])

    static let scenario = ArgumentSpec.positional("scenario", help: "The scenario the test ran: its population and configurations.")
    static let results = ArgumentSpec.positional("results", help: "The test's results, one row per arm.")
    static let fit = ArgumentSpec.option("--fit", valueName: "names", help: """
        Comma-separated response parameters to fit: baseResponse, fatigue, optOutPerDelivery, quietFactor, \
        dormantFactor. Fatigue needs arms that differ in how many notifications they send in a row.
        """, default: "baseResponse,optOutPerDelivery")
    /// The shared `--users` and `--seed`, here for the simulated arms rather than over a scenario.
    static let users = ScenarioOverrides.users.described("Virtual users simulated per arm at each trial point.", default: "20000")
    static let seed = ScenarioOverrides.seed.described("Seed of the simulated users (default: the scenario's).")
    /// The shared `--out`, here a file rather than a folder of reports.
    static let output = ReportFolderOption.spec.described(
        "Where the calibrated scenario goes (default: beside the scenario, as NAME-calibrated.json).", valueName: "file")

    let scenarioPath: String
    let resultsPath: String
    let parameters: [ResponseParameter]
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
        let scenario = try ScenarioLoading.load(scenarioPath)
        // The scenario is checked whole (recorded logs included) before the results are read.
        let recorded = try ScenarioLoading.compileReading(scenario, path: scenarioPath).recorded
        ScenarioLoading.warn(scenario, path: scenarioPath, context: context)
        let text = try ScenarioLoading.readText(resultsPath, kind: "a results file")
        let results: ExperimentResults
        do {
            results = try ExperimentResults.parse(text, file: resultsPath)
        } catch {
            throw CommandError.dataError(error.description)
        }
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
        } catch let error as CalibrationError {
            throw CommandError.dataError("\(resultsPath): \(error.description)")
        } catch let error as RecordedDataError {
            // The recorded logs were read and checked with the scenario; every trial point uses them as read.
            throw ScenarioLoading.commandError(error, message: "\(scenarioPath): \(error.description)")
        }
        let seconds = RunCommand.seconds(since: started)
        context.stdout.write(Self.render(calibration, start: scenario, results: resultsPath, options: options))
        do {
            try calibration.scenario.canonicalJSON().write(toFile: output, atomically: true, encoding: .utf8)
        } catch {
            throw CommandError.ioError("\(output): cannot write the calibrated scenario: \(CommandRunner.systemReason(error))")
        }
        context.stdout.writeLine("\nCalibrated scenario: \(output) (run it with: remindersim run \(output))")
        context.stdout.writeLine("It carries the fitted parameters' covariance (log-odds) as response.uncertainty: run and tune "
            + "decide under \(UncertainDecision.defaultDraws) draws of it (--model-draws K to change).")
        context.stderr.writeLine(String(format: "calibrate: %d simulations in %.1f s", calibration.evaluations, seconds))
    }

    static func render(_ c: Calibration, start: Scenario, results: String, options: Calibration.Options) -> String {
        let arms = Set(c.moments.map(\.arm)).count
        var out = "Calibrating the response of \"\(start.name)\" on \(arms) arm\(arms == 1 ? "" : "s") of \(results): "
            + "\(Text.group(Int64(options.users))) simulated users per arm, seed \(options.seed ?? start.seed).\n\n"
        var rows = [["parameter", "start", "fitted", "95% interval"]]
        for e in c.estimates {
            rows.append([e.parameter.rawValue, number(e.parameter.value(in: start.response)), number(e.value),
                         "\(number(e.lower)) – \(number(e.upper))"])
        }
        out += TerminalText.table(rows, rightAligned: [1, 2, 3])
        out += c.converged ? "" : "(the optimiser stopped before converging: treat the values as rough)\n"

        out += "\nPer-user rates, observed in the test and simulated at the fit, with 95% intervals; z is their difference\n"
            + "over its standard error:\n"
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
}
