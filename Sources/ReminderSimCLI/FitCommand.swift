import Console
import Fitting
import Foundation
import RecordedData
import Reporting
import Simulation

/// `remindersim fit`: return models fitted to a recorded log, ready to paste into a scenario.
struct FitCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "fit",
        abstract: "Fit return models to a recorded visit log and write scenario segments from them.",
        discussion: """
            Reads a log of user visits (CSV, TSV or whitespace-separated, or the CDNOW format), fits \
            exponential, Weibull and lognormal gap models by maximum likelihood with right-censoring and \
            BG/NBD on each user's frequency, recency and age in a calibration window, and checks BG/NBD on \
            the visits after it. Writes segments.json (segments for a scenario's population), \
            survival.svg and repeat-visits.svg into --out. Example: \
            remindersim fit Datasets/cdnow/CDNOW_master.txt --format cdnow --calibration-end 1997-09-30
            """,
        arguments: [
            .positional("data", help: "The visit log."),
        ] + LogOptions.arguments + [
            .option("--calibration-end", valueName: "date",
                    help: "Last day of the BG/NBD calibration window (default: half way through the observation)."),
            .option("--gap-unit", valueName: "unit", help: "Unit of the gap models: minutes, hours, days, weeks.",
                    default: "days"),
            .option("--bgnbd-unit", valueName: "unit", help: "Unit of BG/NBD's alpha and times.", default: "weeks"),
            .option("--out", valueName: "dir", help: "Where the segments and charts go (default: Reports/fit-<name>)."),
        ])

    let data: String
    let format: RecordedFormat
    let observationEnd: String?
    let calibrationEnd: String?
    let gapUnit: GapUnit
    let bgnbdUnit: GapUnit
    let skipBadRows: Bool
    let output: String

    init(arguments: ParsedArguments) throws {
        data = try arguments.value("data")
        let logOptions = try LogOptions(arguments: arguments)
        format = logOptions.format
        observationEnd = logOptions.observationEnd
        skipBadRows = logOptions.skipBadRows
        calibrationEnd = try LogOptions.date("--calibration-end", arguments)
        gapUnit = try arguments.value("--gap-unit", as: GapUnit.self)
        bgnbdUnit = try arguments.value("--bgnbd-unit", as: GapUnit.self)
        let name = ((data as NSString).lastPathComponent as NSString).deletingPathExtension
        output = try arguments.optionalValue("--out") ?? "Reports/fit-\(name)"
    }

    func run(context: CommandContext) throws {
        let log = try LogOptions.read(data, format: format, observationEnd: observationEnd, skipBadRows: skipBadRows)
        var options = FitAnalysis.Options()
        options.gapUnit = gapUnit
        options.bgnbdUnit = bgnbdUnit
        // The last second of the day: visits dated at the start of the next day are outside the window.
        options.calibrationEnd = calibrationEnd.flatMap(CalendarDate.init(iso:)).map { Double($0.daysSinceEpoch + 1) * 86_400 - 1 }
        if let end = options.calibrationEnd, end <= log.firstVisit || end >= log.observationEnd {
            throw UsageError("--calibration-end: must fall inside the observation, \(day(log.firstVisit)) to \(day(log.observationEnd))")
        }
        let analysis = FitAnalysis(log: log, options: options)
        context.stdout.write(FitText.render(analysis, data: data))

        // An absolute path: a scenario reads `data` relative to its own folder, wherever it is saved.
        let absolute = URL(fileURLWithPath: data).standardizedFileURL.path
        let segments = analysis.segments(dataPath: absolute, format: format, observationEnd: observationEnd)
        let json = try JSONSerialization.data(
            withJSONObject: ["segments": segments], options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            try (String(decoding: json, as: UTF8.self) + "\n").write(
                toFile: (output as NSString).appendingPathComponent("segments.json"), atomically: true, encoding: .utf8)
            try analysis.survivalChart().write(
                toFile: (output as NSString).appendingPathComponent("survival.svg"), atomically: true, encoding: .utf8)
            if let chart = analysis.repeatChart() {
                try chart.write(toFile: (output as NSString).appendingPathComponent("repeat-visits.svg"), atomically: true,
                                encoding: .utf8)
            }
        } catch {
            throw CommandError.ioError("\(output): cannot write the fit's files: \(CommandRunner.systemReason(error))")
        }
        context.stdout.writeLine("\nSegments for a scenario: \((output as NSString).appendingPathComponent("segments.json"))")
        context.stdout.writeLine("Charts: \((output as NSString).appendingPathComponent("survival.svg")), "
            + "\((output as NSString).appendingPathComponent("repeat-visits.svg"))")
    }

    func day(_ seconds: Double) -> String { CalendarDate(daysSinceEpoch: Int((seconds / 86_400).rounded(.down))).description }

}

/// The text `fit` prints.
enum FitText {
    static func render(_ a: FitAnalysis, data: String) -> String {
        let log = a.log
        func day(_ s: Double) -> String { CalendarDate(daysSinceEpoch: Int((s / 86_400).rounded(.down))).description }
        var out = "Recorded log \(data): \(SummaryText.group(Int64(log.rows))) rows, \(SummaryText.group(Int64(log.users.count))) users, "
            + "\(SummaryText.group(Int64(log.visitCount))) visits (\(SummaryText.group(Int64(log.duplicates))) duplicate events"
            + (log.skipped > 0 ? ", \(SummaryText.group(Int64(log.skipped))) bad rows skipped" : "") + ")\n"
        out += "Observed \(day(log.firstVisit)) to \(day(log.observationEnd)).\n"
        for issue in log.issues.prefix(5) { out += "  skipped: \(issue)\n" }

        let unit = a.options.gapUnit.rawValue
        out += "\nGaps between visits (\(unit)), the last one of each user censored at the end of observation:\n"
        let km = a.kaplanMeier
        let probes: [Double] = [1, 7, 30, 90, 365].map { $0 * 86_400 / a.options.gapUnit.seconds }
        out += "  still away after " + probes.map { t in
            String(format: "%g %@: %.1f%%", t, unit, km.survival(at: t) * 100)
        }.joined(separator: ", ") + "\n"
        out += String(format: "  never seen back (Kaplan–Meier plateau): %.1f%%\n", km.plateau * 100)

        var rows = [["model", "parameters (± standard error)", "log-likelihood", "AIC", "ΔAIC"]]
        let best = a.gapFits.first?.aic ?? 0
        for fit in a.gapFits {
            rows.append([
                fit.modelName, fit.parameters.map { estimate($0) }.joined(separator: ", "),
                String(format: "%.1f", fit.logLikelihood), String(format: "%.1f", fit.aic), String(format: "%.1f", fit.aic - best),
            ])
        }
        out += "\n" + SummaryText.table(rows, rightAligned: [2, 3, 4])
        for failure in a.gapFailures { out += "  \(failure.model): not fitted (\(failure.reason))\n" }
        for fit in a.gapFits {
            if let problem = a.problem(of: fit) { out += "  \(fit.modelName): not written to segments.json (\(problem))\n" }
        }

        let bu = a.options.bgnbdUnit.rawValue
        out += "\nBG/NBD on \(SummaryText.group(Int64(a.customers.count))) customers, calibration \(day(log.firstVisit)) to \(day(a.calibrationEnd)) (times in \(bu)):\n"
        guard let fit = a.bgnbd else {
            return out + "  not fitted: \(a.bgnbdFailure ?? "unknown reason")\n"
        }
        out += "  " + fit.parameters.map { estimate($0) }.joined(separator: ", ")
            + String(format: "; log-likelihood %.1f, AIC %.1f%@\n", fit.logLikelihood, fit.aic, fit.converged ? "" : " (did not converge)")
        if let problem = a.bgnbdProblem {
            out += "  This fit is not usable, and not written to segments.json: \(problem).\n"
            return out
        }
        let horizons: [Double] = [1, 4, 13, 26, 52].map { $0 * 604_800 / a.options.bgnbdUnit.seconds }
        out += "  expected repeat visits of a new user: " + horizons.map { t in
            String(format: "%g %@: %.2f", t, bu, (try? fit.expectedTransactions(t: t)) ?? .nan)
        }.joined(separator: ", ") + "\n"

        if let h = a.repeatHistogram() {
            var table = [["repeat visits"] + (0..<h.observed.count).map { $0 == h.observed.count - 1 ? "\($0)+" : String($0) }]
            table.append(["observed"] + h.observed.map { SummaryText.group(Int64($0)) })
            table.append(["BG/NBD"] + h.predicted.map { SummaryText.group(Int64($0.rounded())) })
            out += "\n  Customers by repeat visits in the calibration window:\n"
            out += SummaryText.table(table, rightAligned: Set(1..<table[0].count)).split(separator: "\n").map { "  " + $0 }
                .joined(separator: "\n") + "\n"
        }
        if a.calibrationEnd < log.observationEnd {
            let observed = a.holdoutCounts.reduce(0, +)
            guard a.holdoutPredictions.allSatisfy(\.isFinite) else {
                return out + "\n  Holdout check: n/a (the model gives no prediction for some customers)\n"
            }
            let predicted = a.holdoutPredictions.reduce(0, +)
            out += "\n  Holdout check, \(day(a.calibrationEnd + 1)) to \(day(log.observationEnd)): "
                + String(format: "%@ repeat visits observed, %.0f predicted (%+.1f%%)\n",
                         SummaryText.group(Int64(observed)), predicted,
                         observed > 0 ? (predicted / Double(observed) - 1) * 100 : 0)
            var byX: [Int: (observed: Double, predicted: Double, n: Double)] = [:]
            for (i, c) in a.customers.enumerated() {
                let x = min(c.frequency, 7)
                var e = byX[x, default: (0, 0, 0)]
                e.observed += Double(a.holdoutCounts[i])
                e.predicted += a.holdoutPredictions[i].isFinite ? a.holdoutPredictions[i] : 0
                e.n += 1
                byX[x] = e
            }
            var table = [["calibration repeats", "customers", "holdout visits per customer: observed", "predicted"]]
            for x in byX.keys.sorted() {
                let e = byX[x]!
                table.append([x == 7 ? "7+" : String(x), SummaryText.group(Int64(e.n)),
                              String(format: "%.2f", e.observed / e.n), String(format: "%.2f", e.predicted / e.n)])
            }
            out += SummaryText.table(table, rightAligned: [1, 2, 3]).split(separator: "\n").map { "  " + $0 }
                .joined(separator: "\n") + "\n"
        }
        return out
    }

    static func estimate(_ p: ParameterEstimate) -> String {
        String(format: "%@ %.4g", p.name, p.value) + (p.standardError.map { String(format: " ± %.2g", $0) } ?? " (SE n/a)")
    }
}

extension GapUnit: ArgumentValue {}
