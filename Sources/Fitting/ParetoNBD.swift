#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif
import Randomness
import RecordedData

/// Pareto/NBD parameters with the model's likelihood and predictions (Schmittlein, Morrison &
/// Colombo 1987; the likelihood as Fader & Hardie's note on implementing the model writes it).
///
/// While alive a customer visits as a Poisson process of rate λ ~ Gamma(shape r, rate α), and
/// stays alive for an exponential lifetime of rate μ ~ Gamma(shape s, rate β), independent of λ.
/// Times are in whatever unit the summaries use.
public struct ParetoNBDModel: Sendable, Equatable {
    /// The purchase rates' Gamma shape and rate, and the dropout rates' Gamma shape and rate.
    public let r, alpha, s, beta: Double

    /// - Throws: `.invalidParameter` unless all four parameters are finite and > 0.
    public init(r: Double, alpha: Double, s: Double, beta: Double) throws(FittingError) {
        guard [r, alpha, s, beta].allSatisfy({ $0 > 0 && $0.isFinite }) else {
            throw .invalidParameter("Pareto/NBD parameters must be finite and > 0")
        }
        (self.r, self.alpha, self.s, self.beta) = (r, alpha, s, beta)
    }

    /// The two parts of one customer's likelihood, as logarithms, without the factor Γ(r+x)/Γ(r) they share.
    ///
    /// Given λ and μ, the history (x, t_x, T) has likelihood λˣ e^(−(λ+μ)T) (alive at T) plus
    /// ∫_{t_x}^T λˣ μ e^(−(λ+μ)τ) dτ (died at τ after the last visit). Mixing over the two Gammas, the
    /// first part is αʳ βˢ (α+T)^−(r+x) (β+T)^−s and the second is αʳ βˢ s · I with
    /// I = ∫_{t_x}^T (α+τ)^−(r+x) (β+τ)^−(s+1) dτ = F(t_x) − F(T), where F is the antiderivative written
    /// by the Gaussian hypergeometric function (`logAntiderivative`), or, where its series would converge
    /// slowly, by quadrature (`PowerIntegral`). The powers are taken as
    /// (α/(α+τ))ʳ (β/(β+τ))ˢ (α+τ)^−x, so that a huge r or s does not leave two huge logarithms to cancel.
    struct Parts {
        /// ln[αʳ βˢ (α+T)^−(r+x) (β+T)^−s]
        let alive: Double
        /// ln(αʳ βˢ s · I); −∞ when t_x = T.
        let died: Double
    }

    /// With `work`, the series' terms and the quadrature's integrand evaluations are taken from it,
    /// and `.seriesDidNotConverge` is thrown once it is spent.
    func parts(x: Int, tx: Double, T: Double, maxTerms: Int = 1_000_000, work: WorkBudget? = nil) throws(FittingError) -> Parts {
        let xd = Double(x)
        let alive = powers(x: xd, tau: T)
        // The series' terms shrink as zⁿ, z largest at t_x: close to 1, the integral is taken by quadrature.
        if abs(alpha - beta) / (max(alpha, beta) + tx) > Self.seriesUpTo {
            guard let integral = PowerIntegral.logIntegral(r: r, alpha: alpha, s: s, beta: beta, x: xd, from: tx, to: T, work: work)
            else { throw .seriesDidNotConverge }
            return Parts(alive: alive, died: log(s) + integral)
        }
        let atTx = try logAntiderivative(x: xd, tau: tx, maxTerms: maxTerms, work: work)
        let atT = try logAntiderivative(x: xd, tau: T, maxTerms: maxTerms, work: work)
        // F decreases in τ, so the difference is F(t_x)·(1 − F(T)/F(t_x)) without cancellation in the logs.
        let ratio = min(atT - atTx, 0)
        let difference = ratio == 0 ? -Double.infinity : atTx + log(-expm1(ratio))
        return Parts(alive: alive, died: log(s) + difference)
    }

    /// The largest z (see `logAntiderivative`) at which `parts` sums the series, ~7,000 terms at most;
    /// past it the integral is taken by quadrature (`PowerIntegral`).
    static let seriesUpTo = 0.995

    /// ln[αʳ βˢ (α+τ)^−(r+x) (β+τ)^−s] = −r ln(1 + τ/α) − s ln(1 + τ/β) − x ln(α+τ).
    func powers(x: Double, tau: Double) -> Double {
        -r * log1p(tau / alpha) - s * log1p(tau / beta) - x * log(alpha + tau)
    }

    /// ln[αʳ βˢ F(τ)], with F the antiderivative of (α+τ)^−(r+x) (β+τ)^−(s+1) that vanishes at ∞.
    ///
    /// With a = r+s+x, m = max(α, β) and z = |α−β|/(m+τ) ∈ [0, 1), F(τ) = (m+τ)^−a ₂F₁(a, b; a+1; z)/a,
    /// where b = s+1 when α ≥ β and b = r+x when α < β (expand the smaller base around the larger one
    /// and integrate term by term). Euler's transformation ₂F₁(a, b; c; z) = (1−z)^(c−a−b) ₂F₁(c−a, c−b; c; z)
    /// turns it into a series with c−a = 1,
    ///
    ///     F(τ) = (α+τ)^−(r+x) (β+τ)^−s · q / a · Σ_{n≥0} (b′)_n / (a+1)_n · zⁿ,
    ///
    /// with b′ = r+x, q = 1 when α ≥ β, and b′ = s+1, q = (α+τ)/(β+τ) when α < β. Every term is positive
    /// and the ratio of successive terms, (b′+n)/(a+1+n) · z, stays below z < 1: nothing overflows for
    /// many visits, and α = β is the single term 1.
    func logAntiderivative(x: Double, tau: Double, maxTerms: Int, work: WorkBudget? = nil) throws(FittingError) -> Double {
        let a = r + s + x
        let (m, bPrime, logQ) = alpha >= beta
            ? (alpha, r + x, 0.0)
            : (beta, s + 1, log(alpha + tau) - log(beta + tau))
        let z = abs(alpha - beta) / (m + tau)
        let budget = work.map { min(maxTerms, $0.left) } ?? maxTerms
        var terms = 0
        defer { work?.left -= terms }
        let series = try Self.risingRatioSeries(b: bPrime, c: a + 1, z: z, maxTerms: budget, terms: &terms)
        return powers(x: x, tau: tau) + logQ - log(a) + log(series)
    }

    /// Σ_{n≥0} (b)_n / (c)_n · zⁿ for 0 < b < c and 0 ≤ z < 1: the term ratios increase towards z, so the
    /// tail after a term is at most that term · z / (1 − z).
    static func risingRatioSeries(b: Double, c: Double, z: Double, maxTerms: Int) throws(FittingError) -> Double {
        var terms = 0
        return try risingRatioSeries(b: b, c: c, z: z, maxTerms: maxTerms, terms: &terms)
    }

    /// The same, adding the terms summed to `terms`.
    static func risingRatioSeries(b: Double, c: Double, z: Double, maxTerms: Int, terms: inout Int) throws(FittingError) -> Double {
        var term = 1.0, sum = 1.0, n = 0.0
        guard z > 0 else { return 1 }
        let tailFactor = z / (1 - z)
        for _ in 0..<max(maxTerms, 0) {
            term *= (b + n) / (c + n) * z
            sum += term
            n += 1
            if term * tailFactor <= 1e-16 * sum {
                terms += Int(n)
                return sum
            }
        }
        terms += max(maxTerms, 0)
        throw .seriesDidNotConverge
    }

    /// ln L(r, α, s, β | x, t_x, T).
    public func logLikelihood(_ customer: CustomerSummary) throws(FittingError) -> Double {
        try Self.validate(x: customer.frequency, tx: customer.recency, T: customer.age)
        let x = Double(customer.frequency)
        let p = try parts(x: customer.frequency, tx: customer.recency, T: customer.age)
        return logGamma(r + x) - logGamma(r) + logAddExp(p.alive, p.died)
    }

    /// Σ ln L over customers.
    public func logLikelihood(_ customers: [CustomerSummary]) throws(FittingError) -> Double {
        var total = 0.0
        for c in customers { total += try logLikelihood(c) }
        return total
    }

    /// P(alive at T | x, t_x, T): the share of the likelihood that comes from customers still alive at T.
    public func probabilityAlive(x: Int, tx: Double, T: Double) throws(FittingError) -> Double {
        try Self.validate(x: x, tx: tx, T: T)
        let p = try parts(x: x, tx: tx, T: T)
        return exp(p.alive - logAddExp(p.alive, p.died))
    }

    public func probabilityAlive(customer c: CustomerSummary) throws(FittingError) -> Double {
        try probabilityAlive(x: c.frequency, tx: c.recency, T: c.age)
    }

    /// E[X(t)], expected repeat visits of a new customer in (0, t]: (r/α) · E[(1 − e^(−μt))/μ], which is
    /// r β / (α (s−1)) · [1 − (β/(β+t))^(s−1)], and r/α · β ln(1 + t/β) at s = 1.
    public func expectedTransactions(t: Double) throws(FittingError) -> Double {
        guard t >= 0, t.isFinite else { throw .invalidParameter("t must be finite and >= 0") }
        return r / alpha * Self.expectedLifetimeWithin(t, s: s, beta: beta)
    }

    /// E[Y(t) | x, t_x, T], expected repeat visits in (T, T + t] for a customer with this history:
    /// P(alive) times (r+x)/(α+T) times the expected time alive in the next t given alive at T, whose
    /// dropout rate is then Gamma(s, β+T).
    public func conditionalExpectedTransactions(t: Double, x: Int, tx: Double, T: Double) throws(FittingError) -> Double {
        guard t >= 0, t.isFinite else { throw .invalidParameter("t must be finite and >= 0") }
        let alive = try probabilityAlive(x: x, tx: tx, T: T)
        return alive * (r + Double(x)) / (alpha + T) * Self.expectedLifetimeWithin(t, s: s, beta: beta + T)
    }

    public func conditionalExpectedTransactions(t: Double, customer c: CustomerSummary) throws(FittingError) -> Double {
        try conditionalExpectedTransactions(t: t, x: c.frequency, tx: c.recency, T: c.age)
    }

    /// E[min(lifetime, t)] for μ ~ Gamma(s, β): β/(s−1) · [1 − (β/(β+t))^(s−1)], written with expm1 so
    /// that s = 1 (where it is β ln(1 + t/β)) and s near 1 lose no digits.
    static func expectedLifetimeWithin(_ t: Double, s: Double, beta: Double) -> Double {
        let logGrowth = log1p(t / beta)
        if s == 1 { return beta * logGrowth }
        return beta * -expm1(-(s - 1) * logGrowth) / (s - 1)
    }

    static func validate(x: Int, tx: Double, T: Double) throws(FittingError) {
        guard x >= 0, tx.isFinite, T.isFinite, tx >= 0, tx <= T else {
            throw .invalidParameter("need x >= 0 and 0 <= t_x <= T")
        }
    }
}

/// A fitted Pareto/NBD model: estimates with standard errors.
public struct ParetoNBDFit: Sendable, CustomStringConvertible {
    public let model: ParetoNBDModel
    /// Number of customers.
    public let n: Int
    let fit: LogParameterFit
    /// The search spent the fit's work budget (`ParetoNBD.workPerHistory`) and stopped where it was.
    public var ranOutOfWork = false

    /// r, alpha, s, beta in that order.
    public var parameters: [ParameterEstimate] { fit.parameters }
    /// Inverse observed information for (r, α, s, β); nil when it is not positive definite.
    public var covariance: [[Double]]? { fit.covariance }
    public var logLikelihood: Double { fit.logLikelihood }
    public var converged: Bool { fit.converged }
    /// Nelder–Mead iterations (over all restarts) plus Newton steps.
    public var iterations: Int { fit.iterations }
    /// 2k − 2 logL with k = 4.
    public var aic: Double { 8 - 2 * logLikelihood }

    public var description: String {
        describeFit(title: "Pareto/NBD fit", parameters: parameters, logLikelihood: logLikelihood, aic: aic,
                    detail: "n = \(n) customers", converged: converged, iterations: iterations)
    }
}

/// Maximum-likelihood estimation of the Pareto/NBD model.
public enum ParetoNBD {
    /// The term budget of each series during a fit: past it the point is treated as infeasible. The
    /// series runs only up to z = `ParetoNBDModel.seriesUpTo` (some 7,000 terms), so it is not reached.
    static let fitTerms = 200_000

    /// The work a fit may spend per distinct history, in series terms (a quadrature's integrand
    /// evaluation counts as `PowerIntegral.evaluationWork` of them), over all its likelihood evaluations:
    /// the CDNOW master fit spends some 2 · 10⁸ in all, 10⁴ a history. A search that drifts to where
    /// every evaluation costs thousands of terms a history (ever larger r and α, say) stops at it
    /// instead of running for minutes, and its fit is not usable (`ParetoNBDFit.ranOutOfWork`).
    static let workPerHistory = 2_000_000

    /// Fits (r, α, s, β) by minimising −Σ ln L over the log-parameters (`LogParameterFit`), from
    /// `start` or (1, 1, 1, 1). Identical (x, t_x, T) triples are evaluated once.
    public static func fit(_ customers: [CustomerSummary], start: ParetoNBDModel? = nil, optimizer: NelderMead = NelderMead())
        throws(FittingError) -> ParetoNBDFit
    {
        try fit(customers, start: start, optimizer: optimizer, workPerHistory: workPerHistory)
    }

    static func fit(_ customers: [CustomerSummary], start: ParetoNBDModel?, optimizer: NelderMead, workPerHistory: Int)
        throws(FittingError) -> ParetoNBDFit
    {
        let groups = try DistinctHistories(customers)
        let work = WorkBudget(groups.weighted.count * workPerHistory)
        let fit = try LogParameterFit(
            names: ["r", "alpha", "s", "beta"], start: start.map { [$0.r, $0.alpha, $0.s, $0.beta] } ?? [1, 1, 1, 1],
            optimizer: optimizer, logLikelihood: { groups.logLikelihood($0, work: work) })
        let e = fit.estimate
        return ParetoNBDFit(model: try ParetoNBDModel(r: e[0], alpha: e[1], s: e[2], beta: e[3]), n: customers.count, fit: fit,
                            ranOutOfWork: work.left <= 0)
    }

    /// Customers collapsed to distinct (x, t_x, T) histories with their counts.
    struct DistinctHistories {
        /// x, t_x and T of one customer.
        struct History: Hashable {
            let x: Int
            let tx, T: Double
        }

        /// The distinct histories, by x, then T, then t_x, and how many customers have each.
        let weighted: [(history: History, weight: Double)]

        init(_ customers: [CustomerSummary]) throws(FittingError) {
            var counts: [History: Int] = [:]
            if customers.isEmpty { throw .emptyData }
            for (index, c) in customers.enumerated() {
                do { try ParetoNBDModel.validate(x: c.frequency, tx: c.recency, T: c.age) } catch { throw .invalidObservation(index: index) }
                // A customer without repeat visits has t_x = 0 by definition, whatever the summary holds.
                counts[History(x: c.frequency, tx: c.frequency == 0 ? 0 : c.recency, T: c.age), default: 0] += 1
            }
            weighted = counts.sorted { ($0.key.x, $0.key.T, $0.key.tx) < ($1.key.x, $1.key.T, $1.key.tx) }
                .map { (history: $0.key, weight: Double($0.value)) }
        }

        /// Σ ln L at p = (r, α, s, β); −∞ where a series does not converge within `ParetoNBD.fitTerms`,
        /// and once `work` is spent.
        func logLikelihood(_ p: [Double], work: WorkBudget? = nil) -> Double {
            if let work, work.left <= 0 { return -.infinity }
            guard let model = try? ParetoNBDModel(r: p[0], alpha: p[1], s: p[2], beta: p[3]) else { return -.infinity }
            let shared = -logGamma(p[0])
            var total = 0.0, weightSum = 0.0
            var lastX = -1, lnGammaRX = 0.0
            for (h, w) in weighted {
                if h.x != lastX { (lastX, lnGammaRX) = (h.x, logGamma(p[0] + Double(h.x))) }
                guard let parts = try? model.parts(x: h.x, tx: h.tx, T: h.T, maxTerms: ParetoNBD.fitTerms, work: work) else {
                    return -.infinity
                }
                total += w * (lnGammaRX + logAddExp(parts.alive, parts.died))
                weightSum += w
            }
            return total + weightSum * shared
        }
    }
}

/// Work left to a computation, shared by reference by the calls that spend it.
final class WorkBudget {
    var left: Int

    init(_ work: Int) { left = work }
}
