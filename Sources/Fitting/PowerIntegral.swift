#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif

/// Gauss–Legendre quadrature: the nodes and weights of the n-point rule on [−1, 1], found as the roots
/// of the Legendre polynomial Pₙ by Newton's method from Tricomi's first guesses cos(π(k − ¼)/(n + ½)),
/// with Pₙ and its derivative from the three-term recurrence (k+1)P_{k+1} = (2k+1)x P_k − k P_{k−1}.
struct GaussLegendre: Sendable {
    let nodes: [Double]
    let weights: [Double]

    init(points n: Int) {
        precondition(n >= 1, "GaussLegendre: at least one point")
        var nodes = [Double](repeating: 0, count: n), weights = [Double](repeating: 0, count: n)
        for k in 1...n {
            var x = cos(Double.pi * (Double(k) - 0.25) / (Double(n) + 0.5))
            var derivative = 0.0
            for _ in 0..<100 {
                // P_{n−1} and P_n at x.
                var (p0, p1) = (1.0, x)
                for j in 1..<n { (p0, p1) = (p1, ((2 * Double(j) + 1) * x * p1 - Double(j) * p0) / (Double(j) + 1)) }
                derivative = Double(n) * (x * p1 - p0) / (x * x - 1)
                let step = p1 / derivative
                x -= step
                if abs(step) <= 1e-16 { break }
            }
            nodes[k - 1] = x
            weights[k - 1] = 2 / ((1 - x * x) * derivative * derivative)
        }
        (self.nodes, self.weights) = (nodes, weights)
    }
}

/// ln ∫_lo^hi (α/(α+u))^r (β/(β+u))^s (α+u)^−x (β+u)^−1 du for 0 ≤ lo < hi: the Pareto/NBD
/// likelihood's "died after the last visit" part (`ParetoNBDModel.Parts.died` without ln s), by
/// quadrature instead of the hypergeometric series, whose terms shrink only as zⁿ and which needs
/// ~37/(1 − z) terms as z = |α − β|/(max(α, β) + t_x) nears 1.
///
/// On y = ln(k + u), k = min(α, β) (taken from its value at lo), the integrand times du/dy = k + u is e^{h(y)}, and h is smooth
/// and unimodal: h′(y) = 1 − (r+x)·f_α − (s+1)·f_β with f_c = (k+u)/(c+u) rising towards 1 (one of them
/// is 1), so h′ falls, and h″ = −(r+x) f_α(1 − f_α) − (s+1) f_β(1 − f_β). Panels are as wide as
/// `panelReach` over the larger of |h′| and √|h″| at their start (half a unit at most), so that each
/// panel's 16-point rule sees a change of e^±2 or less, and the sum stops once the integrand is
/// decreasing and what is left of the range could add no more than 1e-17 of the sum.
enum PowerIntegral {
    static let rule = GaussLegendre(points: 16)
    static let panelReach = 1.0

    /// What one evaluation of the integrand costs in a `WorkBudget`, in series terms (a few logarithms
    /// against a multiplication and a division).
    static let evaluationWork = 25

    /// Nil once `work` is spent.
    static func logIntegral(r: Double, alpha: Double, s: Double, beta: Double, x: Double, from lo: Double, to hi: Double,
                            work: WorkBudget? = nil) -> Double?
    {
        guard hi > lo else { return -.infinity }
        let k = min(alpha, beta), base = k + lo, logBase = log(base)
        let a = r + x, b = s + 1
        // The variable is t = y − ln(k + lo), from 0 to `span`, so that a range narrow beside k + lo
        // keeps its digits: u = lo + (k + lo)(eᵗ − 1).
        let span = log1p((hi - lo) / base)
        func u(_ t: Double) -> Double { lo + base * expm1(t) }
        func h(_ t: Double) -> Double {
            let u = u(t)
            return logBase + t - r * log1p(u / alpha) - s * log1p(u / beta) - x * log(alpha + u) - log(beta + u)
        }
        // h′ and h″ at t.
        func slopes(_ t: Double) -> (Double, Double) {
            let u = u(t), e = k + u
            let fa = e / (alpha + u), fb = e / (beta + u)
            return (1 - a * fa - b * fb, -a * fa * (1 - fa) - b * fb * (1 - fb))
        }
        var scale = -Double.infinity, sum = 0.0
        var start = 0.0
        while start < span {
            let (d1, d2) = slopes(start)
            let width = min(span - start, min(0.5, panelReach / max(abs(d1), abs(d2).squareRoot(), 1e-300)))
            let end = start + width
            if let work {
                work.left -= rule.nodes.count * evaluationWork
                if work.left <= 0 { return nil }
            }
            let middle = (start + end) / 2, half = width / 2
            for i in rule.nodes.indices {
                let v = h(middle + half * rule.nodes[i])
                guard v.isFinite else { continue }
                if v > scale {
                    sum *= exp(scale - v)
                    scale = v
                }
                sum += half * rule.weights[i] * exp(v - scale)
            }
            start = end
            // Past the peak, the rest is at most the integrand here times the range left.
            if slopes(end).0 < 0, sum > 0, h(end) - scale - log(sum) + log(span - end) < -40 { break }
        }
        return sum > 0 ? scale + log(sum) : -.infinity
    }
}
