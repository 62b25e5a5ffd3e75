/// Locale-independent number text, so exported files are byte-identical everywhere.
public enum NumberText {
    /// The shortest digits that read back as `value`, laid out without an exponent; nil for NaN and infinities.
    public static func plain(_ value: Double) -> String? {
        guard value.isFinite else { return nil }
        if value == 0 { return "0" }
        // Swift's description already holds the shortest round-tripping digits; only their layout
        // changes here. It is ASCII: an optional sign, digits with an optional point, an optional
        // exponent. Worked on as bytes: exports write many thousands of numbers.
        var description = value.description
        return description.withUTF8 { text -> String in
            var i = 0
            let negative = text[0] == UInt8(ascii: "-")
            if negative { i = 1 }
            var digits: [UInt8] = []
            digits.reserveCapacity(text.count + 8)
            var integerCount = 0, sawPoint = false
            while i < text.count, text[i] != UInt8(ascii: "e"), text[i] != UInt8(ascii: "E") {
                if text[i] == UInt8(ascii: ".") {
                    sawPoint = true
                } else {
                    digits.append(text[i])
                    if !sawPoint { integerCount += 1 }
                }
                i += 1
            }
            var exponent = 0
            if i < text.count {
                i += 1
                var sign = 1
                if i < text.count, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") {
                    if text[i] == UInt8(ascii: "-") { sign = -1 }
                    i += 1
                }
                while i < text.count {
                    exponent = exponent * 10 + Int(text[i] &- UInt8(ascii: "0"))
                    i += 1
                }
                exponent *= sign
            }
            var point = integerCount + exponent
            if point <= 0 {
                digits.insert(contentsOf: repeatElement(UInt8(ascii: "0"), count: 1 - point), at: 0)
                point = 1
            }
            if point > digits.count { digits.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: point - digits.count)) }
            var first = 0
            while first < point - 1, digits[first] == UInt8(ascii: "0") { first += 1 }
            var last = digits.count
            while last > point, digits[last - 1] == UInt8(ascii: "0") { last -= 1 }
            var out: [UInt8] = []
            out.reserveCapacity(last - first + 2)
            if negative { out.append(UInt8(ascii: "-")) }
            out.append(contentsOf: digits[first..<point])
            if last > point {
                out.append(UInt8(ascii: "."))
                out.append(contentsOf: digits[point..<last])
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// `plain`, with `.0` after a whole number: a REAL value reads back as a real number (`7.0`, as
    /// SQLite and Python print it), so a column has one type in the database and in a CSV file.
    public static func real(_ value: Double) -> String? {
        guard let text = plain(value) else { return nil }
        return text.utf8.contains(UInt8(ascii: ".")) ? text : text + ".0"
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
