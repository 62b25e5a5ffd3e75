import Foundation
import Simulation
import XCTest

final class JSONTests: XCTestCase {
    func testValues() throws {
        let v = try JSON.parse(#" {"a": [1, -2.5e2, true, false, null], "b": "x\"\\\/\n\u00e9\ud83d\ude00"} "#)
        XCTAssertEqual(
            v,
            .object([
                ("a", .array([.number(1), .number(-250), .bool(true), .bool(false), .null])),
                ("b", .string("x\"\\/\né😀")),
            ]))
    }

    func testKeyOrderIsKept() throws {
        guard case let .object(members) = try JSON.parse(#"{"z": 1, "a": 2, "m": 3}"#) else { return XCTFail() }
        XCTAssertEqual(members.map(\.key), ["z", "a", "m"])
    }

    /// Zeros written any way read as zero; a number too small for a double is refused (above).
    func testZerosReadAsZero() throws {
        for text in ["[0]", "[-0.0]", "[0e-999]", "[0.000e5]"] {
            XCTAssertEqual(try JSON.parse(text), .array([.number(0)]), text)
        }
    }

    func testErrorsSayWhere() {
        let cases: [(String, Int, Int, String)] = [
            ("{\n  \"a\": 1,\n}", 3, 1, "expected a quoted key"),
            ("[1 2]", 1, 4, "expected ',' or ']'"),
            ("{\"a\": NaN}", 1, 7, "unexpected character"),
            ("{\"a\": 1, \"a\": 2}", 1, 13, "duplicate key \"a\""),
            ("[01]", 1, 2, "leading zero in a number"),
            ("\"abc", 1, 5, "unterminated string"),
            ("[1] x", 1, 5, "unexpected text after the JSON value"),
            ("1e999", 1, 6, "number out of range"),
            ("[1e-400]", 1, 8, "number out of range (too close to zero)"),
            ("{\"a\": 1,\n", 2, 1, "unexpected end of text; expected a quoted key"),
            ("\"\\ud800\"", 1, 8, "unpaired surrogate in \\u escape"),
            ("", 1, 1, "unexpected end of text"),
        ]
        for (text, line, column, reason) in cases {
            XCTAssertThrowsError(try JSON.parse(text), text) { error in
                XCTAssertEqual(error as? JSONSyntaxError, JSONSyntaxError(line: line, column: column, reason: reason), text)
            }
        }
    }

    /// An object of many keys is read in time linear in its keys (each checked against the others
    /// for duplicates): 200,000 keys, 2.6 MB, took minutes when each key was compared with every key
    /// before it; well under a second now, so 20 s is a generous bound. A duplicate at the end of
    /// them is still found, and named.
    func testAnObjectOfManyKeysIsReadInLinearTime() throws {
        let n = 200_000
        let members = (0..<n).map { "\"key \($0)\": \($0)" }
        let text = "{" + members.joined(separator: ", ") + "}"
        let start = Date()
        guard case let .object(parsed) = try JSON.parse(text) else { return XCTFail("not an object") }
        XCTAssertLessThan(Date().timeIntervalSince(start), 20)
        XCTAssertEqual(parsed.count, n)
        XCTAssertEqual(parsed.last?.key, "key \(n - 1)")
        let duplicated = "{" + members.joined(separator: ", ") + ", \"key 17\": 0}"
        XCTAssertThrowsError(try JSON.parse(duplicated)) { error in
            XCTAssertEqual((error as? JSONSyntaxError)?.reason, "duplicate key \"key 17\"")
        }
    }

    func testDeepNestingIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        XCTAssertThrowsError(try JSON.parse(deep))
    }
}
