#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif
import Randomness
import RecordedData

/// BG/NBD parameters with the model's likelihood and predictions (Fader, Hardie & Lee 2005).
public struct BGNBDModel: Sendable, Equatable {
    public let r: Double
    public let alpha: Double
    public let a: Double
    public let b: Double

    /// Purchase rates λ ~ Gamma(shape r, rate α); after each repeat purchase a customer drops out
    /// with probability p ~ Beta(a, b). Times are in whatever unit the summaries use.
    ///
    /// - Throws: `.invalidParameter` unless all four parameters are finite and > 0.
    public init(r: Double, alpha: Double, a: Double, b: Double) throws(FittingError) {
        guard [r, alpha, a, b].allSatisfy({ $0 > 0 && $0.isFinite }) else {
            throw .invalidParameter("BG/NBD parameters must be finite and > 0")
        }
        self.r = r
        self.alpha = alpha
        self.a = a
        self.b = b
    }

    /// ln L(r, α, a, b | x, t_x, T), FHL eq. 6, with the two terms combined by log-sum-exp.
    public func logLikelihood(_ customer: CustomerSummary) -> Double {
        let x = Double(customer.frequency)
        let shared = logGamma(r + x) - logGamma(r) + r * log(alpha)
            + logGamma(a + b) + logGamma(b + x) - logGamma(b) - logGamma(a + b + x)
        return shared + Self.logBracket(
            r: r, a: a, b: b, x: customer.frequency,
            logAlphaT: log(alpha + customer.age), logAlphaTx: log(alpha + customer.recency)
        )
    }

    /// Σ ln L over customers.
    public func logLikelihood(_ customers: [CustomerSummary]) -> Double {
        customers.reduce(0) { $0 + logLikelihood($1) }
    }

    /// ln[(α+T)^−(r+x) + δ_{x>0} · a/(b+x−1) · (α+t_x)^−(r+x)].
    @inline(__always)
    static func logBracket(r: Double, a: Double, b: Double, x: Int, logAlphaT: Double, logAlphaTx: Double) -> Double {
        let power = r + Double(x)
        let alive = -power * logAlphaT
        guard x > 0 else { return alive }
        let dropped = log(a / (b + Double(x) - 1)) - power * logAlphaTx
        return logAddExp(alive, dropped)
    }

    /// E[X(t)], expected repeat transactions of a new customer in (0, t] (FHL eq. 9).
    ///
    /// Valid for every a > 0: it is evaluated in an equivalent form (Euler's transformation of the
    /// ₂F₁) that has no 0/0 at a = 1 and no pole of ₂F₁ when a + b ≤ 1.
    ///
    /// - Throws: `.seriesDidNotConverge` only when t/α exceeds about 3 · 10⁵ (the series needs ~36(1 + t/α) terms).
    public func expectedTransactions(t: Double) throws(FittingError) -> Double {
        guard t >= 0, t.isFinite else { throw .invalidParameter("t must be finite and >= 0") }
        return try Self.expectedCount(r: r, alpha: alpha, a: a, b: b, t: t)
    }

    /// E[Y(t) | x, t_x, T], expected repeat transactions in (T, T + t] for a customer with this history (FHL eq. 10).
    public func conditionalExpectedTransactions(t: Double, x: Int, tx: Double, T: Double) throws(FittingError) -> Double {
        guard t >= 0, t.isFinite else { throw .invalidParameter("t must be finite and >= 0") }
        try Self.validate(x: x, tx: tx, T: T)
        let xd = Double(x)
        let count = try Self.expectedCount(r: r + xd, alpha: alpha + T, a: a, b: b + xd, t: t)
        return count * probabilityAliveUnchecked(x: x, tx: tx, T: T)
    }

    public func conditionalExpectedTransactions(t: Double, customer c: CustomerSummary) throws(FittingError) -> Double {
        try conditionalExpectedTransactions(t: t, x: c.frequency, tx: c.recency, T: c.age)
    }

    /// P(alive at T | x, t_x, T) = 1 / (1 + δ_{x>0} · a/(b+x−1) · ((α+T)/(α+t_x))^(r+x)) (Fader, Hardie & Lee 2008 note).
    public func probabilityAlive(x: Int, tx: Double, T: Double) throws(FittingError) -> Double {
        try Self.validate(x: x, tx: tx, T: T)
        return probabilityAliveUnchecked(x: x, tx: tx, T: T)
    }

    public func probabilityAlive(customer c: CustomerSummary) throws(FittingError) -> Double {
        try probabilityAlive(x: c.frequency, tx: c.recency, T: c.age)
    }

    private func probabilityAliveUnchecked(x: Int, tx: Double, T: Double) -> Double {
        guard x > 0 else { return 1 }
        let xd = Double(x)
        let logOdds = log(a / (b + xd - 1)) + (r + xd) * (log(alpha + T) - log(alpha + tx))
        return 1 / (1 + exp(logOdds))
    }

    /// P(X(t) = x) for x = 0 ..< count, for a new customer (FHL eq. 8).
    ///
    /// The bracket 1 − Σ_{j<x} NBD(j) is carried as a running tail, so the whole vector costs O(count).
    public func repeatCountProbabilities(t: Double, count: Int) throws(FittingError) -> [Double] {
        guard t >= 0, t.isFinite else { throw .invalidParameter("t must be finite and >= 0") }
        guard count >= 0 else { throw .invalidParameter("count must be >= 0") }
        if count == 0 { return [] }
        if t == 0 { return [1] + Array(repeating: 0, count: count - 1) }
        let logStay = log(alpha / (alpha + t))
        let logGo = log(t / (alpha + t))
        let lnBetaAB = lnBeta(a, b)
        var result: [Double] = []
        result.reserveCapacity(count)
        var tail = 1.0
        for x in 0..<count {
            let xd = Double(x)
            let logNBD = logGamma(r + xd) - logGamma(r) - logGamma(xd + 1) + r * logStay + xd * logGo
            var p = exp(lnBeta(a, b + xd) - lnBetaAB + logNBD)
            if x > 0 {
                p += exp(lnBeta(a + 1, b + xd - 1) - lnBetaAB) * max(0, tail)
            }
            result.append(p)
            tail -= exp(logNBD)
        }
        return result
    }

    /// P(X(t) = x) for one x.
    public func probabilityOfRepeatCount(_ x: Int, t: Double) throws(FittingError) -> Double {
        guard x >= 0 else { throw .invalidParameter("x must be >= 0") }
        return try repeatCountProbabilities(t: t, count: x + 1)[x]
    }

    static func validate(x: Int, tx: Double, T: Double) throws(FittingError) {
        guard x >= 0, tx.isFinite, T.isFinite, tx >= 0, tx <= T else {
            throw .invalidParameter("need x >= 0 and 0 <= t_x <= T")
        }
    }

    /// (a+b−1)/(a−1) · [1 − (α/(α+t))^r ₂F₁(r, b; a+b−1; z)], z = t/(α+t), without the 0/0 at a = 1.
    ///
    /// Euler's transformation turns (1−z)^r ₂F₁(r, b; c; z) into (1−z)^(a−1) ₂F₁(c−r, a−1; c; z)
    /// with c = a+b−1; since (a−1)_n = (a−1)(a)_{n−1}, the factor a−1 cancels and
    ///
    ///     E = c · [1 − (1−z)^(a−1)]/(a−1) − (1−z)^(a−1) · Σ_{n≥1} (c−r)_n (a)_{n−1} / ((c+1)_{n−1} n!) zⁿ,
    ///
    /// where the first term is −expm1((a−1)·ln(1−z))/(a−1) (→ −ln(1−z) at a = 1). This holds for every
    /// a > 0 (FHL's form, valid for a ≠ 1 by analytic continuation, is this expression rearranged) and
    /// avoids c ≤ 0 poles of ₂F₁ when a + b < 1. The series costs about 36/(1−z) terms.
    static func expectedCount(r: Double, alpha: Double, a: Double, b: Double, t: Double) throws(FittingError) -> Double {
        if t == 0 { return 0 }
        let c = a + b - 1
        let z = t / (alpha + t)
        let logOneMinusZ = -log1p(t / alpha)
        let e = (a - 1) * logOneMinusZ
        let first = a == 1 ? -logOneMinusZ : -expm1(e) / (a - 1)
        let settled = abs(c - r) + abs(a) + 2
        let series = try hypergeometricTail(first: (c - r) * z, z: z, maxTerms: 10_000_000, settledAfter: settled) { m in
            // The helper counts from its own first term, which is the series' n = 1.
            let n = m + 1
            return (c - r + n) * (a + n - 1) / ((c + n) * (n + 1))
        }
        return c * first - exp(e) * series
    }
}

/// A fitted BG/NBD model: estimates with standard errors and the fitted model's predictions.
public struct BGNBDFit: Sendable, CustomStringConvertible {
    public let model: BGNBDModel
    /// r, alpha, a, b in that order.
    public let parameters: [ParameterEstimate]
    /// Inverse observed information for (r, α, a, b); nil when it is not positive definite.
    public let covariance: [[Double]]?
    public let logLikelihood: Double
    /// Number of customers.
    public let n: Int
    public let converged: Bool
    /// Nelder–Mead iterations (over all restarts) plus Newton steps.
    public let iterations: Int

    /// 2k − 2 logL with k = 4.
    public var aic: Double { 8 - 2 * logLikelihood }

    public func expectedTransactions(t: Double) throws(FittingError) -> Double {
        try model.expectedTransactions(t: t)
    }

    public func conditionalExpectedTransactions(t: Double, x: Int, tx: Double, T: Double) throws(FittingError) -> Double {
        try model.conditionalExpectedTransactions(t: t, x: x, tx: tx, T: T)
    }

    public func probabilityAlive(x: Int, tx: Double, T: Double) throws(FittingError) -> Double {
        try model.probabilityAlive(x: x, tx: tx, T: T)
    }

    public func repeatCountProbabilities(t: Double, count: Int) throws(FittingError) -> [Double] {
        try model.repeatCountProbabilities(t: t, count: count)
    }

    public var description: String {
        describeFit(
            title: "BG/NBD fit", parameters: parameters, logLikelihood: logLikelihood, aic: aic,
            detail: "n = \(n) customers", converged: converged, iterations: iterations
        )
    }
}

/// Maximum-likelihood estimation of the BG/NBD model.
public enum BGNBD {
    /// Fits (r, α, a, b) by minimising −Σ ln L over the log-parameters (`LogParameterFit`), from
    /// `start` or (1, 1, 1, 1). Identical (x, t_x, T) triples are evaluated once and weighted by their count.
    public static func fit(
        _ customers: [CustomerSummary],
        start: BGNBDModel? = nil,
        optimizer: NelderMead = NelderMead()
    ) throws(FittingError) -> BGNBDFit {
        let groups = try GroupedCustomers(customers)
        let fit = try LogParameterFit(
            names: ["r", "alpha", "a", "b"], start: start.map { [$0.r, $0.alpha, $0.a, $0.b] } ?? [1, 1, 1, 1],
            optimizer: optimizer
        ) { p in groups.logLikelihood(r: p[0], alpha: p[1], a: p[2], b: p[3]) }
        let e = fit.estimate
        return BGNBDFit(
            model: try BGNBDModel(r: e[0], alpha: e[1], a: e[2], b: e[3]), parameters: fit.parameters,
            covariance: fit.covariance, logLikelihood: fit.logLikelihood, n: customers.count,
            converged: fit.converged, iterations: fit.iterations
        )
    }
}

/// Customers collapsed to distinct (x, t_x, T) triples, with per-x Γ terms shared across triples.
private struct GroupedCustomers: Sendable {
    let frequencies: [Int]
    let xIndex: [Int]
    let recency: [Double]
    let age: [Double]
    let weight: [Double]
    let distinctX: [Int]
    let distinctXWeight: [Double]

    init(_ customers: [CustomerSummary]) throws(FittingError) {
        guard !customers.isEmpty else { throw .emptyData }
        var counts: [CustomerSummary: Int] = [:]
        for (index, c) in customers.enumerated() {
            guard c.frequency >= 0, c.recency.isFinite, c.age.isFinite, c.recency >= 0, c.recency <= c.age else {
                throw .invalidObservation(index: index)
            }
            // t_x is irrelevant when x = 0; normalising it lets such customers share a group.
            let key = c.frequency == 0 ? CustomerSummary(frequency: 0, recency: 0, age: c.age) : c
            counts[key, default: 0] += 1
        }
        let keys = counts.keys.sorted { ($0.frequency, $0.age, $0.recency) < ($1.frequency, $1.age, $1.recency) }
        frequencies = keys.map(\.frequency)
        recency = keys.map(\.recency)
        age = keys.map(\.age)
        weight = keys.map { Double(counts[$0]!) }
        distinctX = Array(Set(frequencies)).sorted()
        let position = Dictionary(uniqueKeysWithValues: distinctX.enumerated().map { ($1, $0) })
        xIndex = frequencies.map { position[$0]! }
        var xWeight = [Double](repeating: 0, count: distinctX.count)
        for (i, w) in zip(xIndex, weight) { xWeight[i] += w }
        distinctXWeight = xWeight
    }

    func logLikelihood(r: Double, alpha: Double, a: Double, b: Double) -> Double {
        var total = 0.0
        let lnGammaR = logGamma(r), lnGammaB = logGamma(b), lnGammaAB = logGamma(a + b)
        let logAlpha = log(alpha)
        for (x, w) in zip(distinctX, distinctXWeight) {
            let xd = Double(x)
            let shared = logGamma(r + xd) - lnGammaR + r * logAlpha + lnGammaAB + logGamma(b + xd) - lnGammaB - logGamma(a + b + xd)
            total += w * shared
        }
        for i in frequencies.indices {
            let bracket = BGNBDModel.logBracket(
                r: r, a: a, b: b, x: frequencies[i],
                logAlphaT: log(alpha + age[i]), logAlphaTx: log(alpha + recency[i])
            )
            total += weight[i] * bracket
        }
        return total
    }
}
