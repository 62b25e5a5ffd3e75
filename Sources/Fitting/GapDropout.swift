#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif
import GapFamilies
import RecordedData

/// A gap model refitted for users who, after each session, never come back with a given chance.
public struct GapFitWithDropout: Sendable {
    public let model: GapModel
    /// The chance that a gap never ends, held fixed in the fit.
    public let dropout: Double
    /// The family's parameter values, in the family's order, as a scenario gives them.
    public let familyValues: [Double]
    public let logLikelihood: Double
    public let converged: Bool
}

extension GapModel {
    /// The model's parameters by maximum likelihood when each gap never ends with chance `dropout`
    /// (the share of gaps the data never saw end, Kaplan–Meier's plateau): an ended gap t counts
    /// ln((1 − p) f(t)), a censored one ln(p + (1 − p) S(t)).
    ///
    /// A plain fit explains the gaps that never ended by stretching its tail; a scenario that adds the
    /// same dropout on top would count them twice. Held fixed, p needs no standard error of its own;
    /// the search starts from the plain fit `start`.
    public func fit(_ observations: [CensoredGap], dropout p: Double, from start: FitResult) throws(FittingError) -> GapFitWithDropout {
        guard p >= 0, p < 1 else { throw .invalidParameter("dropout must be in [0, 1)") }
        var events: [Double] = [], censored: [Double] = []
        for (index, o) in observations.enumerated() {
            guard o.duration.isFinite, o.censored ? o.duration >= 0 : o.duration > 0 else {
                throw .invalidObservation(index: index)
            }
            if !o.censored { events.append(o.duration) } else if o.duration > 0 { censored.append(o.duration) }
        }
        guard !events.isEmpty else { throw .noUncensoredObservations }
        let logStay = log1p(-p), logGo = log(p)
        // A zero-length censored gap is certain to be still running: ln(p + (1 − p)·1) = 0.
        func logLikelihood(_ d: GapDistribution) -> Double {
            var total = Double(events.count) * logStay
            for t in events { total += d.logDensity(t) }
            for t in censored { total += logAddExp(logGo, logStay + d.logSurvival(t)) }
            return total
        }
        let (startPoint, distribution) = searchSpace(start.distribution)
        let objective: ([Double]) -> Double = { x in
            guard x.allSatisfy({ abs($0) < 700 }) else { return .infinity }
            return -logLikelihood(distribution(x))
        }
        let search = NelderMead().minimize(objective, from: startPoint)
        guard search.value.isFinite else { throw .optimizationFailed }
        let polished = newtonPolish(objective, from: search.point, startValue: search.value)
        let values: [Double]
        switch distribution(polished.point) {
        case let .exponential(rate): values = [1 / rate]
        case let .weibull(shape, scale): values = [shape, scale]
        case let .logNormal(mu, sigma): values = [mu, sigma]
        case let .family(_, v): values = v
        }
        return GapFitWithDropout(model: self, dropout: p, familyValues: values, logLikelihood: -polished.value,
                                 converged: search.converged || polished.stationary)
    }

    /// Unconstrained coordinates of a distribution of this model (logarithms of positive parameters,
    /// as `GapParameter.unconstrained` says) and the distribution at a point of them.
    private func searchSpace(_ d: GapDistribution) -> ([Double], ([Double]) -> GapDistribution) {
        switch d {
        case let .exponential(rate): return ([log(rate)], { .exponential(rate: exp($0[0])) })
        case let .weibull(shape, scale): return ([log(shape), log(scale)], { .weibull(shape: exp($0[0]), scale: exp($0[1])) })
        case let .logNormal(mu, sigma): return ([mu, log(sigma)], { .logNormal(mu: $0[0], sigma: exp($0[1])) })
        case let .family(family, values):
            let parameters = family.parameters
            return (zip(parameters, values).map { $0.unconstrained($1) },
                    { .family(family, values: zip(parameters, $0).map { $0.constrained($1) }) })
        }
    }
}
