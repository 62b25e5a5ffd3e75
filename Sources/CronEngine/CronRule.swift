/// Why a rule was refused in documented mode.
public struct CronRuleError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The rule text as given.
    public let rule: String
    public let reason: String

    public init(rule: String, reason: String) {
        (self.rule, self.reason) = (rule, reason)
    }

    public var description: String { "cron rule \"\(rule)\": \(reason)" }
}

/// A parsed field test on one counter.
public enum CronField: Equatable, Sendable {
    case any
    case equals(Int)
    /// The counter is a multiple of the divisor; a divisor of 0 matches anything.
    case multipleOf(Int)

    @inlinable
    public func matches(_ value: Int) -> Bool {
        switch self {
        case .any: return true
        case let .equals(n): return value == n
        case let .multipleOf(d): return d == 0 || value % d == 0
        }
    }
}

/// A rule in the compact form both modes parse into, so evaluation does no string work.
public enum CronRule: Equatable, Sendable {
    /// Never matches: the else-block runs at every launch.
    case never
    /// A one-field rule on `totalLaunches` (documented mode only: the released pod has none).
    case total(CronField)
    /// A two-field rule: `times` on `launchesToday`, `day` on `activeDays`.
    case daily(times: CronField, day: CronField)

    @inlinable
    public func matches(_ counters: LaunchCounters) -> Bool {
        switch self {
        case .never: return false
        case let .total(field): return field.matches(counters.totalLaunches)
        case let .daily(times, day):
            return times.matches(counters.launchesToday) && day.matches(counters.activeDays)
        }
    }

    /// Whether a field of the rule asks for a count of 0, which no launch has: the counters count the
    /// launch being made, so each is at least 1. Such a rule never matches, though it reads as one that could.
    public var asksForCountZero: Bool {
        func zero(_ f: CronField) -> Bool { f == .equals(0) }
        switch self {
        case .never: return false
        case let .total(field): return zero(field)
        case let .daily(times, day): return zero(times) || zero(day)
        }
    }

    /// Parses a rule as the given mode reads it. Only documented mode can fail: the original
    /// parser accepts any string and simply never matches what it cannot read.
    public init(parsing text: String, mode: CronMode) throws(CronRuleError) {
        switch mode {
        case .documented: self = try Self.parseDocumented(text)
        case .original: self = Self.parseOriginal(text)
        }
    }

    // MARK: documented mode

    static func parseDocumented(_ text: String) throws(CronRuleError) -> CronRule {
        if text.isEmpty { throw CronRuleError(rule: text, reason: "the rule is empty") }
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        if parts.contains(where: \.isEmpty) {
            throw CronRuleError(
                rule: text, reason: "fields must be separated by exactly one space, with none before or after")
        }
        switch parts.count {
        case 1:
            let field = parts[0]
            if field == "*" { return .total(.any) }
            if field.contains("/") {
                throw CronRuleError(
                    rule: text, reason: "a one-field rule is a launch number or *; */N needs the two-field form")
            }
            return .total(.equals(try number(field, in: text, name: "launch number")))
        case 2:
            return .daily(
                times: try documentedField(parts[0], in: text, name: "times field"),
                day: try documentedField(parts[1], in: text, name: "day field"))
        default:
            throw CronRuleError(
                rule: text, reason: "expected one field (launch number) or two (times day), got \(parts.count)")
        }
    }

    private static func documentedField(_ field: Substring, in text: String, name: String) throws(CronRuleError)
        -> CronField
    {
        if field == "*" { return .any }
        if field.hasPrefix("*/") {
            return .multipleOf(try number(field.dropFirst(2), in: text, name: "\(name) divisor"))
        }
        return .equals(try number(field, in: text, name: name))
    }

    private static func number(_ digits: Substring, in text: String, name: String) throws(CronRuleError) -> Int {
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw CronRuleError(
                rule: text, reason: "\(name) \"\(digits)\" must be *, */N or a whole number N ≥ 0")
        }
        guard let value = Int(digits) else {
            throw CronRuleError(rule: text, reason: "\(name) \"\(digits)\" is too large")
        }
        return value
    }

    // MARK: original mode

    static func parseOriginal(_ text: String) -> CronRule {
        // The pod's parser has a two-field branch only: one field, three, or the empty string never match.
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .never }
        let times = parts[0], day = parts[1]
        let dayNumber = integerValue(day)
        // The 1.0 code takes the times field's divisor from the day field's number...
        let timesField: CronField =
            isEvery(times) ? (times == "*" ? .any : .multipleOf(dayNumber)) : .equals(integerValue(times))
        // ...and the day field's divisor from the number read from its whole text, 0 for `*/7`.
        let dayField: CronField =
            isEvery(day) ? (day == "*" ? .any : .multipleOf(dayNumber)) : .equals(dayNumber)
        // Numbers are kept in an `NSUInteger`: a negative one wraps to at least 2^63, which equals no
        // counter and divides none, so the rule can never match.
        for case let .equals(n) in [timesField, dayField] where n < 0 { return .never }
        for case let .multipleOf(n) in [timesField, dayField] where n < 0 { return .never }
        return .daily(times: timesField, day: dayField)
    }

    private static func isEvery(_ field: Substring) -> Bool {
        field == "*" || field.utf8.lazy.filter { $0 == UInt8(ascii: "/") }.count == 1
    }

    /// `NSString.integerValue`: leading white space, an optional sign, then leading digits;
    /// anything else reads as 0. Out-of-range values saturate.
    static func integerValue(_ text: Substring) -> Int {
        var bytes = text.utf8[...]
        while let c = bytes.first, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0B || c == 0x0C {
            bytes = bytes.dropFirst()
        }
        var negative = false
        if let c = bytes.first, c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
            negative = c == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var value = 0
        for c in bytes {
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { break }
            let digit = Int(c - UInt8(ascii: "0"))
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(digit)
            if o1 || o2 { return negative ? Int.min : Int.max }
            value = sum
        }
        return negative ? -value : value
    }
}
