import Foundation
import Simulation
import XCTest

/// The paired difference of two proportions (retention and opt-out lifts, paired comparisons):
/// Newcombe's square-and-add score interval for paired data, against a published case and by its
/// exact coverage.
final class PairedProportionTests: XCTestCase {
    /// Complete response before and after consolidation therapy (Cavo et al. 2012), as in Fagerland,
    /// Lydersen and Laake, "Statistical Analysis of Contingency Tables" (2017), chapter 8: 59 yes under
    /// both, 6 under the first only, 16 under the second only, 80 under neither; the Newcombe
    /// square-and-add interval is −0.0621 (−0.1186 to −0.0046), given to four decimals.
    func testThePublishedCase() throws {
        let e = try XCTUnwrap(Estimate.pairedDifference(gained: 6, lost: 16, count: 161, first: 65))
        XCTAssertEqual(e.value, -10.0 / 161, accuracy: 1e-15)
        XCTAssertEqual(e.low, -0.1186, accuracy: 0.00005)
        XCTAssertEqual(e.high, -0.0046, accuracy: 0.00005)
        // The same table seen the other way round: the interval mirrored.
        let m = try XCTUnwrap(Estimate.pairedDifference(gained: 16, lost: 6, count: 161, first: 75))
        XCTAssertEqual(m.low, -e.high, accuracy: 1e-12)
        XCTAssertEqual(m.high, -e.low, accuracy: 1e-12)
    }

    /// No discordant user: the Wald interval has no width, the score interval keeps one, and both
    /// ends stay within [−1, 1] for a table of all yes or all no.
    func testNoDiscordantPairKeepsAWidth() throws {
        let wald = try XCTUnwrap(Estimate.pairedDifference(gained: 0, lost: 0, count: 30))
        XCTAssertEqual(wald.high - wald.low, 0)
        for first: Int64 in [0, 12, 30] {
            let e = try XCTUnwrap(Estimate.pairedDifference(gained: 0, lost: 0, count: 30, first: first))
            XCTAssertEqual(e.value, 0)
            XCTAssertLessThan(e.low, 0, "first \(first)")
            XCTAssertGreaterThan(e.high, 0, "first \(first)")
            XCTAssertGreaterThanOrEqual(e.low, -1)
            XCTAssertLessThanOrEqual(e.high, 1)
        }
        // Everyone yes under the first and no under the second: a difference of 1, held within [−1, 1].
        let all = try XCTUnwrap(Estimate.pairedDifference(gained: 30, lost: 0, count: 30, first: 30))
        XCTAssertEqual(all.value, 1)
        XCTAssertEqual(all.high, 1)
        XCTAssertLessThan(all.low, 1)
        // Counts that do not make one table fall back to the Wald interval rather than trap.
        let odd = try XCTUnwrap(Estimate.pairedDifference(gained: 5, lost: 3, count: 10, first: 2))
        XCTAssertEqual(odd, Estimate.pairedDifference(gained: 5, lost: 3, count: 10))
        XCTAssertNil(Estimate.pairedDifference(gained: 0, lost: 0, count: 0, first: 0))
    }

    /// The exact coverage of the true difference over every table of 40 pairs (the multinomial of the
    /// four cells, enumerated: no sampling error), at points from few to many discordant pairs. The
    /// score interval covers at least 94.5% at each; the Wald interval, which has no width when no pair
    /// is discordant, covers far less where discordant pairs are rare.
    func testExactCoverageOverEveryTable() {
        let n = 40
        let logFactorial = (0...n).map { k in (0...k).dropFirst().reduce(0.0) { $0 + Foundation.log(Double($1)) } }
        // (both, first only, second only); neither is the rest.
        let points: [(Double, Double, Double)] = [(0.3, 0.02, 0.01), (0.3, 0.05, 0.05), (0.2, 0.1, 0.05), (0.5, 0.15, 0.1),
                                                  (0.1, 0.01, 0), (0.4, 0.2, 0.2), (0.05, 0.02, 0.02)]
        var waldAtRarest = 1.0
        for (pa, pb, pc) in points {
            let pe = 1 - pa - pb - pc, truth = pb - pc
            var score = 0.0, wald = 0.0, total = 0.0
            for a in 0...n {
                for b in 0...(n - a) {
                    for c in 0...(n - a - b) {
                        let e = n - a - b - c
                        var log = logFactorial[n] - logFactorial[a] - logFactorial[b] - logFactorial[c] - logFactorial[e]
                        var impossible = false
                        for (k, p) in [(a, pa), (b, pb), (c, pc), (e, pe)] where k > 0 {
                            if p == 0 { impossible = true } else { log += Double(k) * Foundation.log(p) }
                        }
                        if impossible { continue }
                        let probability = exp(log)
                        total += probability
                        let s = Estimate.pairedDifference(gained: Int64(b), lost: Int64(c), count: Int64(n), first: Int64(a + b))!
                        if s.low <= truth && truth <= s.high { score += probability }
                        let w = Estimate.pairedDifference(gained: Int64(b), lost: Int64(c), count: Int64(n))!
                        if w.low <= truth && truth <= w.high { wald += probability }
                    }
                }
            }
            XCTAssertEqual(total, 1, accuracy: 1e-9, "every table enumerated")
            XCTAssertGreaterThanOrEqual(score, 0.945, "score interval at \((pa, pb, pc))")
            if pb + pc <= 0.03 { waldAtRarest = min(waldAtRarest, wald) }
        }
        XCTAssertLessThan(waldAtRarest, 0.8, "the Wald interval undercovers where discordant pairs are rare")
    }
}
