import XCTest
import Randomness

final class UniformDrawTests: XCTestCase {
    func testUnitConversionEdges() {
        var zeros = ScriptedGenerator([0, 0])
        XCTAssertEqual(zeros.nextUnit(), 0)
        XCTAssertEqual(zeros.nextOpenUnit(), 0x1.0p-53, "smallest open uniform is 2^-53, not 0")

        var ones = ScriptedGenerator([.max, .max])
        XCTAssertEqual(ones.nextUnit(), 1 - 0x1.0p-53, "largest unit uniform is 1 - 2^-53")
        XCTAssertEqual(ones.nextOpenUnit(), 1 - 0x1.0p-53, "largest open uniform stays below 1")

        // The open uniform is symmetric: k and its bitwise complement map to u and 1 − u.
        var pair = ScriptedGenerator([0x1234_5678_9ABC_DEF0, ~0x1234_5678_9ABC_DEF0])
        let u = pair.nextOpenUnit()
        let v = pair.nextOpenUnit()
        XCTAssertEqual(u + v, 1)
    }

    func testUnitConversionsMatchReference() {
        // Python reference (see GeneratorTests): (x >> 11)·2^−53 and ((x >> 12) + 0.5)·2^−52.
        var a = Xoshiro256(seed: 7)
        XCTAssertEqual(a.nextUnit(), 0.05536043647833311)
        XCTAssertEqual(a.nextUnit(), 0.17211585444811772)
        XCTAssertEqual(a.nextUnit(), 0.7175761283586594)
        var b = Xoshiro256(seed: 7)
        XCTAssertEqual(b.nextOpenUnit(), 0.05536043647833322)
        XCTAssertEqual(b.nextOpenUnit(), 0.17211585444811772)
        XCTAssertEqual(b.nextOpenUnit(), 0.7175761283586594)
    }

    func testNextIndexMatchesReference() {
        var generator = Xoshiro256(seed: 7)
        XCTAssertEqual((0..<8).map { _ in generator.nextIndex(below: 10) }, [0, 1, 7, 4, 9, 4, 7, 3])
        var large = Xoshiro256(seed: 7)
        XCTAssertEqual(
            (0..<3).map { _ in large.nextIndex(below: 6_917_529_027_641_081_856) },
            [382_957_426_321_749_622, 1_190_616_419_262_102_343, 4_963_853_697_463_329_066])
    }

    /// For n = 3, 2^64 mod 3 = 1: the output 0 gives a product with low word 0 < 1 and must be
    /// rejected; the next output, 2^64 − 1, gives high word 2.
    func testNextIndexRejectsTheBiasedZone() {
        var scripted = ScriptedGenerator([0, .max])
        XCTAssertEqual(scripted.nextIndex(below: 3), 2)
        XCTAssertEqual(scripted.position, 2, "the first output must have been rejected")

        var one = ScriptedGenerator([0, .max, 12345])
        XCTAssertEqual(one.nextIndex(below: 1), 0)
        XCTAssertEqual(one.nextIndex(below: 1), 0)
        XCTAssertEqual(one.nextIndex(below: 1), 0)
    }

    /// Pearson χ² over all cells plus a per-cell binomial bound. The χ² p-value uses
    /// Q((k−1)/2, χ²/2), checked independently in SpecialFunctionTests; reject below 0.001.
    func testNextIndexIsUniformOverSmallAndMediumBounds() {
        for (bound, n) in [(7, 140_000), (1000, 200_000)] {
            var generator = Xoshiro256(seed: UInt64(bound))
            var counts = [Int](repeating: 0, count: bound)
            for _ in 0..<n {
                let index = generator.nextIndex(below: bound)
                XCTAssertTrue((0..<bound).contains(index))
                counts[index] += 1
            }
            let expected = Double(n) / Double(bound)
            let chiSquare = counts.reduce(0.0) { sum, count in
                let deviation = Double(count) - expected
                return sum + deviation * deviation / expected
            }
            let pValue = regularizedGammaQ(a: Double(bound - 1) / 2, x: chiSquare / 2)
            XCTAssertGreaterThan(pValue, 0.001, "bound \(bound): chi-square \(chiSquare)")
            let tolerance = StatisticalChecks.binomialTolerance(n: n, p: 1 / Double(bound))
            for (cell, count) in counts.enumerated() {
                XCTAssertEqual(Double(count), expected, accuracy: tolerance, "bound \(bound), cell \(cell)")
            }
        }
    }

    /// n = 3·2^61 makes the usual shortcuts visibly biased: `next() % n` puts half of the mass in the
    /// lowest third, and multiply-shift without rejection gives residue 2 (mod 3) probability 1/4.
    /// Both statistics must match 1/3 within binomial tolerance.
    func testNextIndexIsUnbiasedForHugeBound() {
        let bound = 6_917_529_027_641_081_856  // 3 · 2^61
        let third = bound / 3
        let n = 100_000
        var generator = Xoshiro256(seed: 3)
        var thirds = [0, 0, 0]
        var residues = [0, 0, 0]
        for _ in 0..<n {
            let index = generator.nextIndex(below: bound)
            XCTAssertTrue(index >= 0 && index < bound)
            thirds[index / third] += 1
            residues[index % 3] += 1
        }
        let tolerance = StatisticalChecks.binomialTolerance(n: n, p: 1.0 / 3)
        for cell in 0..<3 {
            XCTAssertEqual(Double(thirds[cell]), Double(n) / 3, accuracy: tolerance, "third \(cell)")
            XCTAssertEqual(Double(residues[cell]), Double(n) / 3, accuracy: tolerance, "residue \(cell)")
        }
    }
}
