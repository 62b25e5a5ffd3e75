import XCTest
@testable import RecordedData

final class KaplanMeierTests: XCTestCase {
    private func gap(_ duration: Double, censored: Bool = false) -> CensoredGap {
        CensoredGap(duration: duration, censored: censored)
    }

    /// Durations 1, 2+, 3, 3, 3+, 5+ (+ = censored), worked by hand:
    /// t=1: n=6, d=1, S = 5/6, Greenwood sum 1/(6·5) = 1/30.
    /// t=2: a censoring, no step; 4 remain at risk.
    /// t=3: n=4 (the 3+ counts as at risk: deaths before censorings), d=2, S = 5/6 · 2/4 = 5/12,
    ///      sum 1/30 + 2/(4·2) = 17/60, Var = (5/12)² · 17/60 = 425/8640.
    /// t=5: a censoring, no step, so S stays at 5/12.
    func testClassicSixObservationExample() {
        let km = KaplanMeier([gap(3), gap(1), gap(5, censored: true), gap(3, censored: true), gap(2, censored: true), gap(3)])
        XCTAssertEqual(km.steps.map(\.time), [1, 3])
        XCTAssertEqual(km.steps.map(\.atRisk), [6, 4])
        XCTAssertEqual(km.steps.map(\.events), [1, 2])
        XCTAssertEqual(km.steps[0].survival, 5.0 / 6, accuracy: 1e-12)
        XCTAssertEqual(km.steps[1].survival, 5.0 / 12, accuracy: 1e-12)
        XCTAssertEqual(km.steps[0].variance, 25.0 / 36 / 30, accuracy: 1e-12)
        XCTAssertEqual(km.steps[1].variance, 425.0 / 8_640, accuracy: 1e-12)
        XCTAssertEqual(km.observations, 6)
        XCTAssertEqual(km.censoredCount, 3)

        XCTAssertEqual(km.survival(at: 0.5), 1)
        XCTAssertEqual(km.survival(at: 1), 5.0 / 6, accuracy: 1e-12)
        XCTAssertEqual(km.survival(at: 2.99), 5.0 / 6, accuracy: 1e-12)
        XCTAssertEqual(km.survival(at: 3), 5.0 / 12, accuracy: 1e-12)
        XCTAssertEqual(km.survival(at: 100), 5.0 / 12, accuracy: 1e-12)
        XCTAssertEqual(km.variance(at: 0), 0)
        XCTAssertEqual(km.plateau, 5.0 / 12, accuracy: 1e-12)

        // F(1) = 1/6, F(3) = 7/12; beyond 7/12 the draw is a dropout.
        XCTAssertEqual(km.quantile(u: 0), 1)
        XCTAssertEqual(km.quantile(u: 0.1), 1)
        XCTAssertEqual(km.quantile(u: 0.17), 3)
        XCTAssertEqual(km.quantile(u: 0.58), 3)
        XCTAssertNil(km.quantile(u: 0.59))
        XCTAssertNil(km.quantile(u: 1))
    }

    func testWithoutCensoringItIsTheEmpiricalSurvivalFunction() {
        let durations: [Double] = [8, 2, 5, 9, 5]
        let km = KaplanMeier(durations.map { gap($0) })
        for t in stride(from: 0.0, through: 10, by: 0.5) {
            let empirical = Double(durations.filter { $0 > t }.count) / Double(durations.count)
            XCTAssertEqual(km.survival(at: t), empirical, accuracy: 1e-12, "t = \(t)")
            // Greenwood reduces to the binomial variance S(1 − S)/n.
            XCTAssertEqual(km.variance(at: t), empirical * (1 - empirical) / 5, accuracy: 1e-12, "t = \(t)")
        }
        XCTAssertEqual(km.plateau, 0)
        XCTAssertEqual(km.quantile(u: 1), 9, "with no censoring every draw returns")
        XCTAssertEqual(km.quantile(u: 0.5), 5)
    }

    func testAllCensoredMeansNoReturnIsEverSeen() {
        let km = KaplanMeier([gap(1, censored: true), gap(4, censored: true)])
        XCTAssertTrue(km.steps.isEmpty)
        XCTAssertEqual(km.survival(at: 10), 1)
        XCTAssertEqual(km.plateau, 1)
        XCTAssertNil(km.quantile(u: 0))
        XCTAssertNil(km.quantile(u: 0.5))
        XCTAssertTrue(KaplanMeier([]).steps.isEmpty)
    }

    func testUnusableDurationsAreIgnored() {
        let km = KaplanMeier([gap(.nan), gap(-1), gap(.infinity), gap(2)])
        XCTAssertEqual(km.observations, 1)
        XCTAssertEqual(km.steps.map(\.time), [2])
    }

    func testResamplingDropsOutAtThePlateauRate() {
        let km = KaplanMeier([gap(1), gap(2), gap(2), gap(4, censored: true)])  // S: 3/4, 1/4; plateau 1/4
        let draws = (0..<10_000).map { km.quantile(u: (Double($0) + 0.5) / 10_000) }
        XCTAssertEqual(Double(draws.filter { $0 == nil }.count) / 10_000, 0.25, accuracy: 1e-3)
        XCTAssertEqual(Double(draws.filter { $0 == 1 }.count) / 10_000, 0.25, accuracy: 1e-3)
        XCTAssertEqual(Double(draws.filter { $0 == 2 }.count) / 10_000, 0.5, accuracy: 1e-3)
    }
}
