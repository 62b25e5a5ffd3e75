import GapFamilies
import RecordedData

/// One problem found in a scenario: where (a JSON path such as
/// `configurations[2].reminders[0].timePeriods[1]`) and why.
public struct ScenarioIssue: Error, Equatable, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String

    public init(path: String, reason: String) {
        (self.path, self.reason) = (path, reason)
    }

    /// One line, whatever the scenario held: values quoted in a reason may carry line breaks, escape
    /// sequences or bidirectional controls, which are shown escaped so that they cannot break the
    /// `FILE: PATH: REASON` lines or repaint the terminal.
    public var description: String {
        Excerpt.oneLine(path.isEmpty ? reason : "\(path): \(reason)", uppercaseHex: true, escaping: Self.needsEscape)
    }

    /// A key or value of the scenario as a message quotes it: in double quotes, cut to
    /// `Excerpt.messageLimit` scalars and `…` (`description` escapes what it holds).
    static func quote(_ text: String) -> String { "\"" + Excerpt.shortened(text) + "\"" }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value) || scalar.value == 0x200E || scalar.value == 0x200F
    }
}

/// A scenario that cannot run, with every problem found in it.
public struct ScenarioError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file the scenario came from, if any.
    public var source: String?
    public var issues: [ScenarioIssue]

    public init(source: String? = nil, issues: [ScenarioIssue]) {
        (self.source, self.issues) = (source, issues)
    }

    public var description: String {
        let prefix = source.map { "\($0): " } ?? ""
        return issues.map { prefix + $0.description }.joined(separator: "\n")
    }
}

/// Reads a JSON tree while collecting every problem instead of stopping at the first.
struct JSONFieldReader {
    var issues: [ScenarioIssue] = []
    /// True for a scenario read back from a run database: the limits that keep a new run's work and
    /// outputs bounded (text lengths, counts of messages and periods, the values a decision bound
    /// can take) are not applied, so that a run saved before a limit existed can still be read.
    var relaxed = false

    mutating func fail(_ path: String, _ reason: String) {
        issues.append(ScenarioIssue(path: path, reason: reason))
    }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The members of an object at `path`. The keys it may have are the keys read from it: call
    /// `finish` once every field is read, to report the others as unknown.
    mutating func object(_ value: JSON, at path: String) -> ObjectFields? {
        guard case let .object(members) = value else {
            fail(path, "expected an object, got \(value.typeName)")
            return nil
        }
        return ObjectFields(members: members, path: path)
    }

    /// The scenario's own fields, named when one is given inside another object by mistake.
    static let topLevelFields: Set<String> = ["seed", "users", "horizonDays", "startDate", "population", "response",
                                               "configurations", "grid", "baseline", "decision", "liveTest", "tune"]

    /// Reports every key of `object` that was never read.
    mutating func finish(_ object: ObjectFields) {
        for (key, _) in object.members where !object.read.contains(key) {
            let hint = object.read.first { $0.lowercased() == key.lowercased() }.map { " (did you mean \"\($0)\"?)" }
                ?? (!object.path.isEmpty && Self.topLevelFields.contains(key) ? " (\"\(key)\" is a field of the scenario itself, beside "
                    + "\"\(object.path.split(separator: ".").first.map(String.init) ?? object.path)\")" : "")
            fail(Self.join(object.path, Excerpt.shortened(key)), "unknown field\(hint)")
        }
    }

    mutating func array(_ value: JSON, at path: String) -> [JSON]? {
        guard case let .array(elements) = value else {
            fail(path, "expected an array, got \(value.typeName)")
            return nil
        }
        return elements
    }

    mutating func string(_ value: JSON, at path: String) -> String? {
        guard case let .string(s) = value else {
            fail(path, "expected a string, got \(value.typeName)")
            return nil
        }
        return s
    }

    mutating func bool(_ value: JSON, at path: String) -> Bool? {
        guard case let .bool(b) = value else {
            fail(path, "expected true or false, got \(value.typeName)")
            return nil
        }
        return b
    }

    /// A number satisfying `check`, which returns the reason it is refused, or nil.
    mutating func number(_ value: JSON, at path: String, _ check: NumberCheck = .any) -> Double? {
        guard case let .number(x) = value else {
            fail(path, "expected a number, got \(value.typeName)")
            return nil
        }
        if let reason = check.refusal(x) {
            fail(path, reason)
            return nil
        }
        return x
    }

    mutating func integer(_ value: JSON, at path: String, _ check: NumberCheck = .any) -> Int? {
        guard let x = number(value, at: path, check) else { return nil }
        guard x == x.rounded() else {
            fail(path, "must be a whole number, got \(x)")
            return nil
        }
        // Beyond 2^53 a JSON number no longer holds every whole number exactly.
        guard abs(x) <= 9_007_199_254_740_991 else {
            // A whole number as one, not in a double's notation (18446744073709551616, not 1.8446744073709552e+19).
            let shown = abs(x) < 1e21 ? String(format: "%.0f", x) : "\(x)"
            fail(path, "\(shown) is too large for a whole number read exactly (at most 2^53 − 1 = 9007199254740991); "
                + "the field's own limit, if any, is lower still")
            return nil
        }
        return Int(x)
    }

    mutating func enumeration<E: RawRepresentable & CaseIterable>(_ value: JSON, at path: String, as: E.Type) -> E?
    where E.RawValue == String {
        guard let s = string(value, at: path) else { return nil }
        guard let e = E(rawValue: s) else {
            fail(path, "unknown value \(ScenarioIssue.quote(s)); expected one of \(E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
            return nil
        }
        return e
    }

    mutating func list<T>(_ value: JSON, at path: String, nonEmpty: Bool = false,
                          _ element: (inout JSONFieldReader, JSON, String) -> T?) -> [T]? {
        Self.whole(elements(value, at: path, nonEmpty: nonEmpty, element))
    }

    /// Every element of a list, nil where one could not be read: the rules over several elements
    /// still check the others. Nil when the list itself cannot be read.
    mutating func elements<T>(_ value: JSON, at path: String, nonEmpty: Bool = false,
                              _ element: (inout JSONFieldReader, JSON, String) -> T?) -> [T?]? {
        guard let elements = array(value, at: path) else { return nil }
        if nonEmpty && elements.isEmpty {
            fail(path, "must not be empty")
            return nil
        }
        return elements.enumerated().map { i, e in element(&self, e, "\(path)[\(i)]") }
    }

    /// The list when every element was read, else nil.
    static func whole<T>(_ elements: [T?]?) -> [T]? {
        guard let elements else { return nil }
        let read = elements.compactMap { $0 }
        return read.count == elements.count ? read : nil
    }

    /// An object whose keys are data (message texts, measure names), not field names: `member` reads
    /// each key and value, or reports why it cannot. `expected` says what the object maps, for the
    /// issue when the value is not an object. Nil when any member fails; a later duplicate key wins.
    mutating func dictionary<Key: Hashable, Value>(
        _ value: JSON, at path: String, mapping expected: String,
        _ member: (inout JSONFieldReader, _ key: String, _ value: JSON) -> (Key, Value)?
    ) -> [Key: Value]? {
        guard case let .object(members) = value else {
            fail(path, "expected an object mapping \(expected), got \(value.typeName)")
            return nil
        }
        var out: [Key: Value] = [:]
        var ok = true
        for (key, value) in members {
            if let (k, v) = member(&self, key, value) { out[k] = v } else { ok = false }
        }
        return ok ? out : nil
    }
}

/// The members of one JSON object and its path, remembering which keys were read.
final class ObjectFields {
    let members: [(key: String, value: JSON)]
    let path: String
    /// The keys looked up so far, in order: the object's known fields.
    private(set) var read: [String] = []

    init(members: [(key: String, value: JSON)], path: String) {
        (self.members, self.path) = (members, path)
    }

    subscript(key: String) -> JSON? {
        if !read.contains(key) { read.append(key) }
        return members.first { $0.key == key }?.value
    }

    func path(_ key: String) -> String { JSONFieldReader.join(path, key) }
}

extension GapParameter.Bounds {
    /// The same bounds as a rule of the scenario reader.
    var check: NumberCheck {
        switch self {
        case let .positiveUpTo(limit): return .positiveUpTo(limit)
        case let .within(range): return .within(range)
        }
    }
}

/// A rule a number must obey.
enum NumberCheck {
    case any
    case positive
    /// Above zero, and small enough that times derived from it stay finite.
    case positiveUpTo(Double)
    case nonNegative
    case probability
    /// Within a closed range.
    case within(ClosedRange<Double>)
    /// Within the values a named measure can take: a bound outside them never binds or never admits.
    case possible(ClosedRange<Double>, String)

    func refusal(_ x: Double) -> String? {
        switch self {
        case .any: return nil
        case .positive: return x > 0 ? nil : "must be > 0, got \(format(x))"
        case let .positiveUpTo(limit):
            return x > 0 && x <= limit ? nil : "must be > 0 and ≤ \(format(limit)), got \(format(x))"
        case .nonNegative: return x >= 0 ? nil : "must be ≥ 0, got \(format(x))"
        case .probability: return (0...1).contains(x) ? nil : "must be a probability in [0, 1], got \(format(x))"
        case let .within(r):
            return r.contains(x) ? nil : "must be between \(format(r.lowerBound)) and \(format(r.upperBound)), got \(format(x))"
        case let .possible(r, measure):
            guard !r.contains(x) else { return nil }
            let range = r.upperBound == .greatestFiniteMagnitude
                ? "be ≥ \(format(r.lowerBound))" : "be between \(format(r.lowerBound)) and \(format(r.upperBound))"
            return "must \(range) (the values \(measure) can take), got \(format(x))"
        }
    }

    private func format(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(x)
    }
}
