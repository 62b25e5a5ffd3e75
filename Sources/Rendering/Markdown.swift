/// GitHub-flavoured Markdown that shows arbitrary user text literally: no formatting, links, HTML or broken tables.
public enum Markdown {
    /// Column alignment in a table's delimiter row.
    public enum Alignment: Sendable {
        case none, left, center, right
    }

    /// Text safe inside a table cell: one line, no table breaks, no emphasis, links, code, math or HTML.
    public static func escapeCell(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let scalar = scalars[i]
            i += 1
            switch scalar {
            case "\r":
                if i < scalars.count, scalars[i] == "\n" { i += 1 }
                out += "<br>"
            case "\n", "\u{85}", "\u{2028}", "\u{2029}":
                out += "<br>"
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            // `$` starts GitHub math; the rest are CommonMark punctuation with inline meaning.
            case "\\", "|", "*", "_", "`", "[", "]", "#", "~", "!", "$":
                out.unicodeScalars.append("\\")
                out.unicodeScalars.append(scalar)
            case "\t":
                out += " "
            default:
                if isHidden(scalar) {
                    out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// Text safe as a heading or paragraph: `escapeCell` plus the markers that only matter at the start of a line.
    public static func escapeInline(_ text: String) -> String {
        // Leading blanks would turn a paragraph into a code block; Markdown drops a few of them anyway.
        let trimmed = String(text.unicodeScalars.drop { $0 == " " || $0 == "\t" })
        let escaped = escapeCell(trimmed)
        guard let first = escaped.unicodeScalars.first else { return escaped }
        if first == "-" || first == "+" || first == "=" {
            return "\\" + escaped
        }
        // "1. " and "1) " would start an ordered list.
        let digits = escaped.unicodeScalars.prefix { ("0"..."9").contains($0) }
        let rest = escaped.unicodeScalars.dropFirst(digits.count)
        if !digits.isEmpty, digits.count <= 9, let marker = rest.first, marker == "." || marker == ")" {
            return String(String.UnicodeScalarView(digits)) + "\\" + String(String.UnicodeScalarView(rest))
        }
        return escaped
    }

    /// A GFM table with LF line endings. Every header and body cell is escaped here, so pass raw text.
    /// Rows are padded or cut to the header's width; missing alignments mean `.none`.
    public static func table(header: [String], alignments: [Alignment] = [], rows: [[String]]) -> String {
        guard !header.isEmpty else { return "" }
        func line(_ cells: [String]) -> String {
            let padded = header.indices.map { $0 < cells.count ? escapeCell(cells[$0]) : "" }
            return "| " + padded.joined(separator: " | ") + " |\n"
        }
        let delimiters = header.indices.map { index -> String in
            switch index < alignments.count ? alignments[index] : .none {
            case .none: return "---"
            case .left: return ":---"
            case .center: return ":---:"
            case .right: return "---:"
            }
        }
        var out = line(header)
        out += "| " + delimiters.joined(separator: " | ") + " |\n"
        for row in rows { out += line(row) }
        return out
    }

    /// Control characters and bidirectional overrides, which would be invisible or reorder the text around them.
    public static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
