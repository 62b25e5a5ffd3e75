import XCTest
import Randomness

final class DiscreteSamplerTests: XCTestCase {
    func testBernoulliFrequency() {
        let n = 200_000
        for (index, p) in [0.3, 0.001, 0.97].enumerated() {
            let distribution = BernoulliDistribution(probability: p)
            XCTAssertEqual(distribution.mean, p)
            XCTAssertEqual(distribution.variance, p * (1 - p), accuracy: 1e-15)
            var generator = Xoshiro256(seed: 1100 + UInt64(index))
            var hits = 0
            for _ in 0..<n where distribution.sample(&generator) {
                hits += 1
            }
            XCTAssertEqual(Double(hits), Double(n) * p,
                           accuracy: StatisticalChecks.binomialTolerance(n: n, p: p), "p = \(p)")
        }
    }

    func testBernoulliExtremes() {
        // The extreme generator outputs give the extreme uniforms 0 and 1 − 2^−53.
        let never = BernoulliDistribution(probability: 0)
        let always = BernoulliDistribution(probability: 1)
        var low = ScriptedGenerator([0, 0])
        XCTAssertFalse(never.sample(&low))
        XCTAssertTrue(always.sample(&low))
        var high = ScriptedGenerator([.max, .max])
        XCTAssertFalse(never.sample(&high))
        XCTAssertTrue(always.sample(&high))
    }

    func testWeightedChoiceFrequenciesAndZeroWeights() {
        let weights = [0, 3, 0, 1, 6, 0, 0.5, 0]
        let choice = WeightedChoice(weights: weights)
        let total = weights.reduce(0, +)
        XCTAssertEqual(choice.count, weights.count)
        XCTAssertEqual(choice.totalWeight, total)

        let n = 200_000
        var generator = Xoshiro256(seed: 1200)
        var counts = [Int](repeating: 0, count: weights.count)
        for _ in 0..<n {
            counts[choice.sample(&generator)] += 1
        }
        for (index, weight) in weights.enumerated() {
            let p = weight / total
            XCTAssertEqual(choice.probability(of: index), p, accuracy: 1e-15)
            if weight == 0 {
                XCTAssertEqual(counts[index], 0, "zero-weight index \(index) was chosen")
            } else {
                XCTAssertEqual(Double(counts[index]), Double(n) * p,
                               accuracy: StatisticalChecks.binomialTolerance(n: n, p: p), "index \(index)")
            }
        }
    }

    /// The largest uniform must still land on the last positive weight, never on trailing zeros or
    /// past the end; the smallest must skip leading zeros.
    func testWeightedChoiceBoundaryUniforms() {
        let choice = WeightedChoice(weights: [0, 0, 2, 0, 1, 0, 0])
        var low = ScriptedGenerator([0])
        XCTAssertEqual(choice.sample(&low), 2)
        var high = ScriptedGenerator([.max])
        XCTAssertEqual(choice.sample(&high), 4)

        // A total that is not a power of two, so u·W is rounded.
        let uneven = WeightedChoice(weights: [0.1, 0.7, 0.3, 0])
        var top = ScriptedGenerator([.max])
        XCTAssertEqual(uneven.sample(&top), 2)

        let single = WeightedChoice(weights: [5])
        var any = Xoshiro256(seed: 1)
        for _ in 0..<100 {
            XCTAssertEqual(single.sample(&any), 0)
        }
    }
}
