import XCTest
import Randomness

/// The ziggurat samplers against their exact distributions, body and tails: Kolmogorov–Smirnov on
/// the whole range and chi-square on bins that include the tail beyond the ziggurat's base layer
/// (normal r = 3.654, exponential r = 7.697), where the samplers switch to a separate method.
final class ZigguratTests: XCTestCase {
    /// Upper 0.1% point of chi-square with `df` degrees of freedom (Wilson–Hilferty; within 1% of
    /// the exact value from df = 10 on).
    private func chiSquareCritical(df: Int) -> Double {
        let d = Double(df), z = 3.090
        let c = 2 / (9 * d)
        return d * pow(1 - c + z * c.squareRoot(), 3)
    }

    /// Chi-square statistic of `n` draws against bins with the given edges (ascending, open-ended
    /// at both ends) and exact bin probabilities; every bin must expect at least 5 draws.
    private func chiSquare(n: Int, edges: [Double], probabilities: [Double], draw: () -> Double)
        -> (statistic: Double, smallestExpected: Double)
    {
        var counts = Array(repeating: 0, count: edges.count + 1)
        for _ in 0..<n {
            let x = draw()
            var low = 0, high = edges.count
            while low < high {
                let middle = (low + high) / 2
                if x < edges[middle] { high = middle } else { low = middle + 1 }
            }
            counts[low] += 1
        }
        var statistic = 0.0
        var smallest = Double.infinity
        for (count, p) in zip(counts, probabilities) {
            let expected = Double(n) * p
            smallest = min(smallest, expected)
            statistic += (Double(count) - expected) * (Double(count) - expected) / expected
        }
        return (statistic, smallest)
    }

    /// Standard normal upper tail Q(x) = P(Z > x), accurate far into the tail.
    private func upper(_ x: Double) -> Double { 0.5 * erfc(x / 2.0.squareRoot()) }

    func testNormalKolmogorovSmirnov() {
        let samples = StatisticalChecks.draw(NormalDistribution(mean: 0, standardDeviation: 1), n: 400_000, seed: 71)
        let verdict = StatisticalChecks.evaluate(samples, moments: TheoreticalMoments(raw: [0, 1, 0, 3]), cdf: normalCDF)
        XCTAssertTrue(verdict.ksOK, "KS \(verdict.ks) >= \(verdict.ksCritical)")
        XCTAssertTrue(verdict.meanOK && verdict.varianceOK, "mean \(verdict.sampleMean), variance \(verdict.sampleVariance)")
    }

    func testNormalChiSquareWithTails() {
        // 100 equal-probability bins over the body, then both tails split at the base layer's edge
        // and further out, so a fault in the tail method or in any layer shows.
        var edges: [Double] = []
        for k in 1..<100 {
            // Invert Φ by bisection.
            var low = -6.0, high = 6.0
            for _ in 0..<80 {
                let middle = (low + high) / 2
                if normalCDF(middle) < Double(k) / 100 { low = middle } else { high = middle }
            }
            edges.append((low + high) / 2)
        }
        let r = 3.6541528853610088
        edges += [-4.4, -r, r, 4.4]
        edges.sort()
        var probabilities: [Double] = []
        for i in 0...edges.count {
            let a = i == 0 ? -Double.infinity : edges[i - 1]
            let b = i == edges.count ? Double.infinity : edges[i]
            // P(a ≤ Z < b) = Q(a) − Q(b), with Q(−x) = 1 − Q(x).
            let qa = a == -.infinity ? 1 : (a < 0 ? 1 - upper(-a) : upper(a))
            let qb = b == .infinity ? 0 : (b < 0 ? 1 - upper(-b) : upper(b))
            probabilities.append(qa - qb)
        }
        var g = Xoshiro256(seed: 72)
        let result = chiSquare(n: 3_000_000, edges: edges, probabilities: probabilities) { g.nextStandardNormal() }
        XCTAssertGreaterThanOrEqual(result.smallestExpected, 5)
        XCTAssertLessThan(result.statistic, chiSquareCritical(df: edges.count))
    }

    func testNormalTailBeyondBaseLayer() {
        // Given Z > r, Z follows the normal tail: Kolmogorov–Smirnov on |Z| for the draws beyond r
        // against P(|Z| ≤ x | |Z| > r) = 1 − Q(x)/Q(r).
        let r = 3.6541528853610088
        var g = Xoshiro256(seed: 73)
        var tail: [Double] = []
        for _ in 0..<6_000_000 {
            let z = g.nextStandardNormal()
            if abs(z) > r { tail.append(abs(z)) }
        }
        // 2 Q(r) of the draws, within 5 binomial standard deviations.
        let p = 2 * upper(r)
        XCTAssertEqual(Double(tail.count), 6_000_000 * p, accuracy: StatisticalChecks.binomialTolerance(n: 6_000_000, p: p))
        tail.sort()
        let n = Double(tail.count)
        var d = 0.0
        for (i, x) in tail.enumerated() {
            let f = 1 - upper(x) / upper(r)
            d = max(d, f - Double(i) / n, Double(i + 1) / n - f)
        }
        XCTAssertLessThan(d, 1.95 / n.squareRoot(), "KS on \(tail.count) tail draws")
    }

    func testNormalIsSymmetric() {
        var g = Xoshiro256(seed: 74)
        let n = 1_000_000
        var positive = 0
        for _ in 0..<n where g.nextStandardNormal() > 0 { positive += 1 }
        XCTAssertEqual(Double(positive), Double(n) / 2, accuracy: StatisticalChecks.binomialTolerance(n: n, p: 0.5))
    }

    func testExponentialKolmogorovSmirnov() {
        let samples = StatisticalChecks.draw(ExponentialDistribution(mean: 1), n: 400_000, seed: 81)
        let verdict = StatisticalChecks.evaluate(samples, moments: TheoreticalMoments(raw: [1, 2, 6, 24]),
                                                 cdf: { $0 <= 0 ? 0 : -expm1(-$0) })
        XCTAssertTrue(verdict.ksOK, "KS \(verdict.ks) >= \(verdict.ksCritical)")
        XCTAssertTrue(verdict.meanOK && verdict.varianceOK, "mean \(verdict.sampleMean), variance \(verdict.sampleVariance)")
    }

    func testExponentialChiSquareWithTails() {
        // 100 equal-probability bins, then the tail split at the base layer's edge and beyond it
        // (where a draw is r plus a fresh draw).
        var edges = (1..<100).map { -log1p(-Double($0) / 100) }
        edges += [7.6971174701310497, 9, 10.5, 12]
        edges.sort()
        var probabilities: [Double] = []
        for i in 0...edges.count {
            let a = i == 0 ? 0 : edges[i - 1]
            let b = i == edges.count ? Double.infinity : edges[i]
            probabilities.append(exp(-a) - (b == .infinity ? 0 : exp(-b)))
        }
        var g = Xoshiro256(seed: 82)
        let result = chiSquare(n: 4_000_000, edges: edges, probabilities: probabilities) { g.nextStandardExponential() }
        XCTAssertGreaterThanOrEqual(result.smallestExpected, 5)
        XCTAssertLessThan(result.statistic, chiSquareCritical(df: edges.count))
    }

    func testExponentialTailIsMemoryless() {
        // Given E > r, E − r is again a standard exponential: KS on the excesses.
        let r = 7.6971174701310497
        var g = Xoshiro256(seed: 83)
        var excess: [Double] = []
        for _ in 0..<8_000_000 {
            let e = g.nextStandardExponential()
            if e > r { excess.append(e - r) }
        }
        XCTAssertEqual(Double(excess.count), 8_000_000 * exp(-r),
                       accuracy: StatisticalChecks.binomialTolerance(n: 8_000_000, p: exp(-r)))
        excess.sort()
        let n = Double(excess.count)
        var d = 0.0
        for (i, x) in excess.enumerated() {
            let f = -expm1(-x)
            d = max(d, f - Double(i) / n, Double(i + 1) / n - f)
        }
        XCTAssertLessThan(d, 1.95 / n.squareRoot(), "KS on \(excess.count) tail draws")
    }

    func testChecksRejectAWrongTail() {
        // The chi-square above is sharp enough to see a tail that is slightly too light: the same
        // normal draws with everything beyond 3.2 pulled in by 10%.
        var edges: [Double] = [-4.4, -3.6541528853610088, 0, 3.6541528853610088, 4.4]
        edges.sort()
        var probabilities: [Double] = []
        for i in 0...edges.count {
            let a = i == 0 ? -Double.infinity : edges[i - 1]
            let b = i == edges.count ? Double.infinity : edges[i]
            let qa = a == -.infinity ? 1 : (a < 0 ? 1 - upper(-a) : upper(a))
            let qb = b == .infinity ? 0 : (b < 0 ? 1 - upper(-b) : upper(b))
            probabilities.append(qa - qb)
        }
        var g = Xoshiro256(seed: 75)
        let result = chiSquare(n: 3_000_000, edges: edges, probabilities: probabilities) {
            let z = g.nextStandardNormal()
            return abs(z) > 3.2 ? z * 0.9 : z
        }
        XCTAssertGreaterThan(result.statistic, chiSquareCritical(df: edges.count))
    }
}
