import XCTest
import Randomness

/// `TableExp` against the C library's `exp`: within a few units in the last place everywhere,
/// exact at the table's nodes, and the C library's answer outside |x| < 700.
final class TableExpTests: XCTestCase {
    private let table = TableExp.shared

    func testAgreesWithTheCLibraryAcrossTheRange() {
        var g = Xoshiro256(seed: 91)
        var worst = 0.0
        for _ in 0..<200_000 {
            let x = (g.nextUnit() * 2 - 1) * 699.9
            worst = max(worst, abs(table.exp(x) - exp(x)) / exp(x))
        }
        for _ in 0..<200_000 {
            // The range session lengths and gaps use, densely.
            let x = (g.nextUnit() * 2 - 1) * 30
            worst = max(worst, abs(table.exp(x) - exp(x)) / exp(x))
        }
        // Two units in the last place of a double (2^-52 relative).
        XCTAssertLessThan(worst, 2 * 0x1.0p-52, "worst relative error \(worst)")
    }

    func testExactWhereTheAnswerIsExact() {
        XCTAssertEqual(table.exp(0), 1)
        XCTAssertEqual(table.exp(-0.0), 1)
        XCTAssertEqual(table.exp(log(2.0) * 10), 1024, accuracy: 1024 * 0x1.0p-52)
        XCTAssertEqual(table.exp(1), M_E, accuracy: M_E * 0x1.0p-52)
    }

    func testOutsideTheTableRangeTheCLibraryAnswers() {
        XCTAssertEqual(table.exp(710), .infinity)
        XCTAssertEqual(table.exp(-800), 0)
        XCTAssertEqual(table.exp(705), exp(705))
        XCTAssertTrue(table.exp(.nan).isNaN)
        XCTAssertEqual(table.exp(-.infinity), 0)
    }
}
