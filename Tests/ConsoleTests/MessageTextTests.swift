import Console
import XCTest

/// Text from outside the program shown in messages: escaped so that it cannot drive the terminal, on
/// one line when quoted, and never a line no one can read.
final class MessageTextTests: XCTestCase {
    func testOneLineEscapesControlAndFormatCharacters() {
        XCTAssertEqual(MessageText.oneLine("plain text, é, 漢字"), "plain text, é, 漢字")
        XCTAssertEqual(MessageText.oneLine("a\nb\rc\td"), "a\\nb\\rc\\td")
        XCTAssertEqual(MessageText.oneLine("\u{1B}[31mred\u{7F}"), "\\u{1b}[31mred\\u{7f}")
        // C1 controls, bidirectional overrides and isolates, line and paragraph separators.
        XCTAssertEqual(MessageText.oneLine("\u{85}\u{202E}x\u{2066}\u{2028}\u{2029}"), "\\u{85}\\u{202e}x\\u{2066}\\u{2028}\\u{2029}")
    }

    func testOneLineCutsLongText() {
        let long = String(repeating: "x", count: 100_000)
        XCTAssertEqual(MessageText.oneLine(long), String(repeating: "x", count: MessageText.quoteLimit) + "…")
        XCTAssertEqual(MessageText.oneLine(String(repeating: "y", count: MessageText.quoteLimit)),
                       String(repeating: "y", count: MessageText.quoteLimit))
        // Scalars are counted: a character of many combining marks is cut too.
        let marks = "e" + String(repeating: "\u{301}", count: 1_000)
        XCTAssertEqual(MessageText.oneLine(marks).unicodeScalars.count, MessageText.quoteLimit + 1)
    }

    func testSafeKeepsLineBreaksAndCutsLongLines() {
        XCTAssertEqual(MessageText.safe("two\nlines"), "two\nlines")
        XCTAssertEqual(MessageText.safe("a\u{1B}]0;title\u{7}\nb\r"), "a\\u{1b}]0;title\\u{7}\nb\\r")
        let line = String(repeating: "z", count: MessageText.lineLimit + 10)
        XCTAssertEqual(MessageText.safe("first\n" + line), "first\n" + String(repeating: "z", count: MessageText.lineLimit)
            + "… (10 more characters)")
    }
}
