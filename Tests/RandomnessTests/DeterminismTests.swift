import XCTest
import Randomness

/// Pins the first draws of every sampler for one seed, to catch accidental algorithm changes (draw
/// order, rejection tests, constants). Expected values come from the separate Python reference
/// implementation described in GeneratorTests, which follows the algorithms as documented on each
/// type. The relative tolerance 1e−12 allows last-bit differences between C math libraries (log, exp,
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
                     [1.2908807623788685, 2.4422000191403743, 2.8248557799939116])
        assertPinned(WeibullDistribution(shape: 1.5, scale: 2),
                     [1.4937138837180157, 2.284883976761661, 2.5177205155181874])
        assertPinned(NormalDistribution(mean: 10, standardDeviation: 2),
                     [10.444883308480103, 6.980380776847986, 11.212678248058287])
        assertPinned(LogNormalDistribution(mu: 0.3, sigma: 0.5),
                     [1.5086584724817695, 0.6345083665973451, 1.8279032812189844])
        assertPinned(GammaDistribution(shape: 0.3, rate: 2),
                     [0.03379376801437451, 0.2151703721729045, 0.09626685882247547])
        assertPinned(GammaDistribution(shape: 2.5, rate: 2),
                     [1.2554311439106316, 0.7632960729748894, 0.598490207651088])
        assertPinned(BetaDistribution(a: 0.5, b: 0.5),
                     [0.22785491379539713, 0.04640768125851093, 0.425272678482896])
        assertPinned(BetaDistribution(a: 2, b: 5),
                     [0.34796594417011617, 0.09306724175117856, 0.23097882921144258])
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
