import Foundation
import GapFamilies
import RecordedData

/// What `remindersim fit` computes from a recorded log: the gap models, BG/NBD, Pareto/NBD, and their checks.
public struct FitAnalysis {
    public struct Options: Sendable {
        /// Time unit of the gap models' parameters.
        public var gapUnit: GapUnit = .days
        /// Time unit of BG/NBD's and Pareto/NBD's α (and β) and of t, t_x, T (published fits use weeks).
        public var bgnbdUnit: GapUnit = .weeks
        /// End of the calibration window (seconds since 1970); default: half way through the observation.
        public var calibrationEnd: Double?
        /// How frequency, recency and age are measured; default: whole days for a log with day
        /// resolution, continuous time otherwise.
        public var convention: SummaryConvention?
        /// Horizon of the per-customer predictions, in `bgnbdUnit`; default: the holdout's length.
        public var predictionHorizon: Double?

        public init() {}
    }

    public let log: RecordedLog
    public let options: Options
    public let kaplanMeier: KaplanMeier
    /// Gap models by AIC, best first; a model that could not be fitted is left out with its reason.
    public let gapFits: [FitResult]
    public let gapFailures: [(model: String, reason: String)]
    /// Each of `gapFits` refitted with the dropout Kaplan–Meier's plateau shows, in the same order; nil
    /// where the plateau is 0 (every user came back) or the refit failed.
    public let gapFitsWithDropout: [GapFitWithDropout?]
    public let calibrationEnd: Double
    /// The convention the customer summaries were built with.
    public let convention: SummaryConvention
    /// Length of the holdout (calibration end to observation end), in `bgnbdUnit`.
    public let holdoutLength: Double
    public let customers: [CustomerSummary]
    public let bgnbd: BGNBDFit?
    public let bgnbdFailure: String?
    /// Pareto/NBD on the same customers, or why it could not be fitted.
    public let paretoNBD: ParetoNBDFit?
    public let paretoNBDFailure: String?
    /// Repeat visits after the calibration window, per customer (same order as `customers`).
    public let holdoutCounts: [Int]
    public let holdoutPredictions: [Double]
    /// Pareto/NBD's predictions of `holdoutCounts`; NaN without a usable fit.
    public let paretoHoldoutPredictions: [Double]

    public init(log: RecordedLog, options: Options = Options()) {
        self.log = log
        self.options = options
        let gapSeconds = options.gapUnit.seconds
        let gaps = log.gaps(unit: .minutes).map { CensoredGap(duration: $0.duration * 60 / gapSeconds, censored: $0.censored) }
        kaplanMeier = KaplanMeier(gaps)
        // A gap of length zero carries no information about a continuous model and breaks its log density.
        let observations = gaps.filter { $0.duration > 0 }
        var fits: [FitResult] = [], failures: [(String, String)] = []
        for model in GapModel.allCases {
            do {
                fits.append(try model.fit(observations))
            } catch {
                failures.append((model.name, error.description))
            }
        }
        gapFits = fits.sorted { $0.aic < $1.aic }
        gapFailures = failures
        let plateau = kaplanMeier.plateau
        gapFitsWithDropout = gapFits.map { fit in
            plateau > 0 && plateau < 1 ? try? fit.model.fit(observations, dropout: plateau, from: fit) : nil
        }

        let end = options.calibrationEnd ?? (log.firstVisit + (log.observationEnd - log.firstVisit) / 2)
        calibrationEnd = end
        let convention = options.convention ?? log.summaryConvention
        self.convention = convention
        customers = log.customerSummaries(calibrationEnd: end, unit: options.bgnbdUnit, convention: convention)
        holdoutCounts = log.holdoutCounts(calibrationEnd: end, holdoutEnd: log.observationEnd, convention: convention)
        let summaries = customers
        // Without a single repeat visit the likelihoods tell nothing about how often customers come
        // back: the optimiser would stop near its start and report that as an estimate.
        let noRepeat = customers.allSatisfy { $0.frequency == 0 }
            ? "no customer visited again in the calibration window (every frequency is 0), so nothing says how often customers return"
            : nil
        let (fit, failure) = noRepeat.map { (nil, $0) } ?? Self.attempt { () throws(FittingError) in try BGNBD.fit(summaries) }
        bgnbd = fit
        bgnbdFailure = failure
        let (pareto, paretoFailure) = noRepeat.map { (nil, $0) }
            ?? Self.attempt { () throws(FittingError) in try ParetoNBD.fit(summaries) }
        paretoNBD = pareto
        paretoNBDFailure = paretoFailure
        let holdoutLength = log.holdoutLength(calibrationEnd: end, holdoutEnd: log.observationEnd, convention: convention)
            / options.bgnbdUnit.seconds
        self.holdoutLength = holdoutLength
        // A fit at the edge of the parameter space predicts nothing useful, and its series can take
        // hundreds of millions of terms: predictions are made from usable fits only.
        let usable = Self.problem(of: fit, failure: failure) == nil ? fit : nil
        holdoutPredictions = customers.map { c in
            (try? usable?.conditionalExpectedTransactions(t: holdoutLength, x: c.frequency, tx: c.recency, T: c.age)) ?? .nan
        }
        let usablePareto = Self.problem(of: pareto, failure: paretoFailure) == nil ? pareto?.model : nil
        paretoHoldoutPredictions = customers.map { c in
            (try? usablePareto?.conditionalExpectedTransactions(t: holdoutLength, customer: c)) ?? .nan
        }
    }

    /// The fit, or why there is none.
    private static func attempt<Fit>(_ fit: () throws(FittingError) -> Fit) -> (Fit?, String?) {
        do { return (try fit(), nil) } catch { return (nil, error.description) }
    }

    /// One customer's history and the predictions of BG/NBD and Pareto/NBD for it (NaN from a model
    /// without a usable fit).
    public struct CustomerPrediction: Sendable, Equatable {
        public let summary: CustomerSummary
        public let probabilityAlive: Double
        /// E[Y(t) | x, t_x, T] over the prediction horizon (FHL 2005 eq. 10).
        public let expectedRepeatVisits: Double
        public let paretoProbabilityAlive: Double
        public let paretoExpectedRepeatVisits: Double
        /// Repeat visits recorded over the same horizon, when the log covers all of it.
        public let observedRepeatVisits: Int?
    }

    /// The horizon of the per-customer predictions, in `bgnbdUnit`.
    public var predictionHorizon: Double { options.predictionHorizon ?? holdoutLength }

    /// Whether the log covers the whole prediction horizon after the calibration window.
    public var predictionHorizonIsObserved: Bool { predictionHorizon <= holdoutLength + 1e-9 }

    /// Per-customer predictions over `predictionHorizon`, in the order of `customers`; nil when neither
    /// BG/NBD nor Pareto/NBD has a usable fit.
    public func customerPredictions() -> [CustomerPrediction]? {
        let bgnbd = bgnbdProblem == nil ? bgnbd?.model : nil
        let pareto = paretoNBDProblem == nil ? paretoNBD?.model : nil
        guard bgnbd != nil || pareto != nil else { return nil }
        let horizon = predictionHorizon
        let observed: [Int]? = predictionHorizonIsObserved
            ? (horizon == holdoutLength
                ? holdoutCounts
                : log.holdoutCounts(
                    calibrationEnd: calibrationEnd, holdoutEnd: calibrationEnd + horizon * options.bgnbdUnit.seconds,
                    convention: convention))
            : nil
        var result: [CustomerPrediction] = []
        result.reserveCapacity(customers.count)
        for (i, c) in customers.enumerated() {
            let expected = (try? bgnbd?.conditionalExpectedTransactions(t: horizon, customer: c)) ?? .nan
            let alive = (try? bgnbd?.probabilityAlive(customer: c)) ?? .nan
            let paretoExpected = (try? pareto?.conditionalExpectedTransactions(t: horizon, customer: c)) ?? .nan
            let paretoAlive = (try? pareto?.probabilityAlive(customer: c)) ?? .nan
            result.append(CustomerPrediction(
                summary: c, probabilityAlive: alive, expectedRepeatVisits: expected,
                paretoProbabilityAlive: paretoAlive, paretoExpectedRepeatVisits: paretoExpected,
                observedRepeatVisits: observed?[i]))
        }
        return result
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
    public var bgnbdProblem: String? { Self.problem(of: bgnbd, failure: bgnbdFailure) }

    /// Why the Pareto/NBD fit cannot be used in a scenario, or nil when it can (as for BG/NBD).
    public var paretoNBDProblem: String? { Self.problem(of: paretoNBD, failure: paretoNBDFailure) }

    static func problem(of bgnbd: BGNBDFit?, failure: String?) -> String? {
        guard let bgnbd else { return failure ?? "not fitted" }
        return problem(family: .bgnbd, parameters: bgnbd.parameters, converged: bgnbd.converged)
    }

    static func problem(of pareto: ParetoNBDFit?, failure: String?) -> String? {
        guard let pareto else { return failure ?? "not fitted" }
        if pareto.ranOutOfWork {
            return "the search spent its work budget on likelihoods that converge ever more slowly (it drifted towards "
                + "extreme values): the data cannot pin the model down"
        }
        return problem(family: .paretoNBD, parameters: pareto.parameters, converged: pareto.converged)
    }

    /// A customer-base model's fit that ran to the edge of the parameter space (no standard errors, or
    /// values a scenario refuses) describes no population.
    static func problem(family: GapFamily, parameters: [ParameterEstimate], converged: Bool) -> String? {
        if !converged { return "the optimiser did not converge" }
        if let (_, bad) = zip(family.parameters, parameters).first(where: { !$0.0.bounds.contains($0.1.value) }) {
            return String(format: "%@ = %.4g is at the edge of the parameter space", bad.name, bad.value)
        }
        if parameters.contains(where: { $0.standardError == nil }) {
            return "the likelihood is flat at the optimum (no standard errors): the data cannot pin the model down"
        }
        return nil
    }

    /// Why a gap model's fit cannot be used in a scenario, or nil when it can.
    public func problem(of fit: FitResult) -> String? { Self.problem(of: fit) }

    /// `gapFitsWithDropout[index]` when a scenario can use it: converged, to values the family accepts.
    public func dropoutRefit(_ index: Int) -> GapFitWithDropout? {
        guard let refit = gapFitsWithDropout[index], refit.converged, refit.dropout.isFinite else { return nil }
        let family = refit.model.family
        return zip(family.parameters, refit.familyValues).allSatisfy({ $1.isFinite && !$1.isSubnormal && $0.bounds.contains($1) }) ? refit : nil
    }

    /// A model a scenario segment can be written from.
    public enum SegmentModel: Sendable, Equatable {
        case bgnbd, paretoNBD
        /// `gapFits[index]`, with `gapFitsWithDropout[index]` when there is one.
        case gap(index: Int)
        /// Gaps resampled from the log's Kaplan–Meier estimate.
        case resampled
        /// The recorded users' timelines replayed.
        case replayed
    }

    /// The segment to recommend, with the reason in a sentence, and the others in the order to list them.
    ///
    /// BG/NBD and Pareto/NBD are fitted to the same customer summaries, so their AICs compare: the lower
    /// one is recommended, its dropout part of the model. Their likelihood is not the gap models', so
    /// a customer-base model is preferred when one is usable (it describes how users differ, and how
    /// they drop out, from the same data); otherwise the gap model with the lowest AIC, with the
    /// dropout censoring shows; otherwise the recorded gaps resampled, and last the log replayed.
    public func recommendation() -> (model: SegmentModel, reason: String, alternatives: [SegmentModel]) {
        var customerBase: [(SegmentModel, String, Double)] = []
        if let bgnbd, bgnbdProblem == nil { customerBase.append((.bgnbd, "BG/NBD", bgnbd.aic)) }
        if let paretoNBD, paretoNBDProblem == nil { customerBase.append((.paretoNBD, "Pareto/NBD", paretoNBD.aic)) }
        customerBase.sort { $0.2 < $1.2 }
        let gaps = gapFits.indices.filter { problem(of: gapFits[$0]) == nil }.map { SegmentModel.gap(index: $0) }
        let resampled: [SegmentModel] = kaplanMeier.steps.contains(where: { $0.events > 0 }) ? [.resampled] : []
        let all = customerBase.map(\.0) + gaps + resampled + [.replayed]
        let chosen = all[0]
        let reason: String
        switch chosen {
        case .bgnbd, .paretoNBD:
            let name = customerBase[0].1
            reason = customerBase.count > 1
                ? String(format: "%@ has the lower AIC of the two customer-base models (%.1f against %.1f); the dropout is the model's own",
                         name, customerBase[0].2, customerBase[1].2)
                : "\(name) is the usable customer-base model; the dropout is the model's own"
        case let .gap(index):
            let fit = gapFits[index]
            let dropout = dropoutRefit(index).map { String(format: ", with %.1f%% of users never back after a session as the censoring shows", $0.dropout * 100) } ?? ""
            reason = "no customer-base model is usable; \(fit.modelName) has the lowest AIC of the gap models\(dropout)"
        case .resampled:
            reason = "no parametric model is usable; the recorded gaps are resampled"
        case .replayed:
            reason = "no model is usable and no gap was seen to end; the recorded users are replayed"
        }
        return (chosen, reason, Array(all.dropFirst()))
    }

    /// Why a gap model's fit cannot be used in a scenario, or nil when it can: a value outside what
    /// the family's parameter accepts is named by the estimate it comes from.
    public static func problem(of fit: FitResult) -> String? {
        for ((parameter, value), estimate) in zip(zip(fit.model.family.parameters, fit.familyValues), fit.parameters)
        where !parameter.bounds.contains(value) {
            return String(format: "%@ = %.4g is outside what a scenario accepts", estimate.name, estimate.value)
        }
        return fit.converged ? nil : "the optimiser did not converge"
    }
}
