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
        case .bgnbd, .paretoNBD: return .perUser
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
        case .exponential, .weibull, .lognormal: return nil
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
    /// Each user's gaps follow from what the user drew from the family's `mixing`.
    case perUser
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

    init(_ name: String, _ bounds: Bounds, _ meaning: String, alternative: Alternative? = nil) {
        (self.name, self.bounds, self.meaning, self.alternative) = (name, bounds, meaning, alternative)
    }
}
