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
    /// The results file's line the problem is on, when it is one arm's.
    public let line: Int?

    init(_ kind: Kind, _ description: String, line: Int? = nil) {
        self.kind = kind
        self.description = description
        self.line = line
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
        public var batches = 1_000
        /// Nelder–Mead iterations per run.
        public var maxIterations = 400
        /// Fresh simplices around a converged point, to make sure it is not a false stop.
        public var restarts = 2
        /// Users per arm of the Nelder–Mead search, before the Gauss–Newton steps on all `users`; default:
        /// `Calibration.searchUsers(users)`.
        public var searchUsers: Int?

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

    /// One stage of a fit: the users it simulated per arm, its method, its steps and simulations.
    public struct Stage: Sendable, Equatable {
        public enum Method: String, Sendable { case nelderMead = "Nelder–Mead", gaussNewton = "Gauss–Newton" }
        public let users: Int
        public let method: Method
        /// Nelder–Mead iterations, or Gauss–Newton steps taken.
        public let steps: Int
        public let simulations: Int
    }

    public let estimates: [Estimate]
    public let moments: [Moment]
    /// J = r' Σ⁻¹ r at the fit, approximately χ² with `degreesOfFreedom` when the model is right.
    public let statistic: Double
    public let degreesOfFreedom: Int
    /// P(χ²_df ≥ J); nil when there are no degrees of freedom left.
    public let pValue: Double?
    /// Simulations run (each of all arms), on the search's users or on all of them.
    public let evaluations: Int
    /// How the fit went: the search on fewer users, then the steps on all of them.
    public let stages: [Stage]
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

        // The search runs on fewer users than the fit (`searchUsers`), then Gauss–Newton steps on all of them
        // finish it: the search's point is within the few users' simulation noise of the optimum, and the
        // distance near it is close to quadratic, so one or two steps reach it to a tenth of its standard error.
        let n = options.users
        let searchUsers = min(max(options.searchUsers ?? Self.searchUsers(n), 1), n)

        // Weights: each moment's sampling variance (observed and simulated), estimated once at the start
        // so that the distance being minimised does not change with the point. The per-user variances come
        // from batches of the search's users (their precision depends on the number of batches, not on
        // the users).
        let (kept, variances, batchCount) = try momentVariances(
            simulator, at: response(start), parameters: parameters.count, users: searchUsers)
        let searchWeights = Self.weights(kept: kept, variances: variances, simulator: simulator, users: searchUsers)
        let weights = Self.weights(kept: kept, variances: variances, simulator: simulator, users: n)
        let observed = simulator.observed

        var evaluations = batchCount > 0 ? 1 : 0
        var failure: Error?
        func simulated(_ z: [Double], users: Int) -> [Double]? {
            evaluations += 1
            do {
                return try simulator.moments(response(z), users: users)
            } catch {
                failure = error
                return nil
            }
        }
        func distance(_ m: [Double], _ w: [Double]) -> Double {
            zip(kept, w).reduce(0) { $0 + $1.1 * pow(observed[$1.0] - m[$1.0], 2) }
        }

        // Identification at the start: the distance on all the users must respond to every parameter, and to
        // each differently (the slopes are measured on the search's users).
        let startJacobian = try jacobian(at: start) { simulated($0, users: searchUsers) }
        try checkIdentified(parameters, jacobian: startJacobian, kept: kept, weights: weights)

        // The distance is a sum of squared z-scores: a change of 0.01 in it, or of 0.001 in a log-odds, is far
        // below what the data can tell apart.
        let optimizer = NelderMead(functionTolerance: 1e-2, parameterTolerance: 1e-3, maxIterations: options.maxIterations,
                                   maxRestarts: options.restarts, initialStep: 0.5)
        let search = optimizer.minimize({ z in
            guard z.allSatisfy({ abs($0) < 20 }), let m = simulated(z, users: searchUsers) else { return .infinity }
            return distance(m, searchWeights)
        }, from: start)
        if let failure { throw failure }
        let searchEvaluations = evaluations

        // A search on all the users needs no steps after it: its point and the slopes there are the fit's.
        let polish: (point: [Double], moments: [Double], jacobian: [[Double]], steps: Int, converged: Bool)
        do {
            polish = try gaussNewton(from: search.point, observed: observed, kept: kept, weights: weights,
                                     maxSteps: searchUsers < n ? 5 : 0, bound: 20) { simulated($0, users: n) }
        } catch {
            throw failure ?? error
        }
        if let failure { throw failure }
        let best = polish.point
        let atFit = polish.moments
        let g = polish.jacobian

        // Sandwich covariance of the estimate: (G'WG)⁻¹ G'W Σ W G (G'WG)⁻¹, Σ = observed + simulation noise.
        let batches = try simulator.batchMoments(response(best))
        evaluations += 1
        let perUser = perUserCovariance(batches)
        let sigma = kept.map { i in
            kept.map { j in
                perUser[i][j] / Double(n)
                    + (simulator.arm[i] == simulator.arm[j] ? perUser[i][j] / simulator.observedUsers[i] : 0)
            }
        }
        let stages = [
            Stage(users: searchUsers, method: .nelderMead, steps: search.iterations, simulations: searchEvaluations),
            Stage(users: n, method: .gaussNewton, steps: polish.steps, simulations: evaluations - searchEvaluations),
        ]
        let p = parameters.count
        let v: [[Double]]
        do {
            v = try sandwich(jacobian: kept.map { g[$0] }, weights: weights, sigma: sigma, parameters: p)
        } catch {
            throw notResponding(parameters, jacobian: kept.map { g[$0] }, weights: weights, at: best, bound: 20)
        }
        let estimates = parameters.indices.map { i in Estimate(parameters[i], logOdds: best[i], variance: v[i][i]) }

        let statistic = quadraticForm(kept.map { observed[$0] - atFit[$0] }, covariance: sigma)
        let df = kept.count - p
        let moments = kept.map { k in
            Moment(simulator, k, perUser: perUser, simulated: atFit[k], users: n)
        }
        var calibrated = scenario
        for e in estimates { e.parameter.set(significant(e.value), in: &calibrated.response) }
        calibrated.response.uncertainty = carried(scenario.response.uncertainty, parameters: parameters, logOdds: best, covariance: v)
        return Calibration(
            estimates: estimates, moments: moments, statistic: statistic, degreesOfFreedom: df,
            pValue: df > 0 ? regularizedGammaQ(a: Double(df) / 2, x: statistic / 2) : nil,
            evaluations: evaluations, stages: stages, converged: search.converged && polish.converged, scenario: calibrated)
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

    /// The moments the fit uses (those whose spread can be estimated) and their per-user variances, estimated
    /// once at `response` from batches of the first `users` users; and how many batches that took.
    static func momentVariances(
        _ simulator: MomentSimulator, at response: ResponseModel, parameters: Int, users: Int
    ) throws -> (kept: [Int], variances: [Double], batches: Int) {
        let batches = try simulator.batchMoments(response, users: users)
        let covariance = perUserCovariance(batches)
        let kept = simulator.usable(perUserVariance: covariance.indices.map { covariance[$0][$0] })
        guard kept.count >= parameters else {
            throw CalibrationError(.notIdentified, "the results give \(kept.count) usable moment\(kept.count == 1 ? "" : "s") "
                + "for \(parameters) parameters: add arms or columns, or fit fewer parameters")
        }
        return (kept, kept.map { covariance[$0][$0] }, batches.count)
    }

    /// Each kept moment's weight in the distance when `users` users are simulated: the inverse of its sampling
    /// variance, the observed arm's and the simulation's, so that the distance is a sum of squared z-scores.
    static func weights(kept: [Int], variances: [Double], simulator: MomentSimulator, users: Int) -> [Double] {
        zip(kept, variances).map { k, v in 1 / (v * (1 / simulator.observedUsers[k] + 1 / Double(users))) }
    }

    /// The users the Nelder–Mead search simulates per arm, for a fit on `users`: a sixteenth of them, but no
    /// fewer than 10,000 (below that the simulation's noise would move the search's optimum by more than
    /// the observed arms' own noise); all of them for fits on fewer than 40,000 users, where a search on a
    /// quarter of them or more would save too little to be worth a stage.
    public static func searchUsers(_ users: Int) -> Int {
        let few = max(users / 16, 10_000)
        return few * 4 <= users ? few : users
    }

    /// The end of a fit on all the users: Gauss–Newton steps for the weighted least squares from the search's
    /// point, halved up to eight times until the distance falls. The slopes (central differences, as the
    /// covariance needs them anyway) are measured at the search's point and kept while they serve: after a
    /// step, the next step is first worked out with them, and only if it is not negligible are they measured
    /// again where the fit now is (any slopes measured near the estimate serve the covariance as well, and the
    /// search's point is within a few standard errors of it). It stops when a step would move every parameter
    /// by less than a tenth of its standard error (with these weights, (G'WG)⁻¹ on the diagonal), when no
    /// step lowers the distance, or after `maxSteps` steps (not converged, unless none were asked for). Steps
    /// to a point with a coordinate of `bound` or more are not taken. The point and its moments are those of
    /// the last accepted point, with the slopes last measured.
    static func gaussNewton(
        from start: [Double], observed: [Double], kept: [Int], weights: [Double], maxSteps: Int = 5,
        bound: Double = .infinity, simulate: ([Double]) -> [Double]?
    ) throws -> (point: [Double], moments: [Double], jacobian: [[Double]], steps: Int, converged: Bool) {
        guard let first = simulate(start) else { throw CalibrationError(.mismatch, "the simulation failed") }
        var (z, m) = (start, first)
        var g = try jacobian(at: z, simulate: simulate)
        // Whether `g` was measured at `z`.
        var fresh = true
        func distance(_ m: [Double]) -> Double { zip(kept, weights).reduce(0) { $0 + $1.1 * pow(observed[$1.0] - m[$1.0], 2) } }
        var steps = 0
        let p = z.count
        while true {
            // Normal equations over the kept moments: (G'WG) Δ = G'W r.
            let b = (0..<p).map { i in zip(kept, weights).reduce(0) { $0 + g[$1.0][i] * $1.1 * (observed[$1.0] - m[$1.0]) } }
            let solved = invert(information(kept.map { g[$0] }, weights: weights, parameters: p))
            let delta = solved.map { inverse in (0..<p).map { i in (0..<p).reduce(0) { $0 + inverse[i][$1] * b[$1] } } }
            func negligible(_ scale: Double) -> Bool {
                guard let inverse = solved, let delta else { return false }
                return (0..<p).allSatisfy { abs(scale * delta[$0]) <= 0.1 * max(inverse[$0][$0], 0).squareRoot() }
            }
            if negligible(1) { return (z, m, g, steps, true) }
            if !fresh {
                g = try jacobian(at: z, simulate: simulate)
                fresh = true
                continue
            }
            guard let delta else { return (z, m, g, steps, false) }
            if steps == maxSteps { return (z, m, g, steps, maxSteps == 0) }
            let before = distance(m)
            var accepted: ([Double], [Double])?
            var t = 1.0
            for _ in 0...8 {
                let next = (0..<p).map { z[$0] + t * delta[$0] }
                if next.allSatisfy({ abs($0) < bound }), let mn = simulate(next), distance(mn) < before {
                    accepted = (next, mn)
                    break
                }
                t /= 2
            }
            // No step lowers the distance: if the shortest step tried was below a tenth of a standard error, the
            // point is the minimum as far as the simulation resolves it; otherwise the steps failed.
            guard let (next, mn) = accepted else { return (z, m, g, steps, negligible(2 * t)) }
            (z, m) = (next, mn)
            fresh = false
            steps += 1
        }
    }

    /// G'WG for the Jacobian rows `gk` (one per moment) and diagonal weights W: the curvature of the distance
    /// in the parameters, which the identification check, the Gauss–Newton steps and the covariance all read.
    static func information(_ gk: [[Double]], weights: [Double], parameters p: Int) -> [[Double]] {
        (0..<p).map { i in (0..<p).map { j in gk.indices.reduce(0) { $0 + gk[$1][i] * weights[$1] * gk[$1][j] } } }
    }

    /// (G'WG)⁻¹ G'W Σ W G (G'WG)⁻¹ for the moments' Jacobian G (rows: moments), diagonal weights W and
    /// the moments' covariance Σ: the covariance of a minimum-distance estimate.
    static func sandwich(jacobian gk: [[Double]], weights: [Double], sigma: [[Double]], parameters p: Int) throws -> [[Double]] {
        let a = information(gk, weights: weights, parameters: p)
        var b = [[Double]](repeating: [Double](repeating: 0, count: p), count: p)
        for i in 0..<p {
            for j in 0..<p {
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

    /// Why the covariance cannot be worked out at the fit `z` (log-odds, searched within ±`bound`): the
    /// parameters the moments no longer respond to, each with the value it reached when that is at the
    /// edge of the search (a rate driven to 0 or 1 by a count of zero, say); all of them together when
    /// each still moves the moments, but only as the others do.
    static func notResponding(_ parameters: [ResponseParameter], jacobian gk: [[Double]], weights: [Double], at z: [Double],
                              bound: Double) -> CalibrationError {
        let a = information(gk, weights: weights, parameters: parameters.count)
        let largest = parameters.indices.map { a[$0][$0] }.max() ?? 0
        let flat = parameters.indices.filter { !(a[$0][$0] > largest * 1e-12) }
        guard !flat.isEmpty else {
            return CalibrationError(.notIdentified, "the moments do not respond to "
                + parameters.map(\.rawValue).joined(separator: ", ") + " apart at the fit: they move them only together; "
                + "fit fewer of them")
        }
        let named = flat.map { i -> String in
            let name = parameters[i].rawValue
            guard abs(z[i]) > 0.9 * bound else { return name }
            return name + " (driven to " + String(format: "%.3g", Calibration.logistic(z[i])) + ", the edge of what the search tries)"
        }
        let it = flat.count == 1 ? "it" : "them"
        return CalibrationError(.notIdentified, "the moments do not respond to " + named.joined(separator: ", ")
            + " at the fit: either nothing in the test measures \(it) there (a count of zero, such as no opt-outs or no "
            + "attributed opens, drives a rate to 0), or the results lie where the scenario's model cannot reach and the search "
            + "ended where \(it) no longer matter\(flat.count == 1 ? "s" : ""): compare them with the model's predictions "
            + "(remindersim readout SCENARIO RESULTS), then leave \(it) out of --fit or mend the scenario")
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
        let a = information(kept.map { g[$0] }, weights: weights, parameters: p)
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
