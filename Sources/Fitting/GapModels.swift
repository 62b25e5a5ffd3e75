import Foundation
import GapFamilies
import Randomness
import RecordedData

/// A fitted gap distribution that can be evaluated, e.g. for survival charts.
public enum GapDistribution: Sendable, Equatable {
    case exponential(rate: Double)
    case weibull(shape: Double, scale: Double)
    case logNormal(mu: Double, sigma: Double)
    /// A family's distribution at its parameter values, evaluated by the family's `likelihood`.
    case family(GapFamily, values: [Double])

    /// S(t) = P(gap > t).
    public func survival(_ t: Double) -> Double {
        t <= 0 ? 1 : exp(logSurvival(t))
    }

    /// f(t), the density.
    public func density(_ t: Double) -> Double {
        t <= 0 ? 0 : exp(logDensity(t))
    }

    func logSurvival(_ t: Double) -> Double {
        switch self {
        case let .exponential(rate):
            return -rate * t
        case let .weibull(shape, scale):
            return -pow(t / scale, shape)
        case let .logNormal(mu, sigma):
            return logNormalTail((log(t) - mu) / sigma)
        case let .family(family, values):
            return family.likelihood?.logSurvival(t, values) ?? .nan
        }
    }

    func logDensity(_ t: Double) -> Double {
        switch self {
        case let .exponential(rate):
            return log(rate) - rate * t
        case let .weibull(shape, scale):
            let u = log(t / scale)
            return log(shape / scale) + (shape - 1) * u - exp(shape * u)
        case let .logNormal(mu, sigma):
            let z = (log(t) - mu) / sigma
            return -log(t * sigma) - 0.918_938_533_204_672_741_8 - 0.5 * z * z
        case let .family(family, values):
            return family.likelihood?.logDensity(t, values) ?? .nan
        }
    }
}

/// A gap model fitted by maximum likelihood with right-censoring: one for each gap family whose
/// users all draw their gaps from one distribution, that is each family with a `likelihood`.
public struct GapModel: Sendable, Hashable, CaseIterable {
    /// The family the model fits, whose parameters a scenario gives.
    public let family: GapFamily

    /// The model of `family`; nil for a family without a likelihood of its gaps (BG/NBD, Pareto/NBD).
    public init?(_ family: GapFamily) {
        guard family.likelihood != nil else { return nil }
        self.family = family
    }

    private init(known family: GapFamily) { self.family = family }

    public static let exponential = GapModel(known: .exponential)
    public static let weibull = GapModel(known: .weibull)
    public static let logNormal = GapModel(known: .lognormal)

    /// Every family's model, in the families' order.
    public static let allCases: [GapModel] = GapFamily.allCases.compactMap(GapModel.init)

    /// The name a person reads, the family's.
    public var name: String { family.title }

    /// Maximum-likelihood fit: logL = Σ_uncensored ln f(t) + Σ_censored ln S(t).
    ///
    /// The exponential, Weibull and lognormal have fits of their own: the exponential's in closed
    /// form, the Weibull's by its profile likelihood, the lognormal's by Nelder–Mead from the moments
    /// of ln t; standard errors come from the inverse observed information (the Hessian of −logL at
    /// the optimum in the natural parameters), analytic for the exponential and Weibull, central
    /// differences for the lognormal. Every other family is fitted from its likelihood alone
    /// (`fitByLikelihood`). Censored gaps of length 0 carry no information and are allowed.
    public func fit(_ observations: [CensoredGap]) throws(FittingError) -> FitResult {
        let data = try GapData(observations)
        try data.checkSpread(for: family)
        switch family {
        case .exponential: return fitExponential(data)
        case .weibull: return try fitWeibull(data)
        case .lognormal: return try fitLogNormal(data)
        default: return try fitLikelihood(self, data)
        }
    }

    /// The fit from the family's likelihood alone, whatever fit of its own the model has: Nelder–Mead
    /// and Newton steps over the parameters' unconstrained coordinates, standard errors from the
    /// numerical Hessian there (see `GapFamily.likelihood` and `GapParameter.unconstrained`).
    public func fitByLikelihood(_ observations: [CensoredGap]) throws(FittingError) -> FitResult {
        try fitLikelihood(self, try GapData(observations))
    }

    /// A fit's estimates as the values of the family's parameters, in the family's order: the
    /// exponential's rate becomes its mean gap; the other models estimate the parameters themselves.
    func familyValues(_ estimates: [ParameterEstimate]) -> [Double] {
        if family == .exponential, let rate = estimates["rate"] { return [1 / rate.value] }
        return family.parameters.map { estimates[$0.name]?.value ?? .nan }
    }
}

/// The result of fitting a gap model.
public struct FitResult: Sendable, CustomStringConvertible {
    public let model: GapModel
    public let distribution: GapDistribution
    public let parameters: [ParameterEstimate]
    /// Inverse observed information in the order of `parameters`; nil when it is not positive definite.
    public let covariance: [[Double]]?
    public let logLikelihood: Double
    /// Number of observations, censored ones included.
    public let n: Int
    public let uncensoredCount: Int
    public let converged: Bool
    public let iterations: Int

    public var modelName: String { model.name }

    /// The estimates as the values of the family's parameters, in its order, as a scenario gives them.
    public var familyValues: [Double] { model.familyValues(parameters) }

    /// 2k − 2 logL.
    public var aic: Double { 2 * Double(parameters.count) - 2 * logLikelihood }

    public func survival(_ t: Double) -> Double { distribution.survival(t) }

    public var description: String {
        describeFit(
            title: "\(modelName) fit", parameters: parameters, logLikelihood: logLikelihood, aic: aic,
            detail: "n = \(n), \(uncensoredCount) uncensored", converged: converged, iterations: iterations
        )
    }
}

func describeFit(
    title: String, parameters: [ParameterEstimate], logLikelihood: Double, aic: Double,
    detail: String, converged: Bool, iterations: Int
) -> String {
    let estimates = parameters.map { p in
        let se = p.standardError.map { String(format: " ± %.4g", $0) } ?? " (SE unavailable)"
        return "\(p.name) = " + String(format: "%.6g", p.value) + se
    }
    let status = converged ? "converged" : "NOT converged"
    return "\(title) (\(detail)): \(estimates.joined(separator: ", ")); "
        + String(format: "logL = %.4f, AIC = %.4f", logLikelihood, aic)
        + "; \(status) after \(iterations) iterations"
}

/// Validated observations split into events and censored gaps.
struct GapData {
    let n: Int
    let events: [Double]
    /// Positive censored gaps; zero-length ones contribute ln S(0) = 0.
    let censored: [Double]

    init(_ observations: [CensoredGap]) throws(FittingError) {
        guard !observations.isEmpty else { throw .emptyData }
        var events: [Double] = []
        var censored: [Double] = []
        for (index, o) in observations.enumerated() {
            guard o.duration.isFinite, o.censored ? o.duration >= 0 : o.duration > 0 else {
                throw .invalidObservation(index: index)
            }
            if !o.censored {
                events.append(o.duration)
            } else if o.duration > 0 {
                censored.append(o.duration)
            }
        }
        guard !events.isEmpty else { throw .noUncensoredObservations }
        n = observations.count
        self.events = events
        self.censored = censored
    }

    var d: Double { Double(events.count) }
    var all: [Double] { events + censored }

    /// Throws when the ended gaps are all of one length and `family` has a shape: it has nothing to fit
    /// but a spike, which its search would chase for as long as it is let (sigma or 1/shape to zero,
    /// a gamma likelihood growing past any sense in floating point), each step over every gap.
    /// One ended gap is such a spike too unless a censored gap clearly longer (by a tenth) keeps it from
    /// one: a censored gap a second longer still lets the search narrow the spike to that second.
    func checkSpread(for family: GapFamily) throws(FittingError) {
        guard family.parameters.count > 1, let first = events.first, events.allSatisfy({ $0 == first }) else { return }
        if events.count > 1 { throw .degenerateData("every ended gap has the same length: the events have no spread") }
        guard censored.allSatisfy({ $0 < first * 1.1 }) else { return }
        throw .degenerateData("only one gap ended, and no user was seen away for much longer: the events have no spread")
    }

    func logLikelihood(_ distribution: GapDistribution) -> Double {
        events.reduce(0) { $0 + distribution.logDensity($1) } + censored.reduce(0) { $0 + distribution.logSurvival($1) }
    }
}

extension FitResult {
    /// The fit of `model` to `data` at the optimum `parameters`, with standard errors and covariance from
    /// `hessian`, the Hessian of −logL there.
    fileprivate init(
        _ model: GapModel, _ distribution: GapDistribution, _ data: GapData, parameters: KeyValuePairs<String, Double>,
        hessian: [[Double]], logLikelihood: Double, converged: Bool, iterations: Int
    ) {
        let fitted = parameterEstimates(parameters, hessian: hessian)
        self.init(
            model: model, distribution: distribution, parameters: fitted.parameters, covariance: fitted.covariance,
            logLikelihood: logLikelihood, n: data.n, uncensoredCount: data.events.count, converged: converged,
            iterations: iterations)
    }
}

/// λ̂ = d / Σt and, from the observed information d/λ², SE = λ̂/√d.
private func fitExponential(_ data: GapData) -> FitResult {
    let total = data.all.reduce(0, +)
    let rate = data.d / total
    let se = rate / data.d.squareRoot()
    return FitResult(
        model: .exponential, distribution: .exponential(rate: rate),
        parameters: [ParameterEstimate(name: "rate", value: rate, standardError: se)],
        covariance: [[se * se]], logLikelihood: data.d * log(rate) - data.d,
        n: data.n, uncensoredCount: data.events.count, converged: true, iterations: 0
    )
}

/// Profile likelihood in the shape k: for fixed k the scale is λ̂(k)ᵏ = Σtᵏ / d, and the profile score
/// g(k) = d/k + Σ_events ln t − d · Σ tᵏ ln t / Σ tᵏ is strictly decreasing, so its single root is
/// bracketed by doubling/halving and polished by safeguarded Newton steps.
private func fitWeibull(_ data: GapData) throws(FittingError) -> FitResult {
    let logs = data.all.map { log($0) }
    let sumEventLogs = data.events.reduce(0) { $0 + log($1) }
    let maxLog = logs.max() ?? 0
    let d = data.d
    // With every event at the longest observed time, the likelihood grows without bound as k → ∞.
    guard data.events.contains(where: { log($0) < maxLog }) else {
        throw .degenerateData("Weibull shape diverges: every event is at the longest observed time")
    }

    // Weighted moments of ln t with weights tᵏ, scaled by the largest t so nothing overflows.
    func moments(_ k: Double) -> (logSum: Double, mean: Double, variance: Double) {
        var s0 = 0.0, s1 = 0.0, s2 = 0.0
        for u in logs {
            let w = exp(k * (u - maxLog))
            s0 += w
            s1 += w * u
            s2 += w * u * u
        }
        let mean = s1 / s0
        return (k * maxLog + log(s0), mean, max(0, s2 / s0 - mean * mean))
    }
    func score(_ k: Double) -> Double { d / k + sumEventLogs - d * moments(k).mean }

    var low = 1.0, high = 1.0
    var iterations = 0
    if score(1) > 0 {
        repeat {
            low = high
            high *= 2
            iterations += 1
            guard iterations < 60 else { throw .degenerateData("Weibull shape diverges: the gaps have no spread") }
        } while score(high) > 0
    } else {
        repeat {
            high = low
            low /= 2
            iterations += 1
            guard iterations < 1100 else { throw .degenerateData("Weibull shape collapses to zero") }
        } while score(low) <= 0
    }
    var k = (low + high) / 2
    var converged = false
    for _ in 0..<200 {
        iterations += 1
        let m = moments(k)
        let g = d / k + sumEventLogs - d * m.mean
        if g > 0 { low = k } else { high = k }
        let slope = -d / (k * k) - d * m.variance
        var next = k - g / slope
        if !(next > low && next < high) { next = (low + high) / 2 }
        if abs(next - k) <= 1e-13 * k || high - low <= 1e-13 * k {
            k = next
            converged = true
            break
        }
        k = next
    }

    let logScale = (moments(k).logSum - log(d)) / k
    return weibullResult(data, shape: k, logScale: logScale, sumEventLogs: sumEventLogs, logs: logs,
                         converged: converged, iterations: iterations)
}

/// The Weibull fit at shape `k` and scale e^`logScale`, the profile likelihood's maximum, with its
/// standard errors.
private func weibullResult(
    _ data: GapData, shape k: Double, logScale: Double, sumEventLogs: Double, logs: [Double], converged: Bool,
    iterations: Int
) -> FitResult {
    let d = data.d
    let scale = exp(logScale)
    let logLikelihood = d * log(k) - d * k * logScale + (k - 1) * sumEventLogs - d

    // Observed information at the optimum, where Σ(t/λ)ᵏ = d simplifies the second derivatives.
    var szl = 0.0, szl2 = 0.0
    for u in logs {
        let l = u - logScale
        let z = exp(k * l)
        szl += z * l
        szl2 += z * l * l
    }
    let information = [
        [d / (k * k) + szl2, -k / scale * szl],
        [-k / scale * szl, d * k * k / (scale * scale)],
    ]
    return FitResult(
        .weibull, .weibull(shape: k, scale: scale), data, parameters: ["shape": k, "scale": scale], hessian: information,
        logLikelihood: logLikelihood, converged: converged, iterations: iterations)
}

/// Nelder–Mead over (μ, ln σ) from the moments of the uncensored ln t, sharpened by Newton steps;
/// SEs from a central-difference Hessian in (μ, σ) with steps 1e−4·σ̂ for both.
private func fitLogNormal(_ data: GapData) throws(FittingError) -> FitResult {
    let logs = data.events.map { log($0) }
    let mean = logs.reduce(0, +) / data.d
    let spread = (logs.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / data.d).squareRoot()
    let start = [mean, log(spread > 0 ? spread : 1)]

    func negativeLogLikelihood(_ p: [Double]) -> Double {
        guard p[1] > -700, p[1] < 700 else { return .infinity }
        return -data.logLikelihood(.logNormal(mu: p[0], sigma: exp(p[1])))
    }
    let search = NelderMead().minimize(negativeLogLikelihood, from: start)
    guard search.value.isFinite else { throw .optimizationFailed }
    let polished = newtonPolish(negativeLogLikelihood, from: search.point, startValue: search.value)
    let mu = polished.point[0]
    let sigma = exp(polished.point[1])
    guard sigma > 1e-8 * max(1, abs(mu)) else {
        throw .degenerateData("lognormal sigma collapses to zero: the events have no spread")
    }

    let natural: ([Double]) -> Double = { p in -data.logLikelihood(.logNormal(mu: p[0], sigma: p[1])) }
    let hessian = NumericalDerivatives.hessian(of: natural, at: [mu, sigma], steps: [1e-4 * sigma, 1e-4 * sigma])
    return FitResult(
        .logNormal, .logNormal(mu: mu, sigma: sigma), data, parameters: ["mu": mu, "sigma": sigma], hessian: hessian,
        logLikelihood: -polished.value, converged: search.converged || polished.stationary,
        iterations: search.iterations + polished.iterations)
}
