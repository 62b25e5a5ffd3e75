#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif
import GapFamilies

/// Maximum likelihood for a family known only by its description (`GapFamily.likelihood`): how a
/// family without a fit of its own (any but the exponential, Weibull and lognormal) is fitted.
///
/// Nelder–Mead searches the parameters' unconstrained coordinates (`GapParameter.unconstrained`:
/// the logarithm of a positive parameter) from the family's starting values, a few damped Newton
/// steps sharpen the optimum, and the standard errors come from a central-difference Hessian of −logL
/// in those coordinates carried to the parameters by the delta method: with J = diag(dθᵢ/dyᵢ) the
/// covariance is J H⁻¹ J, which at a stationary point is the inverse of the Hessian in θ.
func fitLikelihood(_ model: GapModel, _ data: GapData) throws(FittingError) -> FitResult {
    let family = model.family
    guard let likelihood = family.likelihood else {
        throw .invalidParameter("\(family.title) gaps are not independent draws from one distribution")
    }
    let parameters = family.parameters
    try data.checkSpread(for: family)
    let start = zip(parameters, likelihood.start(GapMoments(data.events))).map { $0.unconstrained($1) }
    // Beyond e^±100 a positive parameter only drifts on a likelihood flat to double precision.
    let limit = 100.0
    func negativeLogLikelihood(_ y: [Double]) -> Double {
        guard zip(parameters, y).allSatisfy({ !$0.isPositive || abs($1) < limit }) else { return .infinity }
        let values = zip(parameters, y).map { $0.constrained($1) }
        guard values.allSatisfy(\.isFinite) else { return .infinity }
        var total = 0.0
        for t in data.events { total += likelihood.logDensity(t, values) }
        for t in data.censored { total += likelihood.logSurvival(t, values) }
        return -total
    }
    let search = NelderMead().minimize(negativeLogLikelihood, from: start)
    guard search.value.isFinite else { throw .optimizationFailed }
    let polished = newtonPolish(negativeLogLikelihood, from: search.point, startValue: search.value)
    let y = polished.point
    if let i = parameters.indices.first(where: { parameters[$0].isPositive && abs(y[$0]) > 0.9 * limit }) {
        throw .degenerateData("\(family.title) \(parameters[i].name) runs off to \(y[i] > 0 ? "infinity" : "zero"): "
            + "the data cannot pin it down")
    }
    let values = zip(parameters, y).map { $0.constrained($1) }
    let hessian = NumericalDerivatives.hessian(of: negativeLogLikelihood, at: y)
    let slope = zip(parameters, values).map { $0.isPositive ? $1 : 1 }
    let natural = hessian.indices.map { i in hessian.indices.map { j in hessian[i][j] / (slope[i] * slope[j]) } }
    let fitted = parameterEstimates(names: parameters.map(\.name), values: values, hessian: natural)
    return FitResult(
        model: model, distribution: .family(family, values: values), parameters: fitted.parameters,
        covariance: fitted.covariance, logLikelihood: -polished.value, n: data.n, uncensoredCount: data.events.count,
        converged: search.converged || polished.stationary, iterations: search.iterations + polished.iterations)
}
