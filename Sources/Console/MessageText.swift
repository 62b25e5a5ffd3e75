/// Text from outside the program (an argument, a path, a name read from a file) made safe to show in
/// a message on a terminal.
public enum MessageText {
    /// The longest text from outside quoted in a message, in Unicode scalars.
    public static let quoteLimit = 80
    /// The longest line of a message; past it the line is cut, saying how much was left out.
    public static let lineLimit = 4_000

    /// `text` on one line: line breaks and tabs written `\n`, `\r`, `\t`, and every other control or
    /// format character (an escape sequence's ESC, a bidirectional mark) written `\u{…}`; cut to
    /// `limit` scalars with `…`.
    public static func oneLine(_ text: String, limit: Int = quoteLimit) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                out += "…"
                break
            }
            out += escaped(scalar, keepingLineBreaks: false)
            count += 1
        }
        return out
    }

    /// A whole message made safe for a terminal: its line breaks kept, every other control or format
    /// character escaped as `oneLine` escapes it, and each line cut at `lineLimit` scalars.
    public static func safe(_ message: String) -> String {
        guard message.unicodeScalars.contains(where: { $0 != "\n" && needsEscape($0) })
                || message.unicodeScalars.count > lineLimit else { return message }
        return message.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var out = ""
            var count = 0
            for scalar in line.unicodeScalars {
                if count == lineLimit {
                    out += "… (\(line.unicodeScalars.count - lineLimit) more characters)"
                    break
                }
                out += escaped(scalar, keepingLineBreaks: true)
                count += 1
            }
            return out
        }.joined(separator: "\n")
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x20 || scalar.value == 0x7F { return true }
        if scalar.value < 0x80 { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    private static func escaped(_ scalar: Unicode.Scalar, keepingLineBreaks: Bool) -> String {
        switch scalar {
        case "\n": return keepingLineBreaks ? "\n" : "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        default:
            return needsEscape(scalar) ? "\\u{" + String(scalar.value, radix: 16) + "}" : String(scalar)
        }
    }
}
