import XCTest
import Randomness

/// Pins the first draws of every sampler for one seed, to catch accidental algorithm changes (draw
/// order, rejection tests, constants). Expected values of the exponential, Weibull, normal and
/// lognormal come from a separate Python implementation of the generator (as in GeneratorTests)
/// and of the ziggurat as documented on `Ziggurat`, which builds its own tables. The relative tolerance 1e−12 allows last-bit differences between C math libraries (log, exp,
/// pow are not correctly rounded everywhere) while any change of algorithm moves values far more.
final class DeterminismTests: XCTestCase {
    private let seed: UInt64 = 2024

    private func assertPinned<D: ContinuousDistribution>(
        _ distribution: D, _ expected: [Double], file: StaticString = #filePath, line: UInt = #line
    ) {
        var generator = Xoshiro256(seed: seed)
        for (index, value) in expected.enumerated() {
            let drawn = distribution.sample(&generator)
            XCTAssertEqual(drawn, value, accuracy: 1e-12 * abs(value), "draw \(index)", file: file, line: line)
        }
    }

    func testPinnedContinuousDraws() {
        assertPinned(ExponentialDistribution(mean: 2),
                     [0.8036075464850854, 0.1378922404369183, 1.5855416758031415])
        assertPinned(WeibullDistribution(shape: 1.5, scale: 2),
                     [1.089028727556998, 0.3362816868056693, 1.7131488793113363])
        assertPinned(NormalDistribution(mean: 10, standardDeviation: 2),
                     [11.009073563228, 10.273456714776799, 8.899325125888183])
        assertPinned(LogNormalDistribution(mu: 0.3, sigma: 0.5),
                     [1.7371891757637006, 1.4453683154844874, 1.0251421454590641])
        // Gamma and Beta are pinned from this implementation: they are built on the normal and
        // uniform draws checked against the reference above.
        assertPinned(GammaDistribution(shape: 0.3, rate: 2),
                     [0.00700291258205414, 0.10466376394139454, 0.0008891028441996311])
        assertPinned(GammaDistribution(shape: 2.5, rate: 2),
                     [1.4987043816533325, 0.7266775009501516, 0.5959930744109068])
        assertPinned(BetaDistribution(a: 0.5, b: 0.5),
                     [0.22652169885418497, 0.06419562727755004, 0.7280387810083015])
        assertPinned(BetaDistribution(a: 2, b: 5),
                     [0.4022690038846768, 0.07411172144958662, 0.19928901343590832])
    }

    func testPinnedDiscreteDraws() {
        var generator = Xoshiro256(seed: seed)
        let bernoulli = BernoulliDistribution(probability: 0.3)
        XCTAssertEqual((0..<10).map { _ in bernoulli.sample(&generator) },
                       [false, true, true, false, false, false, false, false, true, false])

        generator = Xoshiro256(seed: seed)
        let choice = WeightedChoice(weights: [1, 0, 2.5, 0.5])
        XCTAssertEqual((0..<10).map { _ in choice.sample(&generator) }, [2, 2, 0, 2, 2, 2, 3, 2, 0, 2])
    }

    /// Same seed, same sequence, bit for bit, over many draws (including rejection loops).
    func testSameSeedGivesIdenticalSequences() {
        func sequence<D: ContinuousDistribution>(_ distribution: D) -> [Double] {
            var generator = Xoshiro256(seed: 77, user: 3, purpose: .response)
            return (0..<2000).map { _ in distribution.sample(&generator) }
        }
        let distributions: [any ContinuousDistribution] = [
            ExponentialDistribution(mean: 1), WeibullDistribution(shape: 0.7, scale: 1),
            NormalDistribution(mean: 0, standardDeviation: 1), LogNormalDistribution(mu: 0, sigma: 1),
            GammaDistribution(shape: 0.4, rate: 1), GammaDistribution(shape: 4, rate: 1),
            BetaDistribution(a: 0.6, b: 3), BetaDistribution(a: 3, b: 4),
        ]
        for distribution in distributions {
            let first = sequence(distribution)
            let second = sequence(distribution)
            XCTAssertEqual(first, second, "\(type(of: distribution))")
            XCTAssertEqual(Set(first).count, first.count, "\(type(of: distribution)) repeats values")
        }
    }
}
