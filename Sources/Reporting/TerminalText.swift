import Foundation
import RecordedData

/// Text for a terminal: user text made safe for one line, and rows laid out in columns.
public enum TerminalText {
    /// User text made safe for one terminal line: control characters shown escaped, long text cut.
    public static func printable(_ text: String, limit: Int = 48) -> String {
        let out = Excerpt.oneLine(text, uppercaseHex: false) {
            $0.properties.generalCategory == .control || $0.properties.generalCategory == .format
        }
        return out.count > limit ? String(out.prefix(limit - 1)) + "…" : out
    }

    /// `printable` text in double quotes, its own quotes and backslashes escaped (`\"`, `\\`), so that
    /// where it ends, and which `\n` was a line break, is never in doubt.
    public static func quoted(_ text: String, limit: Int = 48) -> String {
        var escaped = ""
        for c in text.unicodeScalars {
            if c == "\\" || c == "\"" { escaped.unicodeScalars.append("\\") }
            escaped.unicodeScalars.append(c)
        }
        return "\"" + printable(escaped, limit: limit) + "\""
    }

    /// Rows padded into columns; `indented` keeps the leading spaces an empty first column makes.
    public static func table(_ rows: [[String]], rightAligned: Set<Int>, indented: Bool = false) -> String {
        let widths = rows[0].indices.map { c in rows.map { $0[c].count }.max() ?? 0 }
        return rows.map { row in
            var line = Substring(row.indices.map { c in
                let pad = String(repeating: " ", count: widths[c] - row[c].count)
                return rightAligned.contains(c) ? pad + row[c] : row[c] + pad
            }.joined(separator: "  "))
            // Cells are printable text (`printable` escapes control characters), so the only
            // white space to trim is spaces.
            while line.last?.isWhitespace == true { line.removeLast() }
            if !indented { while line.first?.isWhitespace == true { line.removeFirst() } }
            return String(line)
        }.joined(separator: "\n") + "\n"
    }
}
