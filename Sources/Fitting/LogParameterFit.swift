#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif

/// Maximum likelihood over positive parameters, searched in their logarithms: how BG/NBD and
/// Pareto/NBD are fitted.
///
/// Nelder–Mead with restarts from `start` finds the optimum, a few damped Newton steps with
/// central-difference derivatives sharpen it, and standard errors come from a central-difference
/// Hessian of −logL in the natural parameters (steps 1e−4 of each value). At a stationary point that
/// equals the delta-method transform of the log-space information.
struct LogParameterFit: Sendable {
    /// The estimates in the natural parameters, in the order of `names`.
    let estimate: [Double]
    let parameters: [ParameterEstimate]
    let covariance: [[Double]]?
    let logLikelihood: Double
    let converged: Bool
    /// Nelder–Mead iterations (over all restarts) plus Newton steps.
    let iterations: Int

    /// - Parameter logLikelihood: Σ ln L at positive natural parameters, in the order of `names`.
    init(
        names: [String], start: [Double], optimizer: NelderMead, logLikelihood: ([Double]) -> Double
    ) throws(FittingError) {
        let startPoint = start.map { log($0) }
        func negativeLogLikelihood(_ logParameters: [Double]) -> Double {
            // Beyond e^±30 the likelihood is flat to double precision, so the simplex could drift forever.
            guard logParameters.allSatisfy({ abs($0) < 30 }) else { return .infinity }
            return -logLikelihood(logParameters.map { exp($0) })
        }
        let search = optimizer.minimize(negativeLogLikelihood, from: startPoint)
        guard search.value.isFinite else { throw .optimizationFailed }
        let polished = newtonPolish(negativeLogLikelihood, from: search.point, startValue: search.value)
        let estimate = polished.point.map { exp($0) }

        let natural: ([Double]) -> Double = { p in p.allSatisfy { $0 > 0 } ? -logLikelihood(p) : .infinity }
        let hessian = NumericalDerivatives.hessian(of: natural, at: estimate, steps: estimate.map { 1e-4 * $0 })
        let fitted = parameterEstimates(names: names, values: estimate, hessian: hessian)
        self.estimate = estimate
        parameters = fitted.parameters
        covariance = fitted.covariance
        self.logLikelihood = -polished.value
        converged = search.converged || polished.stationary
        iterations = search.iterations + polished.iterations
    }
}
