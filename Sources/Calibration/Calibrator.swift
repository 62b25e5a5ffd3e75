import Fitting
import Foundation
import Randomness
import Simulation

/// A response-model parameter that `calibrate` can fit; all are chances or factors in (0, 1).
public enum ResponseParameter: String, CaseIterable, Sendable {
    case baseResponse, fatigue, optOutPerDelivery, quietFactor, dormantFactor

    /// The same parameter as a scenario gives it an uncertainty.
    public var uncertain: UncertainParameter {
        switch self {
        case .baseResponse: return .baseResponse
        case .fatigue: return .fatigue
        case .optOutPerDelivery: return .optOutPerDelivery
        case .quietFactor: return .quietFactor
        case .dormantFactor: return .dormantFactor
        }
    }

    public func value(in r: ResponseModel) -> Double { uncertain.value(in: r) }

    func set(_ value: Double, in r: inout ResponseModel) { uncertain.set(value, in: &r) }
}

/// Why a calibration cannot be done, as a sentence.
public struct CalibrationError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The results do not fit the scenario (an unknown arm, deliveries in the holdout…): bad data.
        case mismatch
        /// The chosen parameters cannot be told from these arms.
        case notIdentified
    }

    public let kind: Kind
    public let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

/// Fits response-model parameters to a past experiment by simulated minimum distance (McFadden 1989;
/// Pakes & Pollard 1989): the arms are simulated with the same users and random streams at every trial
/// point (common random numbers), so the distance moves smoothly with the parameters and Nelder–Mead
/// can minimise it.
public struct Calibration: Sendable {
    public struct Options: Sendable {
        /// Virtual users simulated per arm at each trial point.
        public var users = 20_000
        /// Seed of the simulated users; default: the scenario's.
        public var seed: UInt64?
        public var threads = ProcessInfo.processInfo.activeProcessorCount
        /// Batches the simulated users are split into to estimate the moments' covariance.
        public var batches = 40
        /// Nelder–Mead iterations per run.
        public var maxIterations = 400
        /// Fresh simplices around a converged point, to make sure it is not a false stop.
        public var restarts = 2

        public init() {}
    }

    /// One fitted parameter: estimate and 95% interval (delta method on the log-odds scale, sandwich covariance).
    public struct Estimate: Sendable, Equatable {
        public let parameter: ResponseParameter
        public let value: Double
        public let lower: Double
        public let upper: Double
        /// Standard error of the log-odds.
        public let logOddsStandardError: Double
    }

    /// One moment: an arm's per-user rate, observed and simulated at the fit, each with its standard error.
    public struct Moment: Sendable, Equatable {
        public let arm: String
        /// `delivered`, `opens`, `opt_outs`, `retained_d7`, `retained_d30` or `attributed`, per user.
        public let name: String
        public let observed: Double
        public let observedStandardError: Double
        public let simulated: Double
        public let simulatedStandardError: Double
        /// (observed − simulated) over the standard error of the difference.
        public var z: Double {
            let se = (observedStandardError * observedStandardError + simulatedStandardError * simulatedStandardError).squareRoot()
            return se > 0 ? (observed - simulated) / se : 0
        }

        /// Moment `k` of `simulator`, observed and simulated at the fit, with their standard errors.
        init(_ simulator: MomentSimulator, _ k: Int, perUser: [[Double]], simulated: Double, users: Int) {
            arm = simulator.armLabel[k]
            name = simulator.momentName[k]
            observed = simulator.observed[k]
            observedStandardError = (perUser[k][k] / simulator.observedUsers[k]).squareRoot()
            self.simulated = simulated
            simulatedStandardError = (perUser[k][k] / Double(users)).squareRoot()
        }
    }

    public let estimates: [Estimate]
    public let moments: [Moment]
    /// J = r' Σ⁻¹ r at the fit, approximately χ² with `degreesOfFreedom` when the model is right.
    public let statistic: Double
    public let degreesOfFreedom: Int
    /// P(χ²_df ≥ J); nil when there are no degrees of freedom left.
    public let pValue: Double?
    /// Simulations run (each of all arms and `users` users).
    public let evaluations: Int
    public let converged: Bool
    /// The scenario with the fitted values in its `response` block.
    public let scenario: Scenario

    /// Fits `parameters` of `scenario`'s response model to `results`. `recorded` holds the recorded logs the
    /// scenario's segments name, read by the caller.
    ///
    /// - Throws: `CalibrationError` when the results and the scenario do not match or the parameters cannot
    ///   be identified from the arms; the scenario's own errors when it cannot be compiled.
    public static func fit(
        scenario: Scenario, recorded: RecordedLogs = RecordedLogs(), results: ExperimentResults, parameters: [ResponseParameter],
        options: Options = Options()
    ) throws -> Calibration {
        precondition(!parameters.isEmpty, "calibrate needs at least one parameter")
        let simulator = try MomentSimulator(scenario: scenario, recorded: recorded, results: results, options: options)
        try checkRules(parameters, scenario: scenario, results: results, simulator: simulator)

        let start = parameters.map { logit(clampUnit($0.value(in: scenario.response))) }
        func response(_ z: [Double]) -> ResponseModel {
            var r = scenario.response
            for (p, v) in zip(parameters, z) { p.set(logistic(v), in: &r) }
            return r
        }

        // Weights: each moment's sampling variance (observed and simulated), estimated once at the start
        // so that the distance being minimised does not change with the point.
        let (kept, weights, batchCount) = try momentWeights(
            simulator, at: response(start), parameters: parameters.count, users: options.users)
        let observed = simulator.observed

        var evaluations = batchCount > 0 ? 1 : 0
        var failure: Error?
        func simulated(_ z: [Double]) -> [Double]? {
            evaluations += 1
            do {
                return try simulator.moments(response(z))
            } catch {
                failure = error
                return nil
            }
        }
        func distance(_ m: [Double]) -> Double {
            zip(kept, weights).reduce(0) { $0 + $1.1 * pow(observed[$1.0] - m[$1.0], 2) }
        }

        // Identification at the start: the distance must respond to every parameter, and to each differently.
        let startJacobian = try jacobian(at: start, simulate: simulated)
        try checkIdentified(parameters, jacobian: startJacobian, kept: kept, weights: weights)

        // The distance is a sum of squared z-scores: a change of 0.01 in it, or of 0.001 in a log-odds, is far
        // below what the data can tell apart.
        let optimizer = NelderMead(functionTolerance: 1e-2, parameterTolerance: 1e-3, maxIterations: options.maxIterations,
                                   maxRestarts: options.restarts, initialStep: 0.5)
        let search = optimizer.minimize({ z in
            guard z.allSatisfy({ abs($0) < 20 }), let m = simulated(z) else { return .infinity }
            return distance(m)
        }, from: start)
        if let failure { throw failure }
        let best = search.point

        // Sandwich covariance of the estimate: (G'WG)⁻¹ G'W Σ W G (G'WG)⁻¹, Σ = observed + simulation noise.
        let fitted = response(best)
        let batches = try simulator.batchMoments(fitted)
        let perUser = perUserCovariance(batches)
        guard let atFit = simulated(best) else { throw failure ?? CalibrationError(.mismatch, "the simulation failed") }
        let g = try jacobian(at: best, simulate: simulated)
        let sigma = kept.map { i in
            kept.map { j in
                perUser[i][j] / Double(options.users)
                    + (simulator.arm[i] == simulator.arm[j] ? perUser[i][j] / simulator.observedUsers[i] : 0)
            }
        }
        let p = parameters.count
        let v = try sandwich(jacobian: kept.map { g[$0] }, weights: weights, sigma: sigma, parameters: p)
        let estimates = parameters.indices.map { i in Estimate(parameters[i], logOdds: best[i], variance: v[i][i]) }

        let statistic = quadraticForm(kept.map { observed[$0] - atFit[$0] }, covariance: sigma)
        let df = kept.count - p
        let moments = kept.map { k in
            Moment(simulator, k, perUser: perUser, simulated: atFit[k], users: options.users)
        }
        var calibrated = scenario
        for e in estimates { e.parameter.set(significant(e.value), in: &calibrated.response) }
        calibrated.response.uncertainty = carried(scenario.response.uncertainty, parameters: parameters, logOdds: best, covariance: v)
        return Calibration(
            estimates: estimates, moments: moments, statistic: statistic, degreesOfFreedom: df,
            pValue: df > 0 ? regularizedGammaQ(a: Double(df) / 2, x: statistic / 2) : nil,
            evaluations: evaluations, converged: search.converged, scenario: calibrated)
    }

    /// The scenario's uncertainty with the fitted parameters' joint normal in place of what it said of
    /// them: their log-odds at the fit and the covariance of the estimate, made exactly symmetric; the
    /// variances alone when rounding leaves the covariance short of positive semi-definite.
    static func carried(
        _ before: ResponseUncertainty?, parameters: [ResponseParameter], logOdds: [Double], covariance v: [[Double]]
    ) -> ResponseUncertainty? {
        let names = parameters.map(\.uncertain)
        guard v.count == names.count else { return before }
        let n = names.count
        let symmetric = (0..<n).map { i in (0..<n).map { j in (v[i][j] + v[j][i]) / 2 } }
        var joint = JointUncertainty(parameters: names, mean: logOdds, covariance: symmetric)
        if joint.cholesky == nil {
            joint.covariance = (0..<n).map { i in (0..<n).map { j in i == j ? max(symmetric[i][i], 0) : 0 } }
        }
        var out = before ?? ResponseUncertainty()
        for p in names { out.ranges[p] = nil }
        // What the scenario said jointly of other parameters cannot be kept beside the new joint normal.
        out.joint = joint
        return out
    }

    /// The moments the fit uses (those whose spread can be estimated) and their weights, the inverse of
    /// each one's sampling variance (observed and simulated), estimated once at `response` so that the
    /// distance being minimised does not change with the point; and how many batches that took.
    static func momentWeights(
        _ simulator: MomentSimulator, at response: ResponseModel, parameters: Int, users: Int
    ) throws -> (kept: [Int], weights: [Double], batches: Int) {
        let batches = try simulator.batchMoments(response)
        let covariance = perUserCovariance(batches)
        let kept = simulator.usable(perUserVariance: covariance.indices.map { covariance[$0][$0] })
        guard kept.count >= parameters else {
            throw CalibrationError(.notIdentified, "the results give \(kept.count) usable moment\(kept.count == 1 ? "" : "s") "
                + "for \(parameters) parameters: add arms or columns, or fit fewer parameters")
        }
        let weights = kept.map { k in 1 / (covariance[k][k] * (1 / simulator.observedUsers[k] + 1 / Double(users))) }
        return (kept, weights, batches.count)
    }

    /// (G'WG)⁻¹ G'W Σ W G (G'WG)⁻¹ for the moments' Jacobian G (rows: moments), diagonal weights W and
    /// the moments' covariance Σ: the covariance of a minimum-distance estimate.
    static func sandwich(jacobian gk: [[Double]], weights: [Double], sigma: [[Double]], parameters p: Int) throws -> [[Double]] {
        var a = [[Double]](repeating: [Double](repeating: 0, count: p), count: p)
        var b = a
        for i in 0..<p {
            for j in 0..<p {
                a[i][j] = gk.indices.reduce(0) { $0 + gk[$1][i] * weights[$1] * gk[$1][j] }
                var s = 0.0
                for k in gk.indices { for l in gk.indices { s += gk[k][i] * weights[k] * sigma[k][l] * weights[l] * gk[l][j] } }
                b[i][j] = s
            }
        }
        guard let aInverse = invert(a) else {
            throw CalibrationError(.notIdentified, "the moments do not respond to the parameters at the fit")
        }
        return multiply(multiply(aInverse, b), aInverse)
    }

    /// r'Σ⁻¹r, the goodness-of-fit statistic; with the diagonal alone when Σ cannot be inverted.
    static func quadraticForm(_ residual: [Double], covariance sigma: [[Double]]) -> Double {
        guard let sigmaInverse = invert(sigma) else {
            return residual.indices.reduce(0) { $0 + residual[$1] * residual[$1] / sigma[$1][$1] }
        }
        return residual.indices.reduce(0) { total, i in
            total + residual.indices.reduce(0) { $0 + residual[i] * sigmaInverse[i][$1] * residual[$1] }
        }
    }

    // MARK: Identification

    static func checkRules(
        _ parameters: [ResponseParameter], scenario: Scenario, results: ExperimentResults, simulator: MomentSimulator
    ) throws {
        let reminderArms = simulator.configurations.filter { !$0.reminders.isEmpty }
        if reminderArms.isEmpty {
            throw CalibrationError(.notIdentified, "no arm the fit uses sends notifications, so the response to them "
                + "cannot be measured: include at least one reminder arm (an arm held out with --hold-out is not used)")
        }
        if parameters.contains(.fatigue) {
            // Fatigue is the fall of the response with each notification since the last organic open: it shows only
            // when users can receive several in a row, and differently from one arm to another.
            let sequences = reminderArms.filter { c in c.reminders.count > 1 || c.reminders.contains { $0.timePeriods.count > 1 } }
            if reminderArms.count < 2 && sequences.isEmpty {
                throw CalibrationError(.notIdentified, "fatigue cannot be identified from a single arm with one period: "
                    + "its effect cannot be told from the base response. Fit it with arms that differ in how many "
                    + "notifications they send, or leave it out of --fit")
            }
        }
        if parameters.contains(.quietFactor), scenario.response.quietHours == nil {
            throw CalibrationError(.notIdentified, "quietFactor cannot be identified: the scenario has no quiet hours")
        }
        if parameters.contains(.optOutPerDelivery), !results.arms.contains(where: { $0.delivered > 0 }) {
            throw CalibrationError(.notIdentified, "optOutPerDelivery cannot be identified: no arm reports a delivery")
        }
    }

    static func checkIdentified(_ parameters: [ResponseParameter], jacobian g: [[Double]], kept: [Int], weights: [Double]) throws {
        let p = parameters.count
        var a = [[Double]](repeating: [Double](repeating: 0, count: p), count: p)
        for i in 0..<p { for j in 0..<p { a[i][j] = kept.indices.reduce(0) { $0 + g[kept[$1]][i] * weights[$1] * g[kept[$1]][j] } } }
        // Doubling the odds of a parameter should move the distance by at least one unit of noise.
        let doubling = log(2.0) * log(2.0)
        for i in 0..<p where a[i][i] * doubling < 1 {
            throw CalibrationError(.notIdentified, "\(parameters[i].rawValue) cannot be identified from these arms: doubling "
                + "its odds moves the observed moments by less than their noise; leave it out of --fit, or add arms "
                + "or users")
        }
        for i in 0..<p {
            for j in (i + 1)..<p {
                let r = a[i][j] / (a[i][i] * a[j][j]).squareRoot()
                if abs(r) > 0.995 {
                    throw CalibrationError(.notIdentified, "\(parameters[i].rawValue) and \(parameters[j].rawValue) cannot be "
                        + "told apart with these arms: they move the moments the same way. Fit one of them")
                }
            }
        }
    }

    // MARK: Numerics

    static func jacobian(at z: [Double], simulate: ([Double]) -> [Double]?) throws -> [[Double]] {
        // Steps of 0.1 in log-odds are wide enough to average over the users whose outcome flips, and narrow
        // enough for the moments to be close to linear.
        let h = 0.1
        var columns: [[Double]] = []
        for i in z.indices {
            var up = z, down = z
            up[i] += h
            down[i] -= h
            guard let mu = simulate(up), let md = simulate(down) else {
                throw CalibrationError(.mismatch, "the simulation failed")
            }
            columns.append(zip(mu, md).map { ($0 - $1) / (2 * h) })
        }
        return columns[0].indices.map { k in z.indices.map { columns[$0][k] } }
    }

    /// Per-user covariance of the moments from batch means: n_b × the covariance of the batch means.
    static func perUserCovariance(_ batches: [(users: Int, moments: [Double])]) -> [[Double]] {
        let k = batches.first?.moments.count ?? 0
        let n = Double(batches.count)
        let mean = (0..<k).map { i in batches.reduce(0) { $0 + $1.moments[i] } / n }
        let size = Double(batches.reduce(0) { $0 + $1.users }) / n
        return (0..<k).map { i in
            (0..<k).map { j in
                size * batches.reduce(0) { $0 + ($1.moments[i] - mean[i]) * ($1.moments[j] - mean[j]) } / (n - 1)
            }
        }
    }

    static func invert(_ m: [[Double]]) -> [[Double]]? {
        let n = m.count
        var a = m
        var inv = (0..<n).map { i in (0..<n).map { $0 == i ? 1.0 : 0.0 } }
        for c in 0..<n {
            guard let pivot = (c..<n).max(by: { abs(a[$0][c]) < abs(a[$1][c]) }), abs(a[pivot][c]) > 1e-300 else { return nil }
            a.swapAt(c, pivot)
            inv.swapAt(c, pivot)
            let d = a[c][c]
            for j in 0..<n { a[c][j] /= d; inv[c][j] /= d }
            for r in 0..<n where r != c {
                let f = a[r][c]
                if f == 0 { continue }
                for j in 0..<n { a[r][j] -= f * a[c][j]; inv[r][j] -= f * inv[c][j] }
            }
        }
        guard inv.allSatisfy({ $0.allSatisfy(\.isFinite) }) else { return nil }
        return inv
    }

    static func multiply(_ x: [[Double]], _ y: [[Double]]) -> [[Double]] {
        x.map { row in y[0].indices.map { j in row.indices.reduce(0) { $0 + row[$1] * y[$1][j] } } }
    }

    static func logit(_ p: Double) -> Double { log(p / (1 - p)) }
    static func logistic(_ z: Double) -> Double { 1 / (1 + exp(-z)) }
    static func clampUnit(_ p: Double) -> Double { min(max(p, 1e-4), 1 - 1e-4) }

    /// Six significant digits, for a scenario file a person reads.
    static func significant(_ x: Double) -> Double {
        guard x.isFinite, x != 0 else { return x }
        let scale = pow(10, Double(6 - Int(log10(abs(x)).rounded(.up))))
        return (x * scale).rounded() / scale
    }
}

extension Calibration.Estimate {
    /// The estimate of `parameter` from its log-odds and that log-odds' variance, with a 95% interval
    /// made on the log-odds scale (so it stays inside 0 to 1).
    init(_ parameter: ResponseParameter, logOdds: Double, variance: Double) {
        let se = max(variance, 0).squareRoot()
        self.init(parameter: parameter, value: Calibration.logistic(logOdds), lower: Calibration.logistic(logOdds - 1.959_964 * se),
                  upper: Calibration.logistic(logOdds + 1.959_964 * se), logOddsStandardError: se)
    }
}
