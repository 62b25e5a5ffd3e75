import Calibration
import Console
import FilePaths
import Foundation
import Rendering
import Reporting
import Simulation

/// `remindersim readout`: a finished live test read against the simulation of its scenario.
struct ReadoutCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "readout",
        abstract: "Read a finished live test: its split, each arm against the simulation, and the call.",
        discussion: """
            RESULTS.csv is the per-arm file calibrate reads (arm, users, delivered, opens, opt_outs, and \
            optionally retained_d7, retained_d30, attributed), with an optional planned_share column (any \
            positive numbers; equal shares when it is left out). Prints: the sample-ratio check (Pearson's \
            chi-square of the arms' users against the planned shares, flagged as a mismatch below p = 0.001); \
            each arm's observed rates against the simulation's prediction for an arm of that many users, with \
            a 95% prediction interval that includes the response model's uncertainty when the scenario \
            carries one (the arms are simulated under its draws) and a z-score; each arm against the baseline \
            (or the holdout) on the decision's objective as independent samples, with its 95% interval and \
            the call under the scenario's decision rule: ship, don't ship, or inconclusive at this size; and \
            whether the model needs recalibrating. Shares are read from the counts; opens and deliveries per \
            user take their per-user variance from the simulated arm. Example: \
            remindersim readout my-app.json live-test.csv --out Reports/readout
            """,
        arguments: [scenario, results, users, seed, draws] + ThreadsOption.specs + [json, output, CSVSafeFlag.spec])

    static let scenario = ArgumentSpec.positional("scenario", help: "The scenario the test ran: its population, configurations and decision.")
    static let results = ArgumentSpec.positional("results", help: "The test's results, one row per arm.")
    static let users = ScenarioOverrides.users.described("Virtual users simulated per arm for the predictions.", default: "20000")
    static let seed = ScenarioOverrides.seed.described("Seed of the simulated users (default: the scenario's).")
    static let draws = ModelDrawsArgument.spec.described("""
        Predict each arm under K draws of the response parameters (the same users at every draw). Default: \
        \(UncertainDecision.defaultDraws) when the scenario gives a parameter a range or carries response.uncertainty, \
        0 otherwise (the model as given).
        """)
    static let json = JSONFlag.spec.described("""
        Print the readout as one JSON document: sampleRatio (statistic, pValue, mismatch, arms), predictions \
        (each arm's rates observed and predicted, with interval and z), comparisons (difference, interval, \
        call) and needsRecalibrating.
        """)
    /// The shared `--out`, here the folder of the readout's files, written only when given.
    static let output = ReportFolderOption.spec.described("""
        Write readout.md, readout.html and the readout's tables as CSV into this folder: readout_split.csv \
        (each arm's users against its planned share), readout_predictions.csv (each arm's rates observed and \
        predicted) and readout_comparisons.csv (each arm against the baseline or holdout, with the call).
        """)
    /// The CSV files `--out` holds, each with its header (the first line a later readout knows as its own).
    static let csvFiles = ["readout_split.csv", "readout_predictions.csv", "readout_comparisons.csv"]

    let scenarioPath, resultsPath: String
    let users: Int
    let seed: UInt64?
    /// `--model-draws`, nil when not given.
    let draws: Int?
    let threads: Int
    let asJSON: Bool
    let output: String?
    let csvSafe: Bool

    init(arguments: ParsedArguments) throws {
        scenarioPath = try arguments.value(Self.scenario)
        resultsPath = try arguments.value(Self.results)
        try InputFile.requireStandardInputOnce([scenarioPath, resultsPath])
        users = try arguments.value(Self.users, expected: "a whole number from 100 to 10000000",
                                    where: { (100...10_000_000).contains($0) })
        seed = try ScenarioOverrides.seed(arguments)
        draws = try arguments.optionalValue(Self.draws, as: ModelDrawsArgument.self)?.draws
        threads = try ThreadsOption(arguments).count
        asJSON = try arguments.flag(Self.json)
        output = try arguments.optionalValue(Self.output)
        csvSafe = try arguments.flag(CSVSafeFlag.spec)
        if csvSafe && output == nil { throw UsageError("\(CSVSafeFlag.spec.name): only with \(Self.output.name), which writes the CSV files") }
    }

    func run(context: CommandContext) throws {
        if let output {
            try OutputPaths.checkFolder(output, option: Self.output.name)
            // An earlier readout's files are replaced; a file of the user's by their names is not.
            let advice = "move it away or name another folder with \(Self.output.name)"
            try OutputPaths.checkReplaceable(Path.join(output, "readout.md"), what: "a readout", advice: advice) { line, _ in
                line.hasPrefix(Self.markdownTitle)
            }
            try OutputPaths.checkReplaceable(Path.join(output, "readout.html"), what: "a readout", advice: advice) { line, start in
                line == "<!DOCTYPE html>" && start.contains("<title>" + Self.htmlTitle)
            }
            // A table's file is known by its header, as an export's is (`CSVFile.isHeader`).
            for (file, header) in zip(Self.csvFiles, [Self.splitHeader, Self.predictionsHeader, Self.comparisonsHeader]) {
                let table = CSVFile(name: file, table: CSVTable(header: header))
                try OutputPaths.checkReplaceable(Path.join(output, file), what: "a readout", advice: advice) { line, _ in
                    table.isHeader(of: line)
                }
            }
        }
        let (scenario, recorded, results) = try CalibrateCommand.load(scenarioPath, resultsPath, context: context)
        SecondLookRunner.warnIfNothingToDraw(draws, scenario: scenario, context: context,
                                             instead: "the arms are predicted under the model as given")
        var options = Calibration.Options()
        options.users = users
        options.seed = seed
        options.threads = threads
        let readout: Readout
        do {
            readout = try Readout.read(scenario: scenario, recorded: recorded, results: results,
                                       draws: SecondLookRunner.draws(draws, scenario: scenario), options: options)
        } catch {
            throw CalibrateCommand.commandError(error, scenarioPath: scenarioPath, resultsPath: resultsPath)
        }
        let shown = ScenarioLoading.displayName(resultsPath) ?? resultsPath
        if asJSON {
            context.stdout.write(try JSONFlag.text(Self.json(readout, scenario: scenario, results: shown)))
        } else {
            context.stdout.write(Self.render(readout, scenario: scenario, results: shown))
        }
        guard let output else { return }
        let markdown = Self.markdown(readout, scenario: scenario, results: shown)
        do {
            let html = HTMLReport.render(markdown: markdown, charts: [:], title: Self.htmlTitle + scenario.name)
            FolderPublishing.removeLeftovers(in: output)
            let tables = [Self.splitCSV(readout), Self.predictionsCSV(readout), Self.comparisonsCSV(readout)]
                .map { Data($0.encoded(neutralizeFormulas: csvSafe).utf8) }
            try ReportFiles.writeAll([("readout.md", Data(markdown.utf8)), ("readout.html", Data(html.utf8))]
                + Array(zip(Self.csvFiles, tables)), into: output)
        } catch {
            throw CommandError.ioError("\(OutputPaths.shown(output)): cannot write the readout: \(CommandRunner.systemReason(error))")
        }
        if !asJSON {
            context.stdout.writeLine("\nReport: \(OutputPaths.listed(Path.join(output, "readout.md"))), readout.html and "
                + Self.csvFiles.joined(separator: ", "))
        }
        try StoreAccess.finishOutput(context, saved: "the readout is written to \(OutputPaths.shown(output))", storedOnce: false)
    }

    /// How a readout's files begin, so that a later readout knows them as its own.
    static let markdownTitle = "# Readout: "
    static let htmlTitle = "ReminderSim readout: "

    // MARK: Text

    static func render(_ r: Readout, scenario: Scenario, results: String) -> String {
        let total = r.sampleRatio.users.reduce(0.0) { $0 + Double($1) }
        var out = "Reading the live test of \"\(scenario.name)\" in \(results): \(r.sampleRatio.arms.count) arms, "
            + "\(count(total)) users.\n\n"
        out += sampleRatioText(r.sampleRatio) + "\n"
        out += TerminalText.table(sampleRatioRows(r.sampleRatio), rightAligned: [1, 2, 3])
        out += "\n" + predictionHeading(r.predictions) + "\n\n"
        out += TerminalText.table(predictionRows(r.predictions.moments), rightAligned: [2, 3, 4, 5, 6, 7])
        out += "\n" + modelText(r.predictions) + "\n"
        out += "\n" + decisionHeading(r) + "\n"
        if let note = r.comparisonNote {
            out += "No call: \(note).\n"
        } else {
            out += TerminalText.table(comparisonRows(r.comparisons), rightAligned: [2, 3, 4, 5])
            for c in r.comparisons { out += "\(TerminalText.printable(c.arm)): \(c.call.rawValue): \(c.reason).\n" }
        }
        return out
    }

    static func sampleRatioText(_ s: SampleRatioCheck) -> String {
        let shares = s.statedShares ? "the planned shares" : "equal shares (no planned_share column)"
        let verdict = s.mismatch
            ? "SAMPLE RATIO MISMATCH (p < \(SampleRatioCheck.threshold)): the users were not split as planned; find out why "
                + "before trusting any difference between the arms"
            : "the split is as planned"
        return String(format: "Sample ratio: χ² = %@ on %d degree%@ of freedom against %@, p = %@: %@.",
                      statisticText(s.statistic), s.degreesOfFreedom, s.degreesOfFreedom == 1 ? "" : "s", shares, probability(s.pValue), verdict)
    }

    /// A χ² statistic as the readout shows it: two decimals, in powers of ten from a million, ∞ when
    /// an arm holds users its planned share gives (next to) none of.
    static func statisticText(_ x: Double) -> String {
        guard x.isFinite else { return "∞" }
        return x < 1e6 ? String(format: "%.2f", x) : String(format: "%.3g", x).replacingOccurrences(of: "e+", with: "e")
    }

    /// A z score as the readout shows it: signed, two decimals, in powers of ten from a million.
    static func zText(_ z: Double) -> String {
        guard z.isFinite else { return z > 0 ? "+∞" : z < 0 ? "−∞" : "n/a" }
        return abs(z) < 1e6 ? String(format: "%+.2f", z) : String(format: "%+.3g", z).replacingOccurrences(of: "e+", with: "e")
    }

    static func sampleRatioRows(_ s: SampleRatioCheck) -> [[String]] {
        let total = s.users.reduce(0.0) { $0 + Double($1) }
        return [["arm", "users", "planned share", "expected users"]] + s.arms.indices.map { i in
            [TerminalText.printable(s.arms[i]), Text.group(Int64(s.users[i])), String(format: "%.1f%%", 100 * s.planned[i]),
             count(total * s.planned[i])]
        }
    }

    static func predictionHeading(_ p: ArmPredictions) -> String {
        "Each arm against the simulation (\(Text.group(Int64(p.simulatedUsers))) simulated users per arm"
            + (p.draws > 0 ? ", under \(p.draws) draws of the response model" : ", the response model as given")
            + "): the 95% prediction interval is where the arm's observed rate should fall at its number of users."
    }

    /// The rows of a table of arms observed against predicted; also `calibrate --hold-out`'s.
    static func predictionRows(_ moments: [ArmPrediction]) -> [[String]] {
        [["arm", "rate", "users", "observed", "predicted", "95% prediction interval", "z"]] + moments.map { m in
            [TerminalText.printable(m.arm), m.name, Text.group(Int64(m.users)), CalibrateCommand.number(m.observed),
             CalibrateCommand.number(m.predicted), "\(CalibrateCommand.number(m.lower)) – \(CalibrateCommand.number(m.upper))",
             Self.zText(m.z)]
        }
    }

    static func modelText(_ p: ArmPredictions) -> String {
        guard let pValue = p.pValue else { return "Model: no rate to judge it by." }
        let worst = p.moments.max { abs($0.z) < abs($1.z) }
        let worstText = worst.map { " (largest |z|: \(TerminalText.printable($0.arm)) \($0.name), \(Self.zText($0.z)))" } ?? ""
        return "Model: J = \(Self.statisticText(p.statistic)) on \(p.degreesOfFreedom) degree\(p.degreesOfFreedom == 1 ? "" : "s") of "
            + "freedom, p = \(probability(pValue))\(worstText): "
            + (p.needsRecalibrating
                ? "the model needs recalibrating: run remindersim calibrate on these results."
                : "the model predicts these arms within their noise; no recalibration needed.")
    }

    static func decisionHeading(_ r: Readout) -> String {
        let against = r.comparisons.first?.against
        return "The call under the scenario's decision (objective: \(r.rule.objective.rawValue); \(r.rule.minimumDifferenceText))"
            + (against.map { ", each arm against \(TerminalText.printable($0)) as independent samples of users:" } ?? ":")
    }

    static func comparisonRows(_ comparisons: [ObservedComparison]) -> [[String]] {
        [["arm", "against", "difference", "95% interval", "z", "p", "call"]] + comparisons.map { c in
            [TerminalText.printable(c.arm), TerminalText.printable(c.against), CalibrateCommand.number(c.difference),
             "\(CalibrateCommand.number(c.lower)) – \(CalibrateCommand.number(c.upper))", Self.zText(c.z),
             probability(c.pValue), c.call.rawValue]
        }
    }

    /// A count summed or scaled as a real number, grouped; beyond what an Int64 holds, in plain digits.
    static func count(_ x: Double) -> String {
        let rounded = x.rounded()
        return abs(rounded) < 9e18 ? Text.group(Int64(rounded)) : String(format: "%.0f", rounded)
    }

    static func probability(_ p: Double) -> String { p < 0.001 ? String(format: "%.2g", p) : String(format: "%.3f", p) }

    // MARK: Markdown

    static func markdown(_ r: Readout, scenario: Scenario, results: String) -> String {
        func table(_ rows: [[String]], right: Set<Int>) -> String {
            guard let header = rows.first else { return "" }
            return Markdown.table(header: header, alignments: header.indices.map { right.contains($0) ? .right : .left },
                                  rows: Array(rows.dropFirst()))
        }
        var out = Self.markdownTitle + "\(Markdown.escapeInline(scenario.name))\n\n"
        out += "The live test in \(Markdown.escapeInline(results)) read against the simulation of its scenario.\n\n"
        out += "## Sample ratio\n\n" + Markdown.escapeInline(sampleRatioText(r.sampleRatio)) + "\n\n"
        out += table(sampleRatioRows(r.sampleRatio), right: [1, 2, 3])
        // A blank line before the table: a table right after a paragraph's line is no table to stricter readers.
        out += "\n## Each arm against the simulation\n\n" + Markdown.escapeInline(predictionHeading(r.predictions)) + "\n\n"
        out += table(predictionRows(r.predictions.moments), right: [2, 3, 4, 5, 6])
        out += "\n" + Markdown.escapeInline(modelText(r.predictions)) + "\n"
        out += "\n## The call\n\n" + Markdown.escapeInline(decisionHeading(r)) + "\n\n"
        if let note = r.comparisonNote {
            out += Markdown.escapeInline("No call: \(note).") + "\n"
        } else {
            out += table(comparisonRows(r.comparisons), right: [2, 3, 4, 5])
            out += "\n" + r.comparisons.map { "- " + Markdown.escapeInline("\($0.arm): \($0.call.rawValue): \($0.reason).") }
                .joined(separator: "\n") + "\n"
        }
        return out
    }

    // MARK: CSV

    // Tidy tables (one row per arm, per arm and rate, per comparison), named as the JSON names them in
    // snake_case; arms by their labels, as the results file gives them.
    static let splitHeader = ["arm", "users", "planned_share", "expected_users", "chi_square", "degrees_of_freedom", "p_value", "mismatch"]
    static let predictionsHeader = ["arm", "rate", "users", "observed", "predicted", "predicted_low", "predicted_high",
                                    "standard_error", "model_standard_error", "z", "draws", "simulated_users"]
    static let comparisonsHeader = ["arm", "against", "measure", "arm_users", "against_users", "difference", "difference_low",
                                    "difference_high", "standard_error", "z", "p_value", "call"]

    static func number(_ x: Double) -> CSVField { x.isFinite ? .decimal(x) : .null }

    /// The split: each arm's users against its planned share, with the chi-square test of them all.
    static func splitCSV(_ r: Readout) -> CSVTable {
        let s = r.sampleRatio
        let total = s.users.reduce(0.0) { $0 + Double($1) }
        return CSVTable(header: splitHeader, rows: s.arms.indices.map { i in
            [.text(s.arms[i]), .integer(Int64(s.users[i])), number(s.planned[i]), number(total * s.planned[i]), number(s.statistic),
             .integer(Int64(s.degreesOfFreedom)), number(s.pValue), .integer(s.mismatch ? 1 : 0)]
        })
    }

    static func predictionsCSV(_ r: Readout) -> CSVTable {
        let p = r.predictions
        return CSVTable(header: predictionsHeader, rows: p.moments.map { m in
            [.text(m.arm), .text(m.name), .integer(Int64(m.users)), number(m.observed), number(m.predicted), number(m.lower),
             number(m.upper), number(m.standardError), number(m.modelStandardError), number(m.z), .integer(Int64(p.draws)),
             .integer(Int64(p.simulatedUsers))]
        })
    }

    static func comparisonsCSV(_ r: Readout) -> CSVTable {
        CSVTable(header: comparisonsHeader, rows: r.comparisons.map { c in
            [.text(c.arm), .text(c.against), .text(c.measure.measure.name), .integer(Int64(c.armUsers)), .integer(Int64(c.againstUsers)),
             number(c.difference), number(c.lower), number(c.upper), number(c.standardError), number(c.z), number(c.pValue),
             .text(c.call.rawValue)]
        })
    }

    // MARK: JSON

    static func json(_ r: Readout, scenario: Scenario, results: String) -> [String: Any] {
        let n = JSONFlag.number
        let s = r.sampleRatio
        let total = s.users.reduce(0.0) { $0 + Double($1) }
        let p = r.predictions
        var out: [String: Any] = [
            "scenario": scenario.name,
            "results": results,
            "sampleRatio": [
                "statistic": n(s.statistic), "degreesOfFreedom": s.degreesOfFreedom, "pValue": n(s.pValue),
                "mismatch": s.mismatch, "threshold": SampleRatioCheck.threshold, "statedShares": s.statedShares,
                "arms": s.arms.indices.map { i in
                    ["arm": s.arms[i], "users": s.users[i], "plannedShare": n(s.planned[i]), "expectedUsers": n(total * s.planned[i])]
                },
            ] as [String: Any],
            "predictions": [
                "simulatedUsers": p.simulatedUsers, "draws": p.draws, "statistic": n(p.statistic),
                "degreesOfFreedom": p.degreesOfFreedom, "pValue": p.pValue.map(n) ?? NSNull(),
                "moments": p.moments.map(predictionJSON),
            ] as [String: Any],
            "needsRecalibrating": p.needsRecalibrating,
            "decision": ["objective": r.rule.objective.rawValue, "minimumDifference": r.rule.minimumDifference] as [String: Any],
            "comparisons": r.comparisons.map { c -> [String: Any] in
                ["arm": c.arm, "against": c.against, "measure": c.measure.rawValue, "difference": n(c.difference),
                 "standardError": n(c.standardError), "lower": n(c.lower), "upper": n(c.upper), "z": n(c.z),
                 "pValue": n(c.pValue), "armVariance": n(c.armVariance), "againstVariance": n(c.againstVariance),
                 "armUsers": c.armUsers, "againstUsers": c.againstUsers, "call": c.call.rawValue, "reason": c.reason]
            },
        ]
        if let note = r.comparisonNote { out["comparisonNote"] = note }
        return out
    }

    static func predictionJSON(_ m: ArmPrediction) -> [String: Any] {
        let n = JSONFlag.number
        return ["arm": m.arm, "rate": m.name, "users": m.users, "observed": n(m.observed), "predicted": n(m.predicted),
                "standardError": n(m.standardError), "modelStandardError": n(m.modelStandardError), "lower": n(m.lower),
                "upper": n(m.upper), "z": n(m.z)]
    }
}
