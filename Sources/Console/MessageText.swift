import FilePaths

/// Text from outside the program (an argument, a path, a name read from a file) made safe to show in
/// a message on a terminal. The escaping is `Path.shown`'s, for any text.
public enum MessageText {
    /// The longest text from outside quoted in a message, in Unicode scalars.
    public static let quoteLimit = 80
    /// The longest line of a message; past it the line is cut, saying how much was left out.
    public static let lineLimit = 4_000

    /// `text` on one line: line breaks and tabs written `\n`, `\r`, `\t`, and every other control or
    /// format character (an escape sequence's ESC, a bidirectional mark) written `\u{…}`; cut to
    /// `limit` scalars with `…`.
    public static func oneLine(_ text: String, limit: Int = quoteLimit) -> String {
        Path.shown(text, limit: limit)
    }

    /// A whole message made safe for a terminal: its line breaks kept, every other control or format
    /// character escaped as `oneLine` escapes it, and each line cut at `lineLimit` scalars.
    public static func safe(_ message: String) -> String {
        guard message.unicodeScalars.contains(where: { $0 != "\n" && Path.needsEscape($0) })
                || message.unicodeScalars.count > lineLimit else { return message }
        return message.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let count = line.unicodeScalars.count
            guard count > lineLimit else { return Path.shown(String(line), limit: .max) }
            let kept = String(String.UnicodeScalarView(line.unicodeScalars.prefix(lineLimit)))
            return Path.shown(kept, limit: .max) + "… (\(count - lineLimit) more characters)"
        }.joined(separator: "\n")
    }
}
