/// Text from outside shown safely in messages: a short, printable excerpt of bytes read from a file
/// (a log may hold binary data), or any text kept to one line; a terminal must never receive control
/// bytes it would obey.
public enum Excerpt {
    /// At most `limit` characters of `bytes` between `mark`s (single quotes unless told). Printable text is
    /// kept as it is; control characters, invisible format characters (such as bidirectional overrides) and
    /// bytes that are not UTF-8 are written as `\xNN` or `\u{NNNN}`; a longer text ends in `…`.
    public static func quoted<C: Collection>(_ bytes: C, limit: Int = 40, mark: String = "'") -> String
    where C.Element == UInt8 {
        // Only what can be shown is looked at: a value of any length costs the same.
        let input = Array(bytes.prefix(4 * limit + 4))
        var out = ""
        var shown = 0
        var i = 0
        while i < input.count {
            guard shown < limit else { return mark + out + "…" + mark }
            let (scalar, length) = decode(input, at: i)
            if let scalar, isPrintable(scalar) {
                out.unicodeScalars.append(scalar)
            } else if let scalar, scalar.value >= 0x80 {
                out += "\\u{" + hex(scalar.value, width: 4) + "}"
            } else {
                out += "\\x" + hex(UInt32(input[i]), width: 2)
            }
            i += length
            shown += 1
        }
        return mark + out + mark
    }

    public static func quoted(_ text: String, limit: Int = 40, mark: String = "'") -> String {
        quoted(text.utf8, limit: limit, mark: mark)
    }

    /// `text` kept to one line: line breaks and tabs written `\n`, `\r` and `\t`, and every other scalar
    /// that `escapes` picks written `\u{…}` in hexadecimal, upper case when `uppercaseHex`. Text with
    /// nothing to escape comes back as it is.
    public static func oneLine(
        _ text: String, uppercaseHex: Bool, escaping escapes: (Unicode.Scalar) -> Bool
    ) -> String {
        func named(_ scalar: Unicode.Scalar) -> String? {
            switch scalar {
            case "\n": return "\\n"
            case "\r": return "\\r"
            case "\t": return "\\t"
            default: return nil
            }
        }
        guard text.unicodeScalars.contains(where: { named($0) != nil || escapes($0) }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if let name = named(scalar) {
                out += name
            } else if escapes(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: uppercaseHex) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The longest excerpt of a value quoted in a message, in characters.
    public static let messageLimit = 80

    /// `text` cut to its first `limit` Unicode scalars and `…` when it is longer, for messages that escape
    /// what they show themselves (see `oneLine`): a key or value of any length costs one short quote.
    /// Scalars, not characters, are counted, so that a character built of a million combining marks is cut too.
    public static func shortened(_ text: String, limit: Int = messageLimit) -> String {
        let scalars = text.unicodeScalars
        guard let end = scalars.index(scalars.startIndex, offsetBy: limit, limitedBy: scalars.endIndex),
              end < scalars.endIndex
        else { return text }
        return String(scalars[..<end]) + "…"
    }

    /// A name read from a file (a header field): as it is when it is short and printable, else quoted.
    public static func name(_ text: String, limit: Int = 40) -> String {
        let q = quoted(text, limit: limit)
        return q == "'" + text + "'" && !text.isEmpty ? text : q
    }

    private static func isPrintable(_ s: Unicode.Scalar) -> Bool {
        if s.value < 0x80 { return s.value >= 0x20 && s.value != 0x7F }
        switch s.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator: return false
        default: return true
        }
    }

    /// The scalar starting at `i` and its length in bytes, or nil and 1 for a byte that starts no valid scalar.
    private static func decode(_ b: [UInt8], at i: Int) -> (Unicode.Scalar?, Int) {
        let lead = b[i]
        let length: Int, initial: UInt32
        switch lead {
        case 0x00...0x7F: return (Unicode.Scalar(lead), 1)
        case 0xC2...0xDF: length = 2; initial = UInt32(lead & 0x1F)
        case 0xE0...0xEF: length = 3; initial = UInt32(lead & 0x0F)
        case 0xF0...0xF4: length = 4; initial = UInt32(lead & 0x07)
        default: return (nil, 1)
        }
        guard i + length <= b.count else { return (nil, 1) }
        var value = initial
        for k in 1..<length {
            let c = b[i + k]
            guard c & 0xC0 == 0x80 else { return (nil, 1) }
            value = value << 6 | UInt32(c & 0x3F)
        }
        // Overlong forms and values outside Unicode are not UTF-8.
        let minimum: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return (nil, 1) }
        return (scalar, length)
    }

    private static func hex(_ v: UInt32, width: Int) -> String {
        let digits = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
