import Foundation
import Randomness

/// A response parameter that a scenario may give with an uncertainty.
public enum UncertainParameter: String, CaseIterable, Sendable {
    case baseResponse, fatigue, optOutPerDelivery, quietFactor, dormantFactor, responseDelayMinutes

    /// The scale a range of it is read on: chances on the log-odds scale, which keeps every draw
    /// between 0 and 1; the factors (which may exceed 1) and the delay on the log scale, which keeps
    /// every draw above 0 and reads a range as a ratio.
    public var scale: UncertaintyScale {
        switch self {
        case .baseResponse, .fatigue, .optOutPerDelivery: return .logOdds
        case .quietFactor, .dormantFactor, .responseDelayMinutes: return .log
        }
    }

    /// The values a draw is kept within: those the field itself may take. A range read on the log
    /// scale has no upper end, and a delay drawn from a wide one could fall below the shortest delay
    /// a scenario allows; a draw past them is taken at the nearest one.
    public var allowed: ClosedRange<Double> {
        switch self {
        case .baseResponse, .fatigue, .optOutPerDelivery: return 0...1
        case .quietFactor, .dormantFactor: return 0...1e6
        case .responseDelayMinutes: return Scenario.minimumResponseDelaySeconds / 60...1e6
        }
    }

    public func value(in r: ResponseModel) -> Double {
        switch self {
        case .baseResponse: return r.baseResponse
        case .fatigue: return r.fatigue
        case .optOutPerDelivery: return r.optOutPerDelivery
        case .quietFactor: return r.quietFactor
        case .dormantFactor: return r.dormantFactor
        case .responseDelayMinutes: return r.responseDelayMinutes
        }
    }

    public func set(_ value: Double, in r: inout ResponseModel) {
        switch self {
        case .baseResponse: r.baseResponse = value
        case .fatigue: r.fatigue = value
        case .optOutPerDelivery: r.optOutPerDelivery = value
        case .quietFactor: r.quietFactor = value
        case .dormantFactor: r.dormantFactor = value
        case .responseDelayMinutes: r.responseDelayMinutes = value
        }
    }
}

/// The scale on which a parameter's uncertainty is normal.
public enum UncertaintyScale: String, Sendable {
    case logOdds, log

    /// The parameter's value on this scale; nil where the scale has no value for it (0 or 1 in log-odds, 0 in log).
    public func forward(_ x: Double) -> Double? {
        switch self {
        case .logOdds: return x > 0 && x < 1 ? Foundation.log(x / (1 - x)) : nil
        case .log: return x > 0 && x.isFinite ? Foundation.log(x) : nil
        }
    }

    /// The parameter's value from its value on this scale.
    public func back(_ z: Double) -> Double {
        switch self {
        case .logOdds: return 1 / (1 + exp(-z))
        case .log: return exp(z)
        }
    }
}

/// A value with its 95% interval, on the parameter's scale a normal centred on the value whose
/// 2.5% and 97.5% points are `low` and `high` (up to the value being off the middle).
public struct ParameterRange: Equatable, Sendable {
    public var value, low, high: Double

    public init(value: Double, low: Double, high: Double) {
        (self.value, self.low, self.high) = (value, low, high)
    }
}

/// A joint normal of some parameters' log-odds: the mean and covariance `calibrate` estimates.
public struct JointUncertainty: Encodable, Equatable, Sendable {
    public var parameters: [UncertainParameter]
    public var mean: [Double]
    public var covariance: [[Double]]

    public init(parameters: [UncertainParameter], mean: [Double], covariance: [[Double]]) {
        (self.parameters, self.mean, self.covariance) = (parameters, mean, covariance)
    }

    private enum Keys: String, CodingKey { case scale, parameters, mean, covariance }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(UncertaintyScale.logOdds.rawValue, forKey: .scale)
        try c.encode(parameters.map(\.rawValue), forKey: .parameters)
        try c.encode(mean, forKey: .mean)
        try c.encode(covariance, forKey: .covariance)
    }

    /// The lower-triangular L with L·Lᵀ = covariance, allowing zero variances; nil when the matrix is
    /// not symmetric positive semi-definite (up to rounding).
    public var cholesky: [[Double]]? {
        let n = covariance.count
        guard covariance.allSatisfy({ $0.count == n }) else { return nil }
        var l = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        for i in 0..<n {
            for j in 0...i {
                let c = covariance[i][j]
                let scale = max(abs(c), abs(covariance[j][i]), 1e-300)
                guard c.isFinite, abs(c - covariance[j][i]) <= 1e-9 * scale else { return nil }
                var s = c
                for k in 0..<j { s -= l[i][k] * l[j][k] }
                if i == j {
                    guard s >= -1e-12 * max(1, abs(c)) else { return nil }
                    l[i][i] = max(s, 0).squareRoot()
                } else {
                    l[i][j] = l[j][j] > 0 ? s / l[j][j] : 0
                }
            }
        }
        return l
    }
}

/// What a scenario says of its response parameters beyond their values: ranges for some of them,
/// and a joint normal for others.
public struct ResponseUncertainty: Equatable, Sendable {
    public var ranges: [UncertainParameter: ParameterRange]
    public var joint: JointUncertainty?

    public init(ranges: [UncertainParameter: ParameterRange] = [:], joint: JointUncertainty? = nil) {
        (self.ranges, self.joint) = (ranges, joint)
    }

    public var isEmpty: Bool { ranges.isEmpty && joint == nil }
}

extension ResponseModel {
    /// The stream the model draws come from: the scenario's seed, the draw's number and this purpose,
    /// apart from every stream of the users.
    static let drawPurpose: UInt64 = 0x6D6F_6465_6C64_7261

    /// Draw `k` of the response parameters (k = 0, 1, …) from the model's uncertainty, for a run of
    /// `seed`; the same draw whatever else is asked. Without uncertainty, the model itself.
    public func draw(_ k: Int, seed: UInt64) -> ResponseModel {
        var out = self
        out.uncertainty = nil
        guard let u = uncertainty else { return out }
        var g = Xoshiro256(seed: seed, user: UInt64(max(k, 0)), purpose: Self.drawPurpose)
        let normal = NormalDistribution(mean: 0, standardDeviation: 1)
        for p in UncertainParameter.allCases {
            let z = normal.sample(&g)
            guard let r = u.ranges[p], let centre = p.scale.forward(r.value),
                  let low = p.scale.forward(r.low), let high = p.scale.forward(r.high) else { continue }
            // A range of no width is the value itself, exactly as a plain number would give it.
            let drawn = high == low ? r.value : p.scale.back(centre + z * (high - low) / (2 * 1.959_964))
            p.set(min(max(drawn, p.allowed.lowerBound), p.allowed.upperBound), in: &out)
        }
        if let joint = u.joint, let l = joint.cholesky {
            let z = joint.parameters.map { _ in normal.sample(&g) }
            for (i, p) in joint.parameters.enumerated() {
                let x = joint.mean[i] + (0...i).reduce(0) { $0 + l[i][$1] * z[$1] }
                p.set(UncertaintyScale.logOdds.back(x), in: &out)
            }
        }
        return out
    }

    /// Whether the scenario gives any parameter with an uncertainty.
    public var isUncertain: Bool { !(uncertainty?.isEmpty ?? true) }
}
