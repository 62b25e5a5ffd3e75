import Rendering
import ReminderSimTestSupport
import XCTest

final class MarkdownTests: XCTestCase {
    private let hostile = [
        "'); DROP TABLE runs; --", "a|b", "||", "**bold**", "__under__", "<script>alert(1)</script>",
        "[x](javascript:alert(1))", "![img](http://x/y.png)", "line1\nline2", "a\r\nb\rc", "`code`", "~~strike~~",
        "# heading", "$x^2$", "back\\slash|", "&lt;already&gt;", "emoji 😀👩‍💻", "\u{1B}[31mred\u{7}", "\u{202E}evil",
        "<img src=x onerror=alert(1)>", "\\|", "\\\\|",
    ]

    /// A pipe splits a table cell unless an odd number of backslashes precedes it.
    private func hasUnescapedPipe(_ text: String) -> Bool {
        var backslashes = 0
        for scalar in text.unicodeScalars {
            if scalar == "|", backslashes % 2 == 0 { return true }
            backslashes = scalar == "\\" ? backslashes + 1 : 0
        }
        return false
    }

    private func assertSafe(_ escaped: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(hasUnescapedPipe(escaped), escaped, file: file, line: line)
        let withoutBreaks = escaped.replacingOccurrences(of: "<br>", with: "")
        XCTAssertFalse(withoutBreaks.contains("<") || withoutBreaks.contains(">"), escaped, file: file, line: line)
        XCTAssertFalse(escaped.unicodeScalars.contains { $0 == "\n" || $0 == "\r" || $0.value < 0x20 || $0 == "\u{202E}" },
                       escaped, file: file, line: line)
    }

    func testHostileTextIsSafeInCellsAndInline() {
        for text in hostile {
            assertSafe(Markdown.escapeCell(text))
            assertSafe(Markdown.escapeInline(text))
        }
    }

    func testSpecificEscapes() {
        XCTAssertEqual(Markdown.escapeCell("a|b"), "a\\|b")
        XCTAssertEqual(Markdown.escapeCell("**bold**"), "\\*\\*bold\\*\\*")
        XCTAssertEqual(Markdown.escapeCell("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;")
        XCTAssertEqual(Markdown.escapeCell("[x](javascript:alert(1))"), "\\[x\\](javascript:alert(1))")
        XCTAssertEqual(Markdown.escapeCell("'); DROP TABLE runs; --"), "'); DROP TABLE runs; --")
        XCTAssertEqual(Markdown.escapeCell("a\r\nb\rc\nd"), "a<br>b<br>c<br>d")
        XCTAssertEqual(Markdown.escapeCell("x & y"), "x &amp; y")
        XCTAssertEqual(Markdown.escapeCell("back\\slash"), "back\\\\slash")
        XCTAssertEqual(Markdown.escapeCell("`a` _b_ ~c~ #d !e $f$"), "\\`a\\` \\_b\\_ \\~c\\~ \\#d \\!e \\$f\\$")
        XCTAssertEqual(Markdown.escapeCell("emoji 😀👩‍💻"), "emoji 😀👩‍💻")
        XCTAssertEqual(Markdown.escapeCell("\u{1B}[0m\tx"), "\\u{1B}\\[0m x")
        XCTAssertEqual(Markdown.escapeCell("\u{202E}abc"), "\\u{202E}abc")
    }

    func testInlineEscapesLineStartMarkers() {
        XCTAssertEqual(Markdown.escapeInline("# Title"), "\\# Title")
        XCTAssertEqual(Markdown.escapeInline("- item"), "\\- item")
        XCTAssertEqual(Markdown.escapeInline("+ item"), "\\+ item")
        XCTAssertEqual(Markdown.escapeInline("=== "), "\\=== ")
        XCTAssertEqual(Markdown.escapeInline("12. twelve"), "12\\. twelve")
        XCTAssertEqual(Markdown.escapeInline("3) three"), "3\\) three")
        XCTAssertEqual(Markdown.escapeInline("    code?"), "code?")
        XCTAssertEqual(Markdown.escapeInline("> quote"), "&gt; quote")
        XCTAssertEqual(Markdown.escapeInline("2024 results"), "2024 results")
        XCTAssertEqual(Markdown.escapeInline(""), "")
    }

    func testTenKilobyteStringsStaySafe() {
        let big = String(repeating: "|<a>*\n\r\n_`[]\\😀", count: 800)
        XCTAssertGreaterThan(big.utf8.count, 10_000)
        assertSafe(Markdown.escapeCell(big))
        assertSafe(Markdown.escapeInline(big))
    }

    func testTableEscapesCellsAndKeepsColumnCount() {
        let table = Markdown.table(header: ["Name", "Rate", "Note"], alignments: [.left, .right],
                                   rows: [["a|b", "12%"], ["<b>x</b>", "1", "line\nbreak", "extra"]])
        XCTAssertEqual(table, """
            | Name | Rate | Note |
            | :--- | ---: | --- |
            | a\\|b | 12% |  |
            | &lt;b&gt;x&lt;/b&gt; | 1 | line<br>break |

            """)
        for line in table.split(separator: "\n") {
            var backslashes = 0
            var pipes = 0
            for scalar in line.unicodeScalars {
                if scalar == "|", backslashes % 2 == 0 { pipes += 1 }
                backslashes = scalar == "\\" ? backslashes + 1 : 0
            }
            XCTAssertEqual(pipes, 4, String(line))
        }
    }

    func testTableAlignmentsAndEmptyHeader() {
        XCTAssertEqual(Markdown.table(header: ["a", "b", "c", "d"], alignments: [.none, .left, .center, .right], rows: []),
                       "| a | b | c | d |\n| --- | :--- | :---: | ---: |\n")
        XCTAssertEqual(Markdown.table(header: [], rows: [["x"]]), "")
    }
}
