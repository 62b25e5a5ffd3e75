/// Locale-independent number text, so exported files are byte-identical everywhere.
public enum NumberText {
    /// The shortest digits that read back as `value`, laid out without an exponent; nil for NaN and infinities.
    public static func plain(_ value: Double) -> String? {
        guard value.isFinite else { return nil }
        if value == 0 { return "0" }
        // Swift's description already holds the shortest round-tripping digits; only their layout changes here.
        var text = Substring(value.description)
        let negative = text.first == "-"
        if negative { text = text.dropFirst() }
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = text[..<e]
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let integerPart = parts[0]
        let fractionPart = parts.count > 1 ? parts[1] : ""
        var digits = Array(integerPart + fractionPart)
        var point = integerPart.count + exponent
        if point <= 0 {
            digits.insert(contentsOf: repeatElement("0", count: 1 - point), at: 0)
            point = 1
        }
        if point > digits.count {
            digits.append(contentsOf: repeatElement("0", count: point - digits.count))
        }
        var whole = Substring(String(digits[..<point]))
        while whole.count > 1, whole.first == "0" { whole = whole.dropFirst() }
        var fraction = Substring(String(digits[point...]))
        while fraction.last == "0" { fraction = fraction.dropLast() }
        return (negative ? "-" : "") + whole + (fraction.isEmpty ? "" : "." + fraction)
    }

    /// `plain`, with `.0` after a whole number: a REAL value reads back as a real number (`7.0`, as
    /// SQLite and Python print it), so a column has one type in the database and in a CSV file.
    public static func real(_ value: Double) -> String? {
        guard let text = plain(value) else { return nil }
        return text.contains(".") ? text : text + ".0"
    }

    /// `value` rounded half away from zero to `decimals` places, optionally with comma thousands separators.
    public static func fixed(_ value: Double, decimals: Int, grouping: Bool = false) -> String {
        guard value.isFinite else { return "0" }
        let places = max(0, min(decimals, 15))
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (value.magnitude * scale).rounded(.toNearestOrAwayFromZero)
        var whole: String
        var fraction = ""
        // Integer arithmetic is exact only below 2^53; past that the digits carry no fraction anyway.
        if scaled < 9e15 {
            let digits = String(UInt64(scaled))
            let padded = String(repeating: "0", count: max(0, places + 1 - digits.count)) + digits
            whole = String(padded.dropLast(places))
            fraction = String(padded.suffix(places))
            if scaled == 0 { return places == 0 ? "0" : "0." + fraction }
        } else {
            whole = plain(value.magnitude.rounded()) ?? "0"
            fraction = String(repeating: "0", count: places)
        }
        if grouping { whole = grouped(whole) }
        return (value < 0 ? "-" : "") + whole + (fraction.isEmpty ? "" : "." + fraction)
    }

    /// Fixed decimals with trailing zeros dropped: short, stable SVG coordinates.
    static func coordinate(_ value: Double, decimals: Int = 2) -> String {
        var text = fixed(value, decimals: decimals)
        if text.contains(".") {
            while text.last == "0" { text.removeLast() }
            if text.last == "." { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }

    /// A whole number with comma thousands separators: `1,234,567`.
    public static func grouped(_ n: Int64) -> String {
        (n < 0 ? "-" : "") + grouped(String(n.magnitude))
    }

    private static func grouped(_ digits: String) -> String {
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return out
    }
}
