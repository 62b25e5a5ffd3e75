import Rendering
import XCTest

/// Number text in exports: the shortest digits that read back, without an exponent.
final class NumberTextTests: XCTestCase {
    /// The layout worked out on Characters, the plain way: the reference the byte-level `plain` must
    /// match digit for digit.
    static func reference(_ value: Double) -> String? {
        guard value.isFinite else { return nil }
        if value == 0 { return "0" }
        var text = Substring(value.description)
        let negative = text.first == "-"
        if negative { text = text.dropFirst() }
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = text[..<e]
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        var digits = Array(parts[0] + (parts.count > 1 ? parts[1] : ""))
        var point = parts[0].count + exponent
        if point <= 0 {
            digits.insert(contentsOf: repeatElement("0", count: 1 - point), at: 0)
            point = 1
        }
        if point > digits.count { digits.append(contentsOf: repeatElement("0", count: point - digits.count)) }
        var whole = Substring(String(digits[..<point]))
        while whole.count > 1, whole.first == "0" { whole = whole.dropFirst() }
        var fraction = Substring(String(digits[point...]))
        while fraction.last == "0" { fraction = fraction.dropLast() }
        return (negative ? "-" : "") + whole + (fraction.isEmpty ? "" : "." + fraction)
    }

    func testKnownValues() {
        let cases: [(Double, String)] = [
            (0, "0"), (-0.0, "0"), (1, "1"), (-1, "-1"), (0.1, "0.1"), (-2.5, "-2.5"), (123.456, "123.456"),
            (1e-5, "0.00001"), (1.5e-7, "0.00000015"), (-3.25e-10, "-0.000000000325"), (1e16, "10000000000000000"),
            (1.25e20, "125000000000000000000"), (100, "100"), (0.001, "0.001"), (1234567.875, "1234567.875"),
        ]
        for (value, text) in cases {
            XCTAssertEqual(NumberText.plain(value), text, "\(value)")
        }
        XCTAssertNil(NumberText.plain(.nan))
        XCTAssertNil(NumberText.plain(.infinity))
        XCTAssertNil(NumberText.plain(-.infinity))
        XCTAssertEqual(NumberText.real(7), "7.0")
        XCTAssertEqual(NumberText.real(-0.5), "-0.5")
        XCTAssertEqual(NumberText.real(1e20), "100000000000000000000.0")
        XCTAssertNil(NumberText.real(.nan))
        // The extremes: 5e-324 has 323 zeros after the point; the largest double 309 digits.
        XCTAssertEqual(NumberText.plain(.leastNonzeroMagnitude), "0." + String(repeating: "0", count: 323) + "5")
        XCTAssertEqual(NumberText.plain(.greatestFiniteMagnitude)?.count, 309)
    }

    /// Every kind of double, from random bit patterns and from scales across the range: the text reads
    /// back as the same double, has no exponent, and is the reference layout exactly.
    func testEveryDoubleReadsBackAndMatchesTheReference() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var values: [Double] = []
        for _ in 0..<20_000 { values.append(Double(bitPattern: next())) }
        for e in -320...308 {
            let scale = 10.0.squareRoot()  // seventeen significant digits at every scale
            values.append(scale * (Double("1e\(e)") ?? 1))
            values.append(Double("1e\(e)") ?? 1)
            values.append(-(Double("7.5e\(e)") ?? 1))
        }
        for k in 0..<2_000 { values.append(Double(k) / 64 - 10) }
        var checked = 0
        for value in values where value.isFinite {
            guard let text = NumberText.plain(value) else {
                XCTFail("\(value) has no text")
                continue
            }
            XCTAssertEqual(Double(text), value == 0 ? 0 : value, text)
            XCTAssertFalse(text.contains("e") || text.contains("E"), text)
            XCTAssertEqual(text, Self.reference(value), "\(value)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 20_000)
    }
}
