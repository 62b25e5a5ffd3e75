/// How long the texts of a scenario may be. Labels, names and messages are copied into reports and
/// into stored rows, many times over, so an absurd one would make every output absurd.
///
/// Lengths are counted in Unicode scalars (code points): a count that stays proportional to the bytes,
/// which a count of characters (grapheme clusters) does not, since one character may hold any number
/// of combining marks.
public enum TextLimit: Int, Sendable {
    /// Labels, names, prefixes, app domains, cron rules: anything that names or selects.
    case name = 200
    /// The text of a notification.
    case message = 2_000
    /// A scenario's description: a few paragraphs, copied into every report and stored run.
    case description = 20_000

    /// The length of `text` in Unicode scalars when it is above the limit, nil when it is within it.
    /// Cheap for the texts that pass: the byte count bounds the scalar count from above, and counting
    /// stops past the limit; only a text refused is counted whole, for the message.
    func excess(_ text: String) -> Int? {
        if text.utf8.count <= rawValue { return nil }
        var count = 0
        for _ in text.unicodeScalars {
            count += 1
            if count > rawValue { break }
        }
        return count > rawValue ? text.unicodeScalars.count : nil
    }

    /// Why `text` is refused, or nil when it is within the limit.
    func refusal(_ text: String) -> String? {
        excess(text).map { "\(Self.grouped($0)) characters; at most \(Self.grouped(rawValue))" }
    }

    /// A count of days as the messages write it: "1 day", "90 days", "3,650 days".
    public static func days(_ n: Int) -> String { "\(grouped(n)) day\(n == 1 ? "" : "s")" }

    /// A whole number with thousands separators, as the messages write counts: 1,000,000.
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return n < 0 ? "-" + out : out
    }
}

extension JSONFieldReader {
    /// A string of at most `limit` characters, or nil with an issue naming the length and the limit.
    mutating func string(_ value: JSON, at path: String, limit: TextLimit) -> String? {
        guard let s = string(value, at: path) else { return nil }
        if !relaxed, let reason = limit.refusal(s) {
            fail(path, reason)
            return nil
        }
        return s
    }

    /// A name, label, prefix or rule: at most `TextLimit.name` characters.
    static func name(_ r: inout JSONFieldReader, _ j: JSON, _ p: String) -> String? { r.string(j, at: p, limit: .name) }

    /// A scenario's description: at most `TextLimit.description` characters.
    static func description(_ r: inout JSONFieldReader, _ j: JSON, _ p: String) -> String? {
        r.string(j, at: p, limit: .description)
    }

    /// The text of a notification: at most `TextLimit.message` characters.
    static func message(_ r: inout JSONFieldReader, _ j: JSON, _ p: String) -> String? {
        r.string(j, at: p, limit: .message)
    }
}
