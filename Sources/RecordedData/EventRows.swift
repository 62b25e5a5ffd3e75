/// The parts of an event a log row may hold.
enum EventSlot: CaseIterable {
    case user, time, session, eventType, utcOffset
}

/// Where each part of an event is: a field position in a split line, or a path's index in a JSON reader.
struct EventSlots {
    var user: Int
    var time: Int
    var session: Int?
    var eventType: Int?
    var utcOffset: Int?

    func index(_ slot: EventSlot) -> Int? {
        switch slot {
        case .user: return user
        case .time: return time
        case .session: return session
        case .eventType: return eventType
        case .utcOffset: return utcOffset
        }
    }
}

/// One row's values, whatever the layout of the log: what the importer needs to make it an event.
protocol EventRow {
    var columns: EventSlots { get }
    /// Hands `body` the content of the field at `column` (blank-trimmed and unquoted, or unescaped).
    func withValue<R>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R
    /// Whether the row has a non-empty value at `column`.
    func has(_ column: Int) -> Bool
    /// Hands `body` the id at `column` (a user's, a session's): its text, except that a JSON number is
    /// read by its value, so that `42`, `42.0` and `4.2e1` (and the string `"42"`) name one id.
    func withID<R>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R
}

extension EventRow {
    func withID<R>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withValue(column, body)
    }
}

/// A delimited line split into fields.
struct SplitRow: EventRow {
    let fields: [FieldSplitter.Field]
    let line: UnsafeBufferPointer<UInt8>
    let columns: EventSlots

    func withValue<R>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try FieldSplitter.withContent(of: fields[column], in: line, body)
    }

    func has(_ column: Int) -> Bool {
        withValue(column) { !$0.isEmpty }
    }
}

/// A JSON line read for the paths of a format.
struct JSONRow: EventRow {
    let values: [JSONLineReader.Value]
    let line: UnsafeBufferPointer<UInt8>
    let slots: EventSlots

    var columns: EventSlots { slots }

    func withValue<R>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try JSONLineReader.withContent(of: values[column], in: line, body)
    }

    func has(_ column: Int) -> Bool {
        switch values[column] {
        case .absent, .null: return false
        default: return withValue(column) { !$0.isEmpty }
        }
    }

    func withID<R>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        guard case .number = values[column] else { return try withValue(column, body) }
        // A whole number written with a fraction or an exponent (as tools that hold ids as floats
        // write them) is the same id as its digits; any other number keeps its text.
        let canonical = withValue(column) { Self.wholeNumberDigits($0) }
        guard let canonical else { return try withValue(column, body) }
        return try canonical.withUnsafeBufferPointer(body)
    }

    /// The digits of a JSON number that is a whole number (`42.0`, `4.2e1`, `-0` → `42`, `42`, `0`),
    /// worked out on its decimal digits, so exactly; nil when it has a fractional part, is already
    /// written as its digits, or would have more than 40 digits.
    static func wholeNumberDigits(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var negative = false, digits: [UInt8] = [], fractionDigits = 0, exponent = 0, i = 0
        if i < text.count, text[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var inFraction = false
        while i < text.count, text[i] != UInt8(ascii: "e"), text[i] != UInt8(ascii: "E") {
            if text[i] == UInt8(ascii: ".") { inFraction = true } else {
                digits.append(text[i])
                if inFraction { fractionDigits += 1 }
            }
            i += 1
        }
        let plain = i == text.count && !inFraction
        if i < text.count {
            i += 1
            var sign = 1
            if i < text.count, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") {
                sign = text[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
            }
            while i < text.count {
                exponent = min(exponent * 10 + Int(text[i] - UInt8(ascii: "0")), 1_000_000)
                i += 1
            }
            exponent *= sign
        }
        // The value is digits × 10^(exponent − fractionDigits).
        let shift = exponent - fractionDigits
        // Leading zeros dropped in one step (one by one would take the square of their count).
        let zeros = digits.prefix(while: { $0 == UInt8(ascii: "0") }).count
        if zeros > 0 { digits.removeFirst(min(zeros, digits.count - 1)) }
        if shift < 0 {
            let dropped = min(-shift, digits.count)
            guard digits.suffix(dropped).allSatisfy({ $0 == UInt8(ascii: "0") }) else { return nil }
            digits.removeLast(dropped)
            if digits.isEmpty { digits = [UInt8(ascii: "0")] }
        } else if digits != [UInt8(ascii: "0")] {
            guard digits.count + shift <= 40 else { return nil }
            digits += [UInt8](repeating: UInt8(ascii: "0"), count: shift)
        }
        let isZero = digits == [UInt8(ascii: "0")]
        if plain && !(negative && isZero) { return nil }
        return (negative && !isZero ? [UInt8(ascii: "-")] : []) + digits
    }
}

/// Why a UTC offset cannot be used.
struct BadOffset: Error {
    let reason: String
}

/// How many users are at each offset from UTC, each counted at the offset of its earliest event that
/// states one.
public struct UTCOffsetTally: Sendable, Equatable {
    /// Offset in seconds east of UTC → users.
    public let users: [Int: Int]
    /// Users none of whose events states an offset.
    public let unknown: Int

    /// Offsets as the scenario's `utcOffsets` accept them: from UTC−12 to UTC+14.
    public static let range = -12 * 3_600...14 * 3_600

    init(_ offsets: [Int32]) {
        var users: [Int: Int] = [:]
        var unknown = 0
        for offset in offsets {
            if offset == Int32.min { unknown += 1 } else { users[Int(offset), default: 0] += 1 }
        }
        (self.users, self.unknown) = (users, unknown)
    }

    public init(users: [Int: Int], unknown: Int) {
        (self.users, self.unknown) = (users, unknown)
    }

    /// Whether any user's offset is known.
    public var isEmpty: Bool { users.isEmpty }

    /// The offsets in ascending order with their users.
    public var sorted: [(seconds: Int, users: Int)] {
        users.sorted { $0.key < $1.key }.map { (seconds: $0.key, users: $0.value) }
    }

    /// The digits of `text` when it is a whole number written as a decimal number with a fraction or an
    /// exponent (a sign, digits, then `.` and digits, then `e` or `E`, a sign and digits); nil otherwise.
    static func floatWritten(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }
        var i = 0
        func digits() -> Bool {
            let start = i
            while i < text.count, isDigit(text[i]) { i += 1 }
            return i > start
        }
        let signed = i < text.count && (text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+"))
        if signed { i += 1 }
        let body = i
        guard digits() else { return nil }
        var written = false
        if i < text.count, text[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() else { return nil }
            written = true
        }
        if i < text.count, text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E") {
            i += 1
            if i < text.count, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") { i += 1 }
            guard digits() else { return nil }
            written = true
        }
        guard written, i == text.count else { return nil }
        // JSON's grammar, which the digits are worked out on, has no leading `+`.
        let negative = signed && text[0] == UInt8(ascii: "-")
        let number = (negative ? [UInt8(ascii: "-")] : []) + Array(text[body...])
        return number.withUnsafeBufferPointer { JSONRow.wholeNumberDigits($0) }
    }

    /// An offset field's value: whole seconds east of UTC, within `range`. A whole number written with a
    /// fraction or an exponent (`3600.0`, `36e2`), as tools that hold numbers as floats write it, is its value.
    /// An offset in seconds as ISO 8601 writes it: "−23:59", "+14:30".
    static func shown(_ seconds: Int) -> String {
        let m = abs(seconds) / 60
        return (seconds < 0 ? "−" : "+") + String(format: "%02d:%02d", m / 60, m % 60)
    }

    static func seconds(_ text: UnsafeBufferPointer<UInt8>) -> Result<Int, BadOffset> {
        if let digits = floatWritten(text) { return digits.withUnsafeBufferPointer { Self.seconds($0) } }
        var i = 0
        var negative = false
        if i < text.count, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") {
            negative = text[i] == UInt8(ascii: "-")
            i += 1
        }
        var value = 0
        // Leading zeros add nothing, and count towards no digit limit.
        while i + 1 < text.count, text[i] == UInt8(ascii: "0"), text[i + 1] &- UInt8(ascii: "0") < 10 { i += 1 }
        let start = i
        while i < text.count, text[i] &- UInt8(ascii: "0") < 10, i - start < 7 {
            value = value * 10 + Int(text[i] &- UInt8(ascii: "0"))
            i += 1
        }
        guard i > start, i == text.count else {
            // More digits than any offset has: a whole number, out of range.
            if i > start, text[i...].allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) {
                return .failure(BadOffset(reason: "UTC offset \(Excerpt.quoted(text)) s is outside UTC−12 to UTC+14"))
            }
            return .failure(BadOffset(reason: "UTC offset \(Excerpt.quoted(text)) is not a whole number of seconds"))
        }
        let seconds = negative ? -value : value
        guard range.contains(seconds) else {
            return .failure(BadOffset(reason: "UTC offset \(seconds) s is outside UTC−12 to UTC+14"))
        }
        return .success(seconds)
    }
}

/// How many rows each event type has.
public struct EventTypeCount: Sendable, Equatable {
    public let name: String
    public let rows: Int
    /// Whether the format keeps events of this type.
    public let kept: Bool
}

/// Counts of rows by event type, for at most `limit` distinct types of at most 200 bytes.
struct EventTypeTally {
    static let limit = 1_000
    private var counts: [String: Int] = [:]
    /// Rows whose type was not counted by name: past the limit of distinct types, or too long.
    private(set) var others = 0

    mutating func add(_ name: String) {
        if let count = counts[name] {
            counts[name] = count + 1
        } else if counts.count < Self.limit, name.utf8.count <= 200 {
            counts[name] = 1
        } else {
            others += 1
        }
    }

    /// The types, most rows first, then by name.
    func counts(kept: (String) -> Bool) -> [EventTypeCount] {
        counts.map { EventTypeCount(name: $0.key, rows: $0.value, kept: kept($0.key)) }
            .sorted { $0.rows != $1.rows ? $0.rows > $1.rows : $0.name < $1.name }
    }
}
