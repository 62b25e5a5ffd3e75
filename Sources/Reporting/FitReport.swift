import FilePaths
import Fitting
import Foundation
import GapFamilies
import RecordedData
import Rendering
import Simulation

/// The text `fit` prints.
public enum FitText {
    public static func render(_ a: FitAnalysis, data: String) -> String {
        logSection(a, data: data) + gapSection(a) + bgnbdSection(a) + paretoSection(a)
    }

    static func day(_ s: Double) -> String { CalendarDate(daysSinceEpoch: Int((s / 86_400).rounded(.down))).description }

    static func logSection(_ a: FitAnalysis, data: String) -> String {
        let log = a.log
        var out = "Recorded log \(data): \(Text.group(Int64(log.rows))) rows, \(Text.group(Int64(log.users.count))) users, "
            + "\(Text.group(Int64(log.visitCount))) visits (\(Text.group(Int64(log.duplicates))) duplicate events"
            + (log.skipped > 0 ? ", \(Text.group(Int64(log.skipped))) bad rows skipped" : "") + ")\n"
        if let layout = log.layout { out += "Layout: \(layout).\n" }
        out += "Observed \(day(log.firstVisit)) to \(day(log.observationEnd)).\n"
        for issue in log.issues.prefix(5) { out += "  skipped: \(issue)\n" }
        return out
    }

    static func gapSection(_ a: FitAnalysis) -> String {
        var out = ""
        let unit = a.options.gapUnit.rawValue
        out += "\nGaps between visits (\(unit)), the last one of each user censored at the end of observation:\n"
        let km = a.kaplanMeier
        let probes: [Double] = [1, 7, 30, 90, 365].map { $0 * 86_400 / a.options.gapUnit.seconds }
        out += "  still away after " + probes.map { t in
            String(format: "%@: %.1f%%", amount(t, unit), km.survival(at: t) * 100)
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
        out += "\n" + TerminalText.table(rows, rightAligned: [2, 3, 4])
        for failure in a.gapFailures { out += "  \(failure.model): not fitted (\(failure.reason))\n" }
        for fit in a.gapFits {
            if let problem = a.problem(of: fit) { out += "  \(fit.modelName): not written to segments.json (\(problem))\n" }
        }
        return out
    }

    static func bgnbdSection(_ a: FitAnalysis) -> String {
        let log = a.log
        var out = ""
        let bu = a.options.bgnbdUnit.rawValue
        out += "\nBG/NBD on \(Text.group(Int64(a.customers.count))) customer\(a.customers.count == 1 ? "" : "s"), calibration \(day(log.firstVisit)) to \(day(a.calibrationEnd)) (times in \(bu)):\n"
        out += "  calibration cut-off: \(cutOff(a)); \(a.convention.phrase)\n"
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
            String(format: "%@: %.2f", amount(t, bu), (try? fit.expectedTransactions(t: t)) ?? .nan)
        }.joined(separator: ", ") + "\n"

        if let h = a.repeatHistogram() {
            var table = [["repeat visits"] + (0..<h.observed.count).map { $0 == h.observed.count - 1 ? "\($0)+" : String($0) }]
            table.append(["observed"] + h.observed.map { Text.group(Int64($0)) })
            table.append(["BG/NBD"] + h.predicted.map { Text.group(Int64($0.rounded())) })
            out += "\n  Customers by repeat visits in the calibration window:\n"
            out += TerminalText.table(table, rightAligned: Set(1..<table[0].count)).split(separator: "\n").map { "  " + $0 }
                .joined(separator: "\n") + "\n"
        }
        if a.calibrationEnd < log.observationEnd { out += holdoutSection(a) }
        return out
    }

    /// Pareto/NBD on the same customers: estimates, the comparison with BG/NBD, and the holdout total.
    static func paretoSection(_ a: FitAnalysis) -> String {
        let bu = a.options.bgnbdUnit.rawValue
        var out = "\nPareto/NBD on the same customers (times in \(bu)):\n"
        guard let fit = a.paretoNBD else {
            return out + "  not fitted: \(a.paretoNBDFailure ?? "unknown reason")\n"
        }
        out += "  " + fit.parameters.map { estimate($0) }.joined(separator: ", ")
            + String(format: "; log-likelihood %.1f, AIC %.1f%@\n", fit.logLikelihood, fit.aic, fit.converged ? "" : " (did not converge)")
        if let bgnbd = a.bgnbd, a.bgnbdProblem == nil, a.paretoNBDProblem == nil {
            out += String(format: "  AIC minus BG/NBD's: %+.1f (%@)\n", fit.aic - bgnbd.aic,
                          fit.aic < bgnbd.aic ? "Pareto/NBD describes these customers better" : "BG/NBD describes these customers better")
        }
        if let problem = a.paretoNBDProblem {
            return out + "  This fit is not usable, and not written to segments.json: \(problem).\n"
        }
        let horizons: [Double] = [1, 4, 13, 26, 52].map { $0 * 604_800 / a.options.bgnbdUnit.seconds }
        out += "  expected repeat visits of a new user: " + horizons.map { t in
            String(format: "%@: %.2f", amount(t, bu), (try? fit.model.expectedTransactions(t: t)) ?? .nan)
        }.joined(separator: ", ") + "\n"
        if a.calibrationEnd < a.log.observationEnd, a.paretoHoldoutPredictions.allSatisfy(\.isFinite) {
            let observed = a.holdoutCounts.reduce(0, +)
            let predicted = a.paretoHoldoutPredictions.reduce(0, +)
            out += String(format: "  Holdout check: %@ repeat visits observed, %@ predicted (%+.1f%%)\n",
                          Text.group(Int64(observed)), count(predicted), observed > 0 ? (predicted / Double(observed) - 1) * 100 : 0)
        }
        return out
    }

    /// `t` of a plural unit's name ("days"), in the singular for one: "1 day", "7 days", "0.5 weeks".
    static func amount(_ t: Double, _ unit: String) -> String {
        String(format: "%g ", t) + (t == 1 && unit.hasSuffix("s") ? String(unit.dropLast()) : unit)
    }

    /// A predicted count, rounded and grouped as the observed ones are ("16,874").
    static func count(_ x: Double) -> String {
        abs(x) < 1e15 ? Text.group(Int64(x.rounded())) : String(format: "%.3g", x)
    }

    static func holdoutSection(_ a: FitAnalysis) -> String {
        let log = a.log
        var out = ""
        do {
            let observed = a.holdoutCounts.reduce(0, +)
            guard a.holdoutPredictions.allSatisfy(\.isFinite) else {
                return "\n  Holdout check: n/a (the model gives no prediction for some customers)\n"
            }
            let predicted = a.holdoutPredictions.reduce(0, +)
            out += "\n  Holdout check, \(day(a.calibrationEnd + 1)) to \(day(log.observationEnd)): "
                + String(format: "%@ repeat visits observed, %@ predicted (%+.1f%%)\n",
                         Text.group(Int64(observed)), count(predicted),
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
                table.append([x == 7 ? "7+" : String(x), Text.group(Int64(e.n)),
                              String(format: "%.2f", e.observed / e.n), String(format: "%.2f", e.predicted / e.n)])
            }
            out += TerminalText.table(table, rightAligned: [1, 2, 3]).split(separator: "\n").map { "  " + $0 }
                .joined(separator: "\n") + "\n"
        }
        return out
    }

    /// The exact last instant of the calibration window, as the summaries used it.
    static func cutOff(_ a: FitAnalysis) -> String {
        switch a.convention {
        case .continuous:
            return "visits up to and including \(CivilTime.isoString(a.calibrationEnd))"
        case .wholeDays(let offset):
            let dayNumber = Int(((a.calibrationEnd + Double(offset)) / 86_400).rounded(.down))
            let lastSecond = Double(dayNumber + 1) * 86_400 - Double(offset) - 1
            let zone = offset == 0 ? "UTC" : String(format: "UTC%+.2g", Double(offset) / 3_600)
            return "visits on days up to and including \(CalendarDate(daysSinceEpoch: dayNumber)) (\(zone)), "
                + "that is up to \(CivilTime.isoString(lastSecond))"
        }
    }

    static func estimate(_ p: ParameterEstimate) -> String {
        String(format: "%@ %.4g", p.name, p.value) + (p.standardError.map { String(format: " ± %.2g", $0) } ?? " (SE n/a)")
    }
}

/// What a fit becomes outside the terminal: scenario segments, per-customer predictions and charts.
extension FitAnalysis {
    /// One row per calibrated customer: history (x, t_x, T in the BG/NBD unit), BG/NBD's probability
    /// alive and expected repeat visits over the prediction horizon, the recorded count over it when
    /// the log covers it, then Pareto/NBD's two predictions; a model without a usable fit leaves its
    /// columns empty, and there is no table when neither has one.
    public func customerTable() -> CSVTable? {
        guard let predictions = customerPredictions() else { return nil }
        let unit = options.bgnbdUnit.rawValue
        var header = ["user", "frequency", "recency_\(unit)", "T_\(unit)", "probability_alive", "expected_repeat_visits"]
        if predictionHorizonIsObserved { header.append("observed_repeat_visits") }
        header += ["pareto_nbd_probability_alive", "pareto_nbd_expected_repeat_visits"]
        func number(_ x: Double) -> CSVField { x.isFinite ? .decimal(x) : .null }
        var table = CSVTable(header: header)
        table.rows.reserveCapacity(predictions.count)
        for p in predictions {
            var row: [CSVField] = [
                .text(p.summary.id ?? ""), .integer(Int64(p.summary.frequency)), .decimal(p.summary.recency),
                .decimal(p.summary.age), number(p.probabilityAlive), number(p.expectedRepeatVisits),
            ]
            if predictionHorizonIsObserved { row.append(p.observedRepeatVisits.map { .integer(Int64($0)) } ?? .null) }
            row += [number(p.paretoProbabilityAlive), number(p.paretoExpectedRepeatVisits)]
            table.rows.append(row)
        }
        return table
    }

    /// What `segments.json` holds: `segment`, the recommended segment, ready to paste into a
    /// scenario's `population.segments`; `why`, the reason in a sentence; and `alternatives`, the other
    /// usable models' segments, each one a whole population on its own (never meant as a mixture).
    /// `dataPath` should be absolute, so the segments work from any scenario folder.
    public func segmentsDocument(dataPath: String, format: RecordedFormat, observationEnd: String?) -> [String: Any] {
        let choice = recommendation()
        let name = Path.stem(dataPath)
        func segment(_ model: SegmentModel) -> [String: Any] {
            segmentObject(model, name: name, dataPath: dataPath, format: format, observationEnd: observationEnd)
        }
        return ["segment": segment(choice.model), "why": choice.reason, "alternatives": choice.alternatives.map(segment)]
    }

    /// One segment JSON object a scenario can use as it is.
    func segmentObject(
        _ model: SegmentModel, name: String, dataPath: String, format: RecordedFormat, observationEnd: String?
    ) -> [String: Any] {
        func parametric(_ family: GapFamily, _ values: [Double], unit: GapUnit) -> [String: Any] {
            var returns: [String: Any] = ["distribution": family.name, "unit": unit.rawValue]
            for (parameter, value) in zip(family.parameters, values) { returns[parameter.name] = rounded(value) }
            return returns
        }
        var source: [String: Any] = ["data": dataPath]
        if let observationEnd { source["observationEnd"] = observationEnd }
        switch format {
        case .cdnow: source["format"] = "cdnow"
        case let .delimited(d):
            let data = (try? JSONEncoder().encode(d)) ?? Data()
            source["format"] = (try? JSONSerialization.jsonObject(with: data)) ?? [:]
        }
        switch model {
        case .bgnbd:
            let values = bgnbd?.parameters.map(\.value) ?? []
            return ["name": "\(name) BG/NBD", "weight": 1, "returns": parametric(.bgnbd, values, unit: options.bgnbdUnit)]
        case .paretoNBD:
            let values = paretoNBD?.parameters.map(\.value) ?? []
            return ["name": "\(name) Pareto/NBD", "weight": 1, "returns": parametric(.paretoNBD, values, unit: options.bgnbdUnit)]
        case let .gap(index):
            let fit = gapFits[index]
            let family = fit.model.family
            var object: [String: Any] = ["name": "\(name) \(family.name)", "weight": 1]
            // The refit with the dropout censoring shows, when a scenario can use it.
            if let refit = dropoutRefit(index) {
                object["returns"] = parametric(family, refit.familyValues, unit: options.gapUnit)
                object["dropoutPerSession"] = rounded(refit.dropout)
            } else {
                object["returns"] = parametric(family, fit.familyValues, unit: options.gapUnit)
            }
            return object
        case .resampled:
            return ["name": "\(name) resampled", "weight": 1, "returns": source.merging(["distribution": "empirical"]) { a, _ in a }]
        case .replayed:
            return ["name": "\(name) replayed", "weight": 1, "returns": source.merging(["distribution": "replay"]) { a, _ in a }]
        }
    }

    /// Six significant digits: enough for a simulation, and a file a person can read.
    func rounded(_ x: Double) -> Double {
        guard x.isFinite, x != 0 else { return x }
        let digits = 6 - Int((log10(abs(x))).rounded(.up))
        let scale = pow(10, Double(digits))
        // Near the ends of the doubles (below 1e−302, above 1e302) the scale overflows: kept as it is.
        let value = (x * scale).rounded() / scale
        return scale.isFinite && scale > 0 && value.isFinite ? value : x
    }

    // MARK: charts

    /// Kaplan–Meier survival of the gaps against each fitted model's survival.
    public func survivalChart() -> String {
        let steps = kaplanMeier.steps
        let maxTime = min(steps.last?.time ?? 1, kaplanMeier.steps.map(\.time).max() ?? 1)
        var empirical: [(x: Double, y: Double)] = [(x: 0, y: 1)]
        for step in steps where step.events > 0 {
            empirical.append((x: step.time, y: empirical.last!.y))
            empirical.append((x: step.time, y: step.survival))
        }
        let grid = (0...120).map { maxTime * Double($0) / 120 }
        let series = [LineSeries(name: "recorded (Kaplan–Meier)", points: empirical, style: .solid)]
            + gapFits.map { fit in
                LineSeries(name: "\(fit.modelName) fit", points: grid.map { (x: $0, y: fit.survival($0)) }, style: .dashed)
            }
        return LineChart(
            title: "Time to the next visit: recorded vs fitted", xAxisTitle: "Gap since the last visit (\(options.gapUnit.rawValue))",
            yAxisTitle: "Share not yet back", yFormat: .percent, series: series).svg()
    }

    /// Customers by repeat visits in the calibration window: observed and BG/NBD-predicted.
    public func repeatChart(last: Int = 7) -> String? {
        guard let histogram = repeatHistogram(last: last) else { return nil }
        let groups = (0...last).map { $0 == last ? "\($0)+" : String($0) }
        return GroupedBarChart(
            title: "Repeat visits in the calibration window", groupAxisTitle: "Repeat visits",
            valueAxisTitle: "Customers", valueFormat: .number, groups: groups,
            series: [
                BarSeries(name: "observed", values: histogram.observed.map { BarValue($0) }),
                BarSeries(name: "BG/NBD predicted", values: histogram.predicted.map { BarValue($0) }),
            ]).svg()
    }
}
