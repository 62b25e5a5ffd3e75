/// Reasons a fit or prediction cannot produce a meaningful number.
public enum FittingError: Error, Equatable, Sendable {
    /// No observations (or customers) were given.
    case emptyData
    /// The observation or customer at this index has a non-finite, negative or inconsistent value.
    case invalidObservation(index: Int)
    /// Every gap is censored, so the likelihood keeps growing as the event rate goes to zero.
    case noUncensoredObservations
    /// The data put the maximum on the boundary of the parameter space (for example a zero spread).
    case degenerateData(String)
    /// A model parameter or prediction argument is outside its domain.
    case invalidParameter(String)
    /// A series did not reach its tolerance within its term budget.
    case seriesDidNotConverge
    /// The optimiser never found a finite objective value.
    case optimizationFailed
}

extension FittingError: CustomStringConvertible {
    /// A sentence for people: what went wrong with the data or the model.
    public var description: String {
        switch self {
        case .emptyData: return "there is nothing to fit"
        case let .invalidObservation(index): return "observation \(index + 1) is not a usable value"
        case .noUncensoredObservations: return "no user was seen coming back, so every gap is censored"
        case let .degenerateData(reason): return reason
        case let .invalidParameter(reason): return reason
        case .seriesDidNotConverge: return "a series in the model's formulas did not converge"
        case .optimizationFailed: return "the optimiser found no finite likelihood"
        }
    }
}

/// One fitted parameter with its asymptotic standard error (nil when the observed information is not positive definite).
public struct ParameterEstimate: Sendable, Equatable {
    public let name: String
    public let value: Double
    public let standardError: Double?

    public init(name: String, value: Double, standardError: Double?) {
        (self.name, self.value, self.standardError) = (name, value, standardError)
    }
}

extension Array where Element == ParameterEstimate {
    /// The estimate with this name, if any.
    public subscript(name: String) -> ParameterEstimate? {
        first { $0.name == name }
    }
}

/// The parameters at the optimum with their standard errors, and their covariance, from the Hessian of
/// −logL there in the same order: its inverse, the inverse observed information. Without standard
/// errors and covariance when that inverse is not positive definite.
func parameterEstimates(
    _ parameters: KeyValuePairs<String, Double>, hessian: [[Double]]
) -> (parameters: [ParameterEstimate], covariance: [[Double]]?) {
    parameterEstimates(names: parameters.map(\.key), values: parameters.map(\.value), hessian: hessian)
}

/// `parameterEstimates` with the names and values apart, in the same order.
func parameterEstimates(
    names: [String], values: [Double], hessian: [[Double]]
) -> (parameters: [ParameterEstimate], covariance: [[Double]]?) {
    precondition(hessian.count == values.count && names.count == values.count, "one name and one row of the Hessian per parameter")
    let inverse = choleskyInverse(hessian)
    let covariance = inverse.flatMap { c in c.indices.allSatisfy { c[$0][$0] > 0 && c[$0][$0].isFinite } ? c : nil }
    let estimates = zip(names, values).enumerated().map { i, p in
        ParameterEstimate(name: p.0, value: p.1, standardError: covariance.map { $0[i][i].squareRoot() })
    }
    return (estimates, covariance)
}
