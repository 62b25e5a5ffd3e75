import Fitting
import Foundation
import RecordedData
import Rendering
import Simulation

/// What `remindersim fit` computes from a recorded log: the gap models, BG/NBD, and their checks.
public struct FitAnalysis {
    public struct Options: Sendable {
        /// Time unit of the gap models' parameters.
        public var gapUnit: GapUnit = .days
        /// Time unit of BG/NBD's α and of t, t_x, T (published fits use weeks).
        public var bgnbdUnit: GapUnit = .weeks
        /// End of the calibration window (seconds since 1970); default: half way through the observation.
        public var calibrationEnd: Double?

        public init() {}
    }

    public let log: RecordedLog
    public let options: Options
    public let kaplanMeier: KaplanMeier
    /// Gap models by AIC, best first; a model that could not be fitted is left out with its reason.
    public let gapFits: [FitResult]
    public let gapFailures: [(model: String, reason: String)]
    public let calibrationEnd: Double
    public let customers: [Fitting.CustomerSummary]
    public let bgnbd: BGNBDFit?
    public let bgnbdFailure: String?
    /// Repeat visits after the calibration window, per customer (same order as `customers`).
    public let holdoutCounts: [Int]
    public let holdoutPredictions: [Double]

    public init(log: RecordedLog, options: Options = Options()) {
        self.log = log
        self.options = options
        let gapSeconds = options.gapUnit.seconds
        let gaps = log.gaps(unit: .minutes).map { CensoredGap(duration: $0.duration * 60 / gapSeconds, censored: $0.censored) }
        kaplanMeier = KaplanMeier(gaps)
        // A gap of length zero carries no information about a continuous model and breaks its log density.
        let observations = gaps.filter { $0.duration > 0 }.map { CensoredObservation(value: $0.duration, censored: $0.censored) }
        var fits: [FitResult] = [], failures: [(String, String)] = []
        for model in GapModel.allCases {
            do {
                fits.append(try model.fit(observations))
            } catch {
                failures.append((model.rawValue, "\(error)"))
            }
        }
        gapFits = fits.sorted { $0.aic < $1.aic }
        gapFailures = failures

        let end = options.calibrationEnd ?? (log.firstVisit + (log.observationEnd - log.firstVisit) / 2)
        calibrationEnd = end
        let unit = LogTimeUnit(options.bgnbdUnit)
        let summaries = log.customerSummaries(calibrationEnd: end, unit: unit)
        customers = summaries.map { Fitting.CustomerSummary(frequency: $0.frequency, recency: $0.recency, age: $0.age) }
        holdoutCounts = log.holdoutCounts(calibrationEnd: end, holdoutEnd: log.observationEnd)
        var fit: BGNBDFit?, failure: String?
        do {
            fit = try BGNBD.fit(customers)
        } catch {
            failure = "\(error)"
        }
        bgnbd = fit
        bgnbdFailure = failure
        let holdoutLength = (log.observationEnd - end) / options.bgnbdUnit.seconds
        holdoutPredictions = customers.map { c in
            (try? fit?.conditionalExpectedTransactions(t: holdoutLength, x: c.frequency, tx: c.recency, T: c.age)) ?? .nan
        }
    }

    /// Observed and predicted numbers of customers with x = 0, 1, …, `last`+ repeat visits in the calibration window.
    public func repeatHistogram(last: Int = 7) -> (observed: [Double], predicted: [Double])? {
        guard let bgnbd else { return nil }
        var observed = Array(repeating: 0.0, count: last + 1)
        var predicted = Array(repeating: 0.0, count: last + 1)
        var byAge: [Double: Int] = [:]
        for c in customers {
            observed[min(c.frequency, last)] += 1
            byAge[c.age, default: 0] += 1
        }
        for (age, count) in byAge {
            guard let p = try? bgnbd.repeatCountProbabilities(t: age, count: last) else { return nil }
            for x in 0..<last { predicted[x] += Double(count) * p[x] }
            predicted[last] += Double(count) * max(0, 1 - p.reduce(0, +))
        }
        return (observed, predicted)
    }

    /// Why the BG/NBD fit cannot be used in a scenario, or nil when it can: a fit that ran to the edge
    /// of the parameter space (no standard errors, or values a scenario refuses) describes no population.
    public var bgnbdProblem: String? {
        guard let bgnbd else { return bgnbdFailure ?? "not fitted" }
        if !bgnbd.converged { return "the optimiser did not converge" }
        if let bad = bgnbd.parameters.first(where: { !($0.value > 0 && $0.value <= 1e6) }) {
            return String(format: "%@ = %.4g is at the edge of the parameter space", bad.name, bad.value)
        }
        if bgnbd.parameters.contains(where: { $0.standardError == nil }) {
            return "the likelihood is flat at the optimum (no standard errors): the data cannot pin the model down"
        }
        return nil
    }

    /// Why a gap model's fit cannot be used in a scenario, or nil when it can.
    public func problem(of fit: FitResult) -> String? {
        for p in fit.parameters {
            let value = p.name == "rate" ? 1 / p.value : p.value
            let limit = p.name == "mu" ? 50.0 : 1e6
            if !(value.isFinite && abs(value) <= limit && (p.name == "mu" || value > 0)) {
                return String(format: "%@ = %.4g is outside what a scenario accepts", p.name, p.value)
            }
        }
        return fit.converged ? nil : "the optimiser did not converge"
    }

    /// Segment JSON objects a scenario can use as they are: BG/NBD, each gap model, and the data itself.
    /// Fits that are not usable are left out. `dataPath` should be absolute, so the segments work from
    /// any scenario folder.
    public func segments(dataPath: String, format: RecordedFormat, observationEnd: String?) -> [[String: Any]] {
        var out: [[String: Any]] = []
        let name = ((dataPath as NSString).lastPathComponent as NSString).deletingPathExtension
        if let bgnbd, bgnbdProblem == nil {
            var returns: [String: Any] = ["distribution": "bgnbd", "unit": options.bgnbdUnit.rawValue]
            for p in bgnbd.parameters { returns[p.name == "α" ? "alpha" : p.name] = rounded(p.value) }
            out.append(["name": "\(name) BG/NBD", "weight": 1, "returns": returns])
        }
        for fit in gapFits where problem(of: fit) == nil {
            var returns: [String: Any] = ["unit": options.gapUnit.rawValue]
            switch fit.model {
            case .exponential:
                returns["distribution"] = "exponential"
                returns["mean"] = rounded(1 / (fit.parameters["rate"]?.value ?? .nan))
            case .weibull:
                returns["distribution"] = "weibull"
                returns["shape"] = rounded(fit.parameters["shape"]?.value ?? .nan)
                returns["scale"] = rounded(fit.parameters["scale"]?.value ?? .nan)
            case .logNormal:
                returns["distribution"] = "lognormal"
                returns["mu"] = rounded(fit.parameters["mu"]?.value ?? .nan)
                returns["sigma"] = rounded(fit.parameters["sigma"]?.value ?? .nan)
            }
            out.append(["name": "\(name) \(returns["distribution"]!)", "weight": 1, "returns": returns])
        }
        var source: [String: Any] = ["data": dataPath]
        if let observationEnd { source["observationEnd"] = observationEnd }
        switch format {
        case .cdnow: source["format"] = "cdnow"
        case let .delimited(d):
            let data = (try? JSONEncoder().encode(d)) ?? Data()
            source["format"] = (try? JSONSerialization.jsonObject(with: data)) ?? [:]
        }
        if kaplanMeier.steps.contains(where: { $0.events > 0 }) {
            out.append(["name": "\(name) resampled", "weight": 1,
                        "returns": source.merging(["distribution": "empirical"]) { a, _ in a }])
        }
        out.append(["name": "\(name) replayed", "weight": 1,
                    "returns": source.merging(["distribution": "replay"]) { a, _ in a }])
        return out
    }

    /// Six significant digits: enough for a simulation, and a file a person can read.
    func rounded(_ x: Double) -> Double {
        guard x.isFinite, x != 0 else { return x }
        let digits = 6 - Int((log10(abs(x))).rounded(.up))
        let scale = pow(10, Double(digits))
        return (x * scale).rounded() / scale
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

extension LogTimeUnit {
    init(_ unit: GapUnit) {
        switch unit {
        case .minutes: self = .minutes
        case .hours: self = .hours
        case .days: self = .days
        case .weeks: self = .weeks
        }
    }
}
