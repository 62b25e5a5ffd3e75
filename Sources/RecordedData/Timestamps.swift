/// Proleptic Gregorian calendar arithmetic, independent of Foundation's calendars and locales.
public enum CivilTime {
    /// Days from 1970-01-01 to the given date: Howard Hinnant's `days_from_civil` algorithm.
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = (month + 9) % 12  // March is 0, so the leap day ends the year
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Seconds since 1970-01-01T00:00:00Z of a wall-clock time read at `utcOffsetSeconds` east of UTC.
    public static func epochSeconds(
        year: Int, month: Int, day: Int,
        hour: Int = 0, minute: Int = 0, second: Double = 0,
        utcOffsetSeconds: Int = 0
    ) -> Double {
        let days = daysFromCivil(year: year, month: month, day: day)
        let whole = days * 86_400 + hour * 3_600 + minute * 60 - utcOffsetSeconds
        return Double(whole) + second
    }

    /// The date of a day count from 1970-01-01: Howard Hinnant's `civil_from_days` algorithm.
    public static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `yyyy-MM-ddTHH:mm:ssZ` (fractions dropped), for messages and reports.
    public static func isoString(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e14 else { return "\(seconds)" }
        let whole = Int(seconds.rounded(.down))
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let (y, m, d) = civilFromDays(days)
        let rest = whole - days * 86_400
        func pad(_ v: Int, _ width: Int) -> String {
            let text = String(v)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(rest / 3_600, 2)):\(pad(rest % 3_600 / 60, 2)):\(pad(rest % 60, 2))Z"
    }

    /// Days in a month of the proleptic Gregorian calendar.
    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// A compiled timestamp reader working on raw bytes, so the import hot path avoids DateFormatter.
struct TimestampParser: Sendable {
    /// One fixed-width element of a pattern.
    enum Token: Sendable, Equatable {
        case year, month, day, hour, minute, second, millisecond
        case literal(UInt8)
    }

    private enum Kind: Sendable {
        case iso8601, epochSeconds, epochMilliseconds, epochMicroseconds
        case pattern([Token])
    }

    private let kind: Kind
    private let defaultOffset: Int

    init(_ format: TimestampFormat, defaultUTCOffsetSeconds: Int) throws(ImportError) {
        defaultOffset = defaultUTCOffsetSeconds
        switch format {
        case .iso8601: kind = .iso8601
        case .epochSeconds: kind = .epochSeconds
        case .epochMilliseconds: kind = .epochMilliseconds
        case .epochMicroseconds: kind = .epochMicroseconds
        case .dateTime: kind = .pattern(try Self.compile("yyyy-MM-dd HH:mm:ss"))
        case .compactDate: kind = .pattern(try Self.compile("yyyyMMdd"))
        case .custom(let pattern): kind = .pattern(try Self.compile(pattern))
        }
    }

    static func compile(_ pattern: String) throws(ImportError) -> [Token] {
        let widths: [Character: (Int, Token)] = [
            "y": (4, .year), "M": (2, .month), "d": (2, .day),
            "H": (2, .hour), "m": (2, .minute), "s": (2, .second), "S": (3, .millisecond),
        ]
        var tokens: [Token] = []
        let chars = Array(pattern)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "'" {
                guard let close = chars[(i + 1)...].firstIndex(of: "'") else {
                    throw .invalidFormat("unclosed quote in timestamp pattern '\(pattern)'")
                }
                tokens += chars[(i + 1)..<close].flatMap { String($0).utf8 }.map { .literal($0) }
                i = close + 1
            } else if c.isLetter {
                var run = 1
                while i + run < chars.count, chars[i + run] == c { run += 1 }
                guard let (width, token) = widths[c], width == run else {
                    throw .invalidFormat(
                        "unsupported token '\(String(repeating: c, count: run))' in timestamp pattern '\(pattern)'"
                            + " (supported: yyyy MM dd HH mm ss SSS, literals in single quotes)")
                }
                tokens.append(token)
                i += run
            } else {
                tokens += String(c).utf8.map { .literal($0) }
                i += 1
            }
        }
        guard tokens.contains(.year), tokens.contains(.month), tokens.contains(.day) else {
            throw .invalidFormat("timestamp pattern '\(pattern)' needs at least yyyy, MM and dd")
        }
        return tokens
    }

    /// Seconds since the epoch, or `nil` when the text does not match or names an impossible date.
    func parse(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        parseWithZone(b)?.seconds
    }

    /// Whether timestamps of this format can carry their own offset from UTC.
    var carriesZones: Bool {
        if case .iso8601 = kind { return true }
        return false
    }

    /// Seconds since the epoch and the offset from UTC the text states, if it states one (ISO 8601's
    /// `+02:00`, `Z`); `nil` when the text does not match or names an impossible date.
    func parseWithZone(_ b: UnsafeBufferPointer<UInt8>) -> (seconds: Double, offset: Int?)? {
        switch kind {
        case .iso8601: return parseISO(b)
        case .epochSeconds: return parseDecimal(b).map { ($0, nil) }
        case .epochMilliseconds: return parseDecimal(b).map { ($0 / 1000, nil) }
        case .epochMicroseconds: return parseMicroseconds(b).map { ($0, nil) }
        case .pattern(let tokens): return parsePattern(b, tokens).map { ($0, nil) }
        }
    }

    /// Whole microseconds, split before dividing so that whole seconds stay exact.
    private func parseMicroseconds(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let value = parseDecimal(b) else { return nil }
        guard value.rounded(.towardZero) == value, abs(value) < 1e17 else { return value / 1e6 }
        let whole = Int64(value)
        return Double(whole / 1_000_000) + Double(whole % 1_000_000) / 1e6
    }

    @inline(__always)
    private func digits(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
        guard start + count <= b.count else { return nil }
        var value = 0
        for i in start..<(start + count) {
            let d = Int(b[i]) &- 48
            guard d >= 0, d <= 9 else { return nil }
            value = value * 10 + d
        }
        return value
    }

    private func civil(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Double, offset: Int) -> Double? {
        guard (1...12).contains(mo), d >= 1, d <= CivilTime.daysInMonth(year: y, month: mo),
              (0...23).contains(h), (0...59).contains(mi), s >= 0, s < 61
        else { return nil }
        return CivilTime.epochSeconds(year: y, month: mo, day: d, hour: h, minute: mi, second: s, utcOffsetSeconds: offset)
    }

    private func parsePattern(_ b: UnsafeBufferPointer<UInt8>, _ tokens: [Token]) -> Double? {
        var y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, ms = 0
        var i = 0
        for token in tokens {
            switch token {
            case .literal(let byte):
                guard i < b.count, b[i] == byte else { return nil }
                i += 1
            case .year: guard let v = digits(b, i, 4) else { return nil }; y = v; i += 4
            case .month: guard let v = digits(b, i, 2) else { return nil }; mo = v; i += 2
            case .day: guard let v = digits(b, i, 2) else { return nil }; d = v; i += 2
            case .hour: guard let v = digits(b, i, 2) else { return nil }; h = v; i += 2
            case .minute: guard let v = digits(b, i, 2) else { return nil }; mi = v; i += 2
            case .second: guard let v = digits(b, i, 2) else { return nil }; s = v; i += 2
            case .millisecond: guard let v = digits(b, i, 3) else { return nil }; ms = v; i += 3
            }
        }
        guard i == b.count else { return nil }
        return civil(y, mo, d, h, mi, Double(s) + Double(ms) / 1000, offset: defaultOffset)
    }

    private func parseISO(_ b: UnsafeBufferPointer<UInt8>) -> (seconds: Double, offset: Int?)? {
        let n = b.count
        guard n >= 10, let y = digits(b, 0, 4), b[4] == UInt8(ascii: "-"), let mo = digits(b, 5, 2),
              b[7] == UInt8(ascii: "-"), let d = digits(b, 8, 2)
        else { return nil }
        var h = 0, mi = 0, s = 0.0
        var offset = defaultOffset
        var stated: Int?
        var i = 10
        if i < n {
            guard b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == UInt8(ascii: " "),
                  let hh = digits(b, i + 1, 2), i + 3 < n, b[i + 3] == UInt8(ascii: ":"),
                  let mm = digits(b, i + 4, 2)
            else { return nil }
            h = hh; mi = mm; i += 6
            if i < n, b[i] == UInt8(ascii: ":") {
                guard let ss = digits(b, i + 1, 2) else { return nil }
                s = Double(ss); i += 3
                if i < n, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
                    i += 1
                    guard let fraction = fractionDigits(b, &i) else { return nil }
                    s += fraction
                }
            }
            if i < n {
                switch b[i] {
                case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                    offset = 0; stated = 0; i += 1
                case UInt8(ascii: "+"), UInt8(ascii: "-"):
                    let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
                    guard let oh = digits(b, i + 1, 2), oh <= 23 else { return nil }
                    i += 3
                    var om = 0
                    if i < n, b[i] == UInt8(ascii: ":") { i += 1 }
                    if i < n {
                        guard let m = digits(b, i, 2), m <= 59 else { return nil }
                        om = m; i += 2
                    }
                    offset = sign * (oh * 3_600 + om * 60)
                    stated = offset
                default:
                    return nil
                }
            }
            guard i == n else { return nil }
        }
        return civil(y, mo, d, h, mi, s, offset: offset).map { ($0, stated) }
    }

    /// Reads at least one digit after a decimal point; digits beyond nanoseconds are read but ignored.
    private func fractionDigits(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Double? {
        let start = i
        var value = 0
        var scale = 1
        while i < b.count, let digit = digits(b, i, 1) {
            if i - start < 9 { value = value * 10 + digit; scale *= 10 }
            i += 1
        }
        return i > start ? Double(value) / Double(scale) : nil
    }

    private func parseDecimal(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        var negative = false
        if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") {
            negative = b[i] == UInt8(ascii: "-"); i += 1
        }
        let start = i
        var whole: Int64 = 0
        while i < b.count, let digit = digits(b, i, 1) {
            guard i - start < 18 else { return nil }  // keeps Int64 from overflowing
            whole = whole * 10 + Int64(digit); i += 1
        }
        guard i > start else { return nil }
        var fraction = 0.0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            guard let digits = fractionDigits(b, &i) else { return nil }
            fraction = digits
        }
        guard i == b.count else { return nil }
        let value = Double(whole) + fraction
        return negative ? -value : value
    }
}
