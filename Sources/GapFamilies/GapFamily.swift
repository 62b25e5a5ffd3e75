import Foundation
import Randomness

/// A parametric model of the gap between a user's visits, described once: its name in scenario
/// files, its parameters with the values a scenario accepts, its typical gap, its one-line
/// description and the sampler it compiles to. The scenario reader and writer, the simulation,
/// `fit` and the reports all read a family from here, so a new family is added in this file.
public enum GapFamily: String, CaseIterable, Sendable {
    case exponential
    case weibull
    case lognormal
    /// Gamma gaps with a shape and a mean: the sum of `shape` exponential stages when it is whole.
    case gamma
    /// BG/NBD: each user draws a rate λ ~ Gamma(r, rate α) per unit and a dropout chance
    /// p ~ Beta(a, b); gaps are Exp(λ) and after each repeat session the user drops out with p.
    case bgnbd
    /// Pareto/NBD: each user draws a rate λ ~ Gamma(r, rate α) per unit and a dropout rate
    /// μ ~ Gamma(s, rate β) per unit; the user visits at rate λ for an exponential lifetime of rate μ.
    case paretoNBD

    /// The name a scenario gives in `distribution`.
    public var name: String { rawValue }

    /// The name a person reads in tables and charts.
    public var title: String {
        switch self {
        case .exponential: return "Exponential"
        case .weibull: return "Weibull"
        case .lognormal: return "Lognormal"
        case .gamma: return "Gamma"
        case .bgnbd: return "BG/NBD"
        case .paretoNBD: return "Pareto/NBD"
        }
    }

    /// The parameters, in the order of a process's values; each is a field of the scenario's
    /// `returns` object, in the unit of the process (times) or per unit (rates).
    public var parameters: [GapParameter] {
        switch self {
        case .exponential:
            return [GapParameter("mean", .positiveUpTo(1e6), "mean gap")]
        case .weibull:
            return [GapParameter("shape", .within(0.05...50), "shape: below 1 the chance of returning falls with time away"),
                    GapParameter("scale", .positiveUpTo(1e6), "scale, the gap that 63% of users return within")]
        case .lognormal:
            return [GapParameter("mu", .within(-50...50), "mean of the gap's logarithm",
                                 alternative: GapParameter.Alternative(
                                    name: "median", bounds: .within(1e-20...1e6), meaning: "median gap", parameter: { log($0) })),
                    GapParameter("sigma", .positiveUpTo(10), "spread of the gap's logarithm")]
        case .gamma:
            return [GapParameter("shape", .within(0.05...50),
                                 "shape: below 1 returns come in bursts between long absences, above 1 they gather around the mean"),
                    GapParameter("mean", .positiveUpTo(1e6), "mean gap")]
        case .bgnbd:
            return [GapParameter("r", .positiveUpTo(1e6), "shape of the users' Gamma-distributed return rates"),
                    GapParameter("alpha", .positiveUpTo(1e6), "rate (inverse scale) of the users' return rates"),
                    GapParameter("a", .positiveUpTo(1e6), "first shape of the users' Beta-distributed dropout chances"),
                    GapParameter("b", .positiveUpTo(1e6), "second shape of the users' dropout chances")]
        case .paretoNBD:
            return [GapParameter("r", .positiveUpTo(1e6), "shape of the users' Gamma-distributed return rates"),
                    GapParameter("alpha", .positiveUpTo(1e6), "rate (inverse scale) of the users' return rates"),
                    GapParameter("s", .positiveUpTo(1e6), "shape of the users' Gamma-distributed dropout rates"),
                    GapParameter("beta", .positiveUpTo(1e6), "rate (inverse scale) of the users' dropout rates")]
        }
    }

    /// The gap a scenario's bounds compare with the shortest a person can manage, in the process's
    /// unit: the field that sets it (empty when it may be given two ways), its value and what kind of
    /// typical it is.
    public func typicalGap(_ values: [Double]) -> (field: String, value: Double, kind: String) {
        switch self {
        case .exponential:
            return ("mean", values[0], "mean")
        case .weibull:
            return ("scale", values[1] * tgamma(1 + 1 / values[0]), "mean")
        case .lognormal:
            // The median, not the mean: a large sigma would let a mean of hours hide a typical gap of nanoseconds.
            return ("", exp(values[0]), "median")
        case .gamma:
            return ("mean", values[1], "mean")
        case .bgnbd, .paretoNBD:
            return ("alpha", values[1] / values[0], "mean-rate")
        }
    }

    /// One line saying what the process is, with its parameters; `unit` is the plural unit name.
    public func describe(_ values: [Double], unit: String) -> String {
        switch self {
        case .exponential:
            return String(format: "exponential, mean %g %@", values[0], unit)
        case .weibull:
            return String(format: "Weibull, shape %g, scale %g %@", values[0], values[1], unit)
        case .lognormal:
            return String(format: "lognormal, median %.3g %@, sigma %g", exp(values[0]), unit, values[1])
        case .gamma:
            return String(format: "gamma, shape %g, mean %g %@", values[0], values[1], unit)
        case .bgnbd:
            return String(format: "BG/NBD, r %g, alpha %g (per %@), a %g, b %g",
                          values[0], values[1], String(unit.dropLast()), values[2], values[3])
        case .paretoNBD:
            return String(format: "Pareto/NBD, r %g, alpha %g, s %g, beta %g (per %@)",
                          values[0], values[1], values[2], values[3], String(unit.dropLast()))
        }
    }

    /// The sampler of gaps in seconds, built once per run; `unitSeconds` is the process's unit.
    /// The values must be accepted by `parameters`.
    public func sampler(_ values: [Double], unitSeconds: Double) -> GapDraw {
        switch self {
        case .exponential: return .exponential(ExponentialDistribution(mean: values[0] * unitSeconds))
        case .weibull: return .weibull(WeibullDistribution(shape: values[0], scale: values[1] * unitSeconds))
        case .lognormal: return .lognormal(LogNormalDistribution(mu: values[0] + log(unitSeconds), sigma: values[1]))
        case .gamma: return .other(GammaDistribution(shape: values[0], scale: values[1] * unitSeconds / values[0]))
        case .bgnbd, .paretoNBD: return .perUser
        }
    }

    /// How likely a recorded gap is under the family, for `fit`'s maximum likelihood; nil for a
    /// family whose users differ, whose gaps are no independent draws from one distribution (BG/NBD
    /// and Pareto/NBD are fitted to each user's history instead). A family with a likelihood and
    /// no fit of its own in `Fitting` is fitted from it alone.
    public var likelihood: GapLikelihood? {
        switch self {
        case .exponential:
            return GapLikelihood(
                logDensity: { t, v in -log(v[0]) - t / v[0] },
                logSurvival: { t, v in -t / v[0] },
                start: { [$0.mean] })
        case .weibull:
            return GapLikelihood(
                logDensity: { t, v in
                    let u = log(t / v[1])
                    return log(v[0] / v[1]) + (v[0] - 1) * u - exp(v[0] * u)
                },
                logSurvival: { t, v in -pow(t / v[1], v[0]) },
                // Var ln t = π²/(6k²) and E ln t = ln scale − γ/k, γ Euler's constant.
                start: { m in
                    let k = m.logVariance > 0 ? Double.pi / (6 * m.logVariance).squareRoot() : 1
                    return [k, exp(m.logMean + 0.577_215_664_901_532_9 / k)]
                })
        case .lognormal:
            return GapLikelihood(
                logDensity: { t, v in
                    let z = (log(t) - v[0]) / v[1]
                    return -log(t * v[1]) - 0.918_938_533_204_672_741_8 - 0.5 * z * z
                },
                logSurvival: { t, v in logNormalTail((log(t) - v[0]) / v[1]) },
                start: { m in [m.logMean, m.logVariance > 0 ? m.logVariance.squareRoot() : 1] })
        case .gamma:
            // Shape a and rate a/mean: f(t) = (a/m)^a t^(a−1) e^(−at/m) / Γ(a), S(t) = Q(a, at/m).
            return GapLikelihood(
                logDensity: { t, v in
                    let (shape, rate) = (v[0], v[0] / v[1])
                    guard shape > 0, rate > 0, rate.isFinite else { return .nan }
                    return shape * log(rate) - logGamma(shape) + (shape - 1) * log(t) - rate * t
                },
                logSurvival: { t, v in
                    let (shape, x) = (v[0], v[0] / v[1] * t)
                    guard shape > 0, shape.isFinite, x >= 0 else { return .nan }
                    return log(regularizedGammaQ(a: shape, x: x))
                },
                // The method of moments: mean²/variance is the shape.
                start: { m in [m.variance > 0 ? min(max(m.mean * m.mean / m.variance, 0.05), 50) : 1, m.mean] })
        case .bgnbd, .paretoNBD:
            return nil
        }
    }

    /// The distributions each user draws a return rate (per unit) and a dropout from, for a family
    /// whose users differ; nil for one whose users all follow the same gaps.
    public func mixing(_ values: [Double]) -> UserMixing? {
        switch self {
        case .bgnbd:
            return .dropoutChance(rate: GammaDistribution(shape: values[0], rate: values[1]),
                                  chance: BetaDistribution(a: values[2], b: values[3]))
        case .paretoNBD:
            return .dropoutRate(rate: GammaDistribution(shape: values[0], rate: values[1]),
                                dropoutRate: GammaDistribution(shape: values[2], rate: values[3]))
        case .exponential, .weibull, .lognormal, .gamma: return nil
        }
    }
}

/// What each user of a family whose users differ draws: a return rate per unit, and how the user drops out.
public enum UserMixing: Sendable {
    /// BG/NBD: after each repeat visit the user drops out with a chance drawn from `chance`.
    case dropoutChance(rate: GammaDistribution, chance: BetaDistribution)
    /// Pareto/NBD: the user stays for an exponential lifetime whose rate is drawn from `dropoutRate`.
    case dropoutRate(rate: GammaDistribution, dropoutRate: GammaDistribution)
}

/// A family's sampler of gaps in seconds: a plain value, so a run copies it without reference
/// counting and draws without looking anything up.
public enum GapDraw: Sendable {
    case exponential(ExponentialDistribution)
    case weibull(WeibullDistribution)
    case lognormal(LogNormalDistribution)
    /// Any other distribution: the simulation draws from it through `ContinuousDistribution.sample`,
    /// so a family whose gaps follow a distribution of `Randomness` needs no case of its own.
    case other(any ContinuousDistribution)
    /// Each user's gaps follow from what the user drew from the family's `mixing`.
    case perUser
}

/// The likelihood of one recorded gap under a family whose users all draw their gaps from one
/// distribution, at the family's parameter values (in the order of `parameters`, times in the
/// process's unit). Values outside the family's domain give NaN or −infinity, never a trap.
public struct GapLikelihood: Sendable {
    /// ln f(t): the gap ended after t.
    public let logDensity: @Sendable (_ t: Double, _ values: [Double]) -> Double
    /// ln S(t) = ln P(gap > t): the gap was still running after t (right-censored).
    public let logSurvival: @Sendable (_ t: Double, _ values: [Double]) -> Double
    /// Values to start a search from, close to the optimum, from the moments of the gaps that ended.
    public let start: @Sendable (GapMoments) -> [Double]

    public init(logDensity: @escaping @Sendable (_ t: Double, _ values: [Double]) -> Double,
                logSurvival: @escaping @Sendable (_ t: Double, _ values: [Double]) -> Double,
                start: @escaping @Sendable (GapMoments) -> [Double]) {
        (self.logDensity, self.logSurvival, self.start) = (logDensity, logSurvival, start)
    }
}

/// Mean and variance of some gaps and of their logarithms, from which a fit starts; the variances
/// divide by the count (0 for a single gap).
public struct GapMoments: Sendable, Equatable {
    public let mean: Double
    public let variance: Double
    public let logMean: Double
    public let logVariance: Double

    /// - Parameter gaps: positive and not empty.
    public init(_ gaps: [Double]) {
        let n = Double(max(gaps.count, 1))
        mean = gaps.reduce(0, +) / n
        let m = mean
        variance = gaps.reduce(0) { $0 + ($1 - m) * ($1 - m) } / n
        let logs = gaps.map { log($0) }
        logMean = logs.reduce(0, +) / n
        let lm = logMean
        logVariance = logs.reduce(0) { $0 + ($1 - lm) * ($1 - lm) } / n
    }
}

/// One parameter of a gap family.
public struct GapParameter: Sendable {
    /// The values a scenario accepts.
    public enum Bounds: Sendable, Equatable {
        /// Above zero and at most the limit.
        case positiveUpTo(Double)
        /// Within a closed range.
        case within(ClosedRange<Double>)

        public func contains(_ x: Double) -> Bool {
            switch self {
            case let .positiveUpTo(limit): return x > 0 && x <= limit
            case let .within(range): return range.contains(x)
            }
        }
    }

    /// Another field a scenario may give instead, and how the parameter follows from it.
    public struct Alternative: Sendable {
        public let name: String
        public let bounds: Bounds
        public let meaning: String
        public let parameter: @Sendable (Double) -> Double
    }

    /// The field's name in a scenario's `returns` object.
    public let name: String
    public let bounds: Bounds
    /// What the parameter means, for a person.
    public let meaning: String
    public let alternative: Alternative?

    /// Whether every value the parameter takes is positive: a fit then searches over its logarithm.
    public var isPositive: Bool {
        switch bounds {
        case .positiveUpTo: return true
        case let .within(range): return range.lowerBound > 0
        }
    }

    /// The value on a scale without bounds, where a fit searches: its logarithm for a positive
    /// parameter, the value itself otherwise.
    public func unconstrained(_ value: Double) -> Double { isPositive ? log(value) : value }

    /// The value at a point `y` of the unconstrained scale: the inverse of `unconstrained`.
    public func constrained(_ y: Double) -> Double { isPositive ? exp(y) : y }

    init(_ name: String, _ bounds: Bounds, _ meaning: String, alternative: Alternative? = nil) {
        (self.name, self.bounds, self.meaning, self.alternative) = (name, bounds, meaning, alternative)
    }
}
