import Rendering
import ReminderSimTestSupport
import XCTest

final class CSVTests: XCTestCase {
    /// A field as `--csv-safe` writes it.
    private func field(_ field: CSVField) -> String {
        CSVTable.encode(field, neutralizeFormulas: true)
    }

    func testHeaderFirstAndEveryRecordEndsWithCRLF() {
        let table = CSVTable(header: ["name", "count", "rate"],
                             rows: [[.text("a"), .integer(3), .decimal(0.5)], [.text("b"), .null, .decimal(-1)]])
        XCTAssertEqual(table.encoded(), "name,count,rate\r\na,3,0.5\r\nb,,-1.0\r\n")
    }

    func testFieldsAreQuotedOnlyWhenNeeded() {
        XCTAssertEqual(field(.text("plain text")), "plain text")
        XCTAssertEqual(field(.text("")), "")
        XCTAssertEqual(field(.text("a,b")), "\"a,b\"")
        XCTAssertEqual(field(.text("say \"hi\"")), "\"say \"\"hi\"\"\"")
        XCTAssertEqual(field(.text("line\nbreak")), "\"line\nbreak\"")
        XCTAssertEqual(field(.text("line\r\nbreak")), "\"line\r\nbreak\"")
        XCTAssertEqual(field(.text("carriage\rreturn")), "\"carriage\rreturn\"")
        XCTAssertEqual(field(.text("\"")), "\"\"\"\"")
    }

    func testQuoteFollowedByCombiningMarkIsStillEscaped() {
        // The quote and the accent form one Character, which a Character-level check would miss.
        XCTAssertEqual(field(.text("a\"\u{301}b")), "\"a\"\"\u{301}b\"")
        XCTAssertEqual(try CSVTable.parse(field(.text("a\"\u{301}b")) + "\r\n"), [["a\"\u{301}b"]])
    }

    func testEmojiAndNonLatinTextPassThrough() {
        let text = "👩‍👩‍👧‍👦 Привет 日本 🇺🇦"
        XCTAssertEqual(field(.text(text)), text)
        XCTAssertEqual(try CSVTable.parse(CSVTable(header: [text], rows: [[.text(text + ",")]]).encoded()),
                       [[text], [text + ","]])
    }

    func testTenKilobyteFieldRoundTrips() throws {
        let big = String(repeating: "ab,\"c\"\r\nd 😀", count: 1024)
        XCTAssertGreaterThan(big.utf8.count, 10_000)
        let table = CSVTable(header: ["big", "after"], rows: [[.text(big), .integer(1)]])
        XCTAssertEqual(try CSVTable.parse(table.encoded()), [["big", "after"], [big, "1"]])
    }

    func testFormulaLeadersInTextArePrefixed() {
        XCTAssertEqual(field(.text("=HYPERLINK(\"x\")")), "\"'=HYPERLINK(\"\"x\"\")\"")
        // Signed numbers and harmless text keep their value, so they join with the database.
        XCTAssertEqual(field(.text("+1")), "+1")
        XCTAssertEqual(field(.text("-1")), "-1")
        XCTAssertEqual(field(.text("-2.5e3")), "-2.5e3")
        XCTAssertEqual(field(.text("-")), "-")
        XCTAssertEqual(field(.text("-3 days")), "'-3 days")
        XCTAssertEqual(field(.text("-2+3")), "'-2+3")
        XCTAssertEqual(field(.text("-2+3+cmd|' /C calc'!A0")), "'-2+3+cmd|' /C calc'!A0")
        XCTAssertEqual(field(.text("+SUM(A1:A2)")), "'+SUM(A1:A2)")
        XCTAssertEqual(CSVTable.encode(.text("=1"), neutralizeFormulas: false), "=1")
        XCTAssertEqual(CSVTable(header: ["=cmd"]).encoded(neutralizeFormulas: false), "=cmd\r\n")
        XCTAssertEqual(field(.text("@SUM(A1:A2)")), "'@SUM(A1:A2)")
        XCTAssertEqual(field(.text("\tcmd")), "'\tcmd")
        XCTAssertEqual(field(.text("\rcmd")), "\"'\rcmd\"")
        XCTAssertEqual(field(.text("=1,2")), "\"'=1,2\"")
        XCTAssertEqual(field(.text("a=b")), "a=b")
        XCTAssertEqual(CSVTable(header: ["=cmd"]).encoded(neutralizeFormulas: true), "'=cmd\r\n")
        // Tidy CSV by default: every text as it is.
        XCTAssertEqual(CSVTable(header: ["=cmd"]).encoded(), "=cmd\r\n")
        XCTAssertEqual(CSVTable.encode(.text("+2d (new)")), "+2d (new)")
    }

    func testNumbersAreNeverPrefixed() {
        XCTAssertEqual(field(.integer(-3)), "-3")
        XCTAssertEqual(field(.integer(Int64.min)), "-9223372036854775808")
        XCTAssertEqual(field(.decimal(-1.5)), "-1.5")
    }

    /// Shortest digits without an exponent; a whole number keeps `.0`, so a REAL column reads back
    /// as real numbers, as the database holds it.
    func testDecimalsArePlainAndShortest() {
        let cases: [(Double, String)] = [
            (0.1, "0.1"), (1e-7, "0.0000001"), (12345678.5, "12345678.5"),
            (1e21, "1000000000000000000000.0"), (-0.0, "0.0"), (0, "0.0"), (1, "1.0"), (-2.5, "-2.5"),
            (100, "100.0"), (1e16, "10000000000000000.0"), (1e-5, "0.00001"), (0.30000000000000004, "0.30000000000000004"),
            (123456.789e3, "123456789.0"), (-1.25e-10, "-0.000000000125"), (Double.leastNonzeroMagnitude, "0." + String(repeating: "0", count: 323) + "5"),
        ]
        for (value, expected) in cases {
            XCTAssertEqual(field(.decimal(value)), expected, "\(value)")
        }
    }

    func testNonFiniteDecimalsAndNullAreEmpty() {
        XCTAssertEqual(field(.decimal(.nan)), "")
        XCTAssertEqual(field(.decimal(.infinity)), "")
        XCTAssertEqual(field(.decimal(-.infinity)), "")
        XCTAssertEqual(field(.null), "")
    }

    func testDecimalsReadBackExactlyForRandomBitPatterns() {
        var random = TestRandom(seed: 7)
        var checked = 0
        while checked < 3000 {
            let value = Double(bitPattern: random.next())
            guard value.isFinite else { continue }
            let text = field(.decimal(value))
            XCTAssertFalse(text.contains("e") || text.contains("E"), text)
            XCTAssertEqual(Double(text), value == 0 ? 0 : value, text)
            checked += 1
        }
    }

    func testParseAcceptsLFCRLFAndMissingFinalLineBreak() throws {
        XCTAssertEqual(try CSVTable.parse("a,b\nc,d"), [["a", "b"], ["c", "d"]])
        XCTAssertEqual(try CSVTable.parse("a,b\r\nc,d\r\n"), [["a", "b"], ["c", "d"]])
        XCTAssertEqual(try CSVTable.parse("a\r\n\r\nb\r\n"), [["a"], [""], ["b"]])
        XCTAssertEqual(try CSVTable.parse(",\r\n"), [["", ""]])
        XCTAssertEqual(try CSVTable.parse("\"\"\r\n"), [[""]])
        XCTAssertEqual(try CSVTable.parse(""), [])
    }

    func testParseRejectsMalformedQuoting() {
        XCTAssertThrowsError(try CSVTable.parse("a,\"open\r\n")) {
            XCTAssertEqual($0 as? CSVParseError, .unterminatedQuote(record: 1))
        }
        XCTAssertThrowsError(try CSVTable.parse("h\r\nab\"c\r\n")) {
            XCTAssertEqual($0 as? CSVParseError, .quoteInsideUnquotedField(record: 2))
        }
        XCTAssertThrowsError(try CSVTable.parse("\"a\"b\r\n")) {
            XCTAssertEqual($0 as? CSVParseError, .textAfterClosingQuote(record: 1))
        }
    }

    func testSingleColumnTableWithNullRowsRoundTrips() throws {
        let table = CSVTable(header: ["only"], rows: [[.null], [.integer(1)], [.null]])
        XCTAssertEqual(try CSVTable.parse(table.encoded()), [["only"], [""], ["1"], [""]])
    }

    func testRandomTablesRoundTrip() throws {
        var random = TestRandom(seed: 2024)
        let pieces = ["a", "Z", " ", ",", "\"", "\r", "\n", "\r\n", "=", "+", "-", "@", "\t", "'", "é", "😀", "👩‍💻", "日"]
        for _ in 0..<200 {
            // Half the tables as --csv-safe writes them, half as written by default.
            let safe = random.next() % 2 == 0
            let columns = Int(random.next() % 6) + 1
            let header = (0..<columns).map { "col\($0)" }
            var rows: [[CSVField]] = []
            var expected: [[String]] = [header]
            for _ in 0..<Int(random.next() % 8) {
                var row: [CSVField] = []
                var texts: [String] = []
                for _ in 0..<columns {
                    switch random.next() % 4 {
                    case 0:
                        let text = (0..<Int(random.next() % 12)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
                        row.append(.text(text))
                        let leader = CSVTable.readsAsFormula(text)
                        texts.append(leader && safe ? "'" + text : text)
                    case 1:
                        let value = Int64(bitPattern: random.next()) >> Int64(random.next() % 64)
                        row.append(.integer(value))
                        texts.append(String(value))
                    case 2:
                        let value = Double(Int64(bitPattern: random.next()) >> 20) / 1e6
                        row.append(.decimal(value))
                        texts.append(CSVTable.encode(.decimal(value)))
                        XCTAssertEqual(Double(texts.last!), value)
                    default:
                        row.append(.null)
                        texts.append("")
                    }
                }
                rows.append(row)
                expected.append(texts)
            }
            let encoded = CSVTable(header: header, rows: rows).encoded(neutralizeFormulas: safe)
            XCTAssertEqual(try CSVTable.parse(encoded), expected)
        }
    }
}

