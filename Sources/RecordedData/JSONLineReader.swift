/// Reads one line of a JSON-lines log: checks that it is one JSON object, strictly (RFC 8259), and
/// finds the values of a few fields named by dotted paths, without building the object.
///
/// A path step that meets an array of `{"key": …, "value": …}` objects, as BigQuery writes repeated
/// key/value records such as GA4's `event_params`, picks the element whose `key` is the step; its value
/// is `value`, or, when that is an object, the first of its `string_value`, `int_value`,
/// `double_value` and `float_value` that is not null.
struct JSONLineReader {
    /// What a path found on the last line read.
    enum Value: Equatable {
        case absent
        case null
        /// Byte range of a string's content within the line; `escaped` when it holds backslash escapes.
        case string(start: Int, end: Int, escaped: Bool)
        /// Byte range of a number's text within the line.
        case number(start: Int, end: Int)
        case boolean(Bool)
        case object
        case array

        /// What the value is, for messages.
        var kind: String {
            switch self {
            case .absent: return "absent"
            case .null: return "null"
            case .string: return "a string"
            case .number: return "a number"
            case .boolean: return "a boolean"
            case .object: return "an object"
            case .array: return "an array"
            }
        }
    }

    /// Why a line is not a JSON object the reader accepts.
    struct Failure: Error {
        let reason: String
    }

    /// Deeper nesting than this is refused, so that no line can exhaust the stack.
    static let maximumDepth = 256
    /// Members of a key/value record whose value stands for the record, in order of preference.
    private static let typedValueNames = ["string_value", "int_value", "double_value", "float_value"].map { Array($0.utf8) }

    /// The wanted paths, each a list of member names.
    let paths: [[[UInt8]]]
    /// The value each path found on the last line read.
    private(set) var values: [Value]

    /// - Parameter paths: dotted paths such as `properties.distinct_id`; at most 64.
    init(paths: [String]) {
        self.paths = paths.map { path in path.split(separator: ".", omittingEmptySubsequences: false).map { Array($0.utf8) } }
        values = Array(repeating: .absent, count: paths.count)
    }

    /// Reads `line`, filling `values`; a failure says what is wrong with the line.
    mutating func read(_ line: UnsafeBufferPointer<UInt8>) -> Failure? {
        for i in values.indices { values[i] = .absent }
        var scanner = Scanner(bytes: line)
        do {
            scanner.skipBlanks()
            guard scanner.position < line.count else { throw Failure(reason: "the line is blank") }
            guard line[scanner.position] == UInt8(ascii: "{") else {
                let found = (try? Scanner.kindAhead(line, at: scanner.position)) ?? "text that is not JSON"
                throw Failure(reason: "the line is not a JSON object: it starts with \(found)")
            }
            try value(&scanner, wanted: Self.all(paths.count), level: 0, depth: 0)
            scanner.skipBlanks()
            guard scanner.position == line.count else {
                throw Failure(reason: "text after the end of the object at byte \(scanner.position + 1)")
            }
        } catch let failure as Failure {
            return failure
        } catch {
            return Failure(reason: "\(error)")
        }
        return nil
    }

    /// A set of paths, one bit each.
    typealias Paths = UInt64

    private static func all(_ count: Int) -> Paths {
        count >= 64 ? ~0 : (1 << Paths(count)) - 1
    }

    /// The paths of `wanted` that satisfy `test`.
    private func select(_ wanted: Paths, _ test: (Int) -> Bool) -> Paths {
        var chosen: Paths = 0
        var rest = wanted
        while rest != 0 {
            let path = rest.trailingZeroBitCount
            rest &= rest - 1
            if test(path) { chosen |= 1 << Paths(path) }
        }
        return chosen
    }

    private static func each(_ set: Paths, _ body: (Int) -> Void) {
        var rest = set
        while rest != 0 {
            body(rest.trailingZeroBitCount)
            rest &= rest - 1
        }
    }

    /// Reads one value; `wanted` are the paths whose steps up to `level` led here.
    private mutating func value(_ s: inout Scanner, wanted: Paths, level: Int, depth: Int) throws {
        guard depth < Self.maximumDepth else {
            throw Failure(reason: "the object is nested more than \(Self.maximumDepth) levels deep")
        }
        let found = try s.scalarOrOpening()
        guard wanted != 0 else {
            switch found {
            case .object: try members(&s, wanted: 0, level: level, depth: depth)
            case .array: try elements(&s, wanted: 0, level: level, depth: depth)
            default: break
            }
            return
        }
        let here = select(wanted) { paths[$0].count == level }
        // A name repeated in one object leaves which value is meant to the reader: none is chosen.
        if let again = (0..<paths.count).first(where: { here & 1 << Paths($0) != 0 && values[$0] != .absent }) {
            let name = paths[again].map { String(decoding: $0, as: UTF8.self) }.joined(separator: ".")
            throw Failure(reason: "the field \(Excerpt.quoted(name)) is given more than once")
        }
        Self.each(here) { values[$0] = found }
        let deeper = wanted & ~here
        switch found {
        case .object: try members(&s, wanted: deeper, level: level, depth: depth)
        case .array: try elements(&s, wanted: deeper, level: level, depth: depth)
        default: break
        }
    }

    /// Reads an object's members after its `{`, following the wanted paths into them.
    private mutating func members(_ s: inout Scanner, wanted: Paths, level: Int, depth: Int) throws {
        s.skipBlanks()
        if s.take(UInt8(ascii: "}")) { return }
        while true {
            let key = try s.memberName()
            let next = wanted == 0 ? 0 : select(wanted) { s.equals(key, paths[$0][level]) }
            try value(&s, wanted: next, level: level + 1, depth: depth + 1)
            s.skipBlanks()
            if s.take(UInt8(ascii: ",")) { continue }
            guard s.take(UInt8(ascii: "}")) else { throw s.unexpected("',' or '}' in an object") }
            return
        }
    }

    /// Reads an array's elements after its `[`; with wanted paths, elements are key/value records.
    private mutating func elements(_ s: inout Scanner, wanted: Paths, level: Int, depth: Int) throws {
        s.skipBlanks()
        if s.take(UInt8(ascii: "]")) { return }
        while true {
            s.skipBlanks()
            if wanted != 0, s.position < s.bytes.count, s.bytes[s.position] == UInt8(ascii: "{") {
                try record(&s, wanted: wanted, level: level, depth: depth + 1)
            } else {
                try value(&s, wanted: 0, level: level, depth: depth + 1)
            }
            s.skipBlanks()
            if s.take(UInt8(ascii: ",")) { continue }
            guard s.take(UInt8(ascii: "]")) else { throw s.unexpected("',' or ']' in an array") }
            return
        }
    }

    /// Reads one element of an array that a path steps into: a `{"key": …, "value": …}` record gives
    /// the paths whose step is its key the record's value.
    private mutating func record(_ s: inout Scanner, wanted: Paths, level: Int, depth: Int) throws {
        var key: Scanner.StringRange?
        var valueStart: Int?
        s.position += 1
        s.skipBlanks()
        if !s.take(UInt8(ascii: "}")) {
            while true {
                let name = try s.memberName()
                let memberStart = s.position
                if s.equals(name, Array("key".utf8)), s.position < s.bytes.count, s.bytes[s.position] == UInt8(ascii: "\"") {
                    key = try s.string()
                } else {
                    if s.equals(name, Array("value".utf8)) { valueStart = memberStart }
                    try value(&s, wanted: 0, level: level, depth: depth + 1)
                }
                s.skipBlanks()
                if s.take(UInt8(ascii: ",")) { continue }
                guard s.take(UInt8(ascii: "}")) else { throw s.unexpected("',' or '}' in an object") }
                break
            }
        }
        guard let key, let valueStart else { return }
        let matching = select(wanted) { s.equals(key, paths[$0][level]) }
        guard matching != 0 else { return }
        // Read the record's value again, now following the paths that named this key.
        let end = s.position
        s.position = valueStart
        try value(&s, wanted: matching, level: level + 1, depth: depth + 1)
        let records = select(matching) { paths[$0].count == level + 1 && values[$0] == .object }
        if records != 0 {
            let typed = try typedValue(s.bytes, from: valueStart, depth: depth + 1)
            Self.each(records) { values[$0] = typed }
        }
        s.position = end
    }

    /// The first non-null typed member of the object at `start`, or null when it has none.
    private func typedValue(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, depth: Int) throws -> Value {
        var reader = JSONLineReader(pathSteps: Self.typedValueNames.map { [$0] })
        var s = Scanner(bytes: bytes)
        s.position = start
        try reader.value(&s, wanted: Self.all(reader.paths.count), level: 0, depth: depth)
        return reader.values.first { $0 != .absent && $0 != .null } ?? .null
    }

    private init(pathSteps: [[[UInt8]]]) {
        paths = pathSteps
        values = Array(repeating: .absent, count: pathSteps.count)
    }

    /// Hands `body` the content of a string or number value: a string's escapes undone.
    static func withContent<R>(
        of value: Value, in line: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> R
    ) rethrows -> R {
        switch value {
        case let .number(start, end), let .string(start, end, false):
            return try body(UnsafeBufferPointer(rebasing: line[start..<end]))
        case let .string(start, end, true):
            var decoded: [UInt8] = []
            Scanner.unescape(UnsafeBufferPointer(rebasing: line[start..<end]), into: &decoded)
            return try decoded.withUnsafeBufferPointer(body)
        default:
            return try body(UnsafeBufferPointer(start: nil, count: 0))
        }
    }
}

/// A cursor over one line's bytes that reads JSON tokens.
private struct Scanner {
    /// A string's content range, and whether it holds escapes.
    struct StringRange {
        var start: Int
        var end: Int
        var escaped: Bool
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func skipBlanks() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func take(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    func unexpected(_ expected: String) -> JSONLineReader.Failure {
        guard position < bytes.count else {
            return JSONLineReader.Failure(reason: "the line ends inside the object (expected \(expected))")
        }
        return JSONLineReader.Failure(reason: "expected \(expected) at byte \(position + 1), found \(Excerpt.quoted([bytes[position]]))")
    }

    /// What the value starting at `index` is, for a message about a line that is not an object.
    static func kindAhead(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) throws -> String {
        var s = Scanner(bytes: bytes)
        s.position = index
        return try s.scalarOrOpening().kind
    }

    /// A scalar value, read whole, or the opening of an object or array (consumed).
    mutating func scalarOrOpening() throws -> JSONLineReader.Value {
        guard position < bytes.count else { throw unexpected("a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): position += 1; return .object
        case UInt8(ascii: "["): position += 1; return .array
        case UInt8(ascii: "\""):
            let range = try string()
            return .string(start: range.start, end: range.end, escaped: range.escaped)
        case UInt8(ascii: "t"): try literal("true"); return .boolean(true)
        case UInt8(ascii: "f"): try literal("false"); return .boolean(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw unexpected("a value")
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw unexpected("'\(word)'") }
        for i in 0..<count where bytes[position + i] != word.utf8Start[i] { throw unexpected("'\(word)'") }
        position += count
    }

    /// A number as RFC 8259 writes it: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func number() throws -> JSONLineReader.Value {
        let start = position
        _ = take(UInt8(ascii: "-"))
        if take(UInt8(ascii: "0")) {
        } else if digits() == 0 {
            throw unexpected("a digit")
        }
        if take(UInt8(ascii: ".")), digits() == 0 { throw unexpected("a digit after the decimal point") }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
            if digits() == 0 { throw unexpected("a digit in the exponent") }
        }
        return .number(start: start, end: position)
    }

    private mutating func digits() -> Int {
        let start = position
        while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 { position += 1 }
        return position - start
    }

    /// A string from its opening quote; checks escapes and refuses raw control characters.
    mutating func string() throws -> StringRange {
        guard take(UInt8(ascii: "\"")) else { throw unexpected("'\"'") }
        let start = position
        var escaped = false
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return StringRange(start: start, end: position - 1, escaped: escaped)
            }
            if byte < 0x20 {
                throw JSONLineReader.Failure(reason: "a control character (byte \(byte)) inside a string at byte \(position + 1)")
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                position += 1
                guard position < bytes.count else { break }
                switch bytes[position] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 1
                case UInt8(ascii: "u"):
                    guard position + 4 < bytes.count, (1...4).allSatisfy({ Self.hex(bytes[position + $0]) != nil }) else {
                        throw JSONLineReader.Failure(reason: "a \\u escape without four hex digits at byte \(position)")
                    }
                    position += 5
                default:
                    throw JSONLineReader.Failure(reason: "an unknown escape \\\(Excerpt.quoted([bytes[position]], mark: "")) at byte \(position)")
                }
                continue
            }
            position += 1
        }
        throw JSONLineReader.Failure(reason: "the line ends inside a string")
    }

    /// A member's name and the colon after it, blanks around them skipped.
    mutating func memberName() throws -> StringRange {
        skipBlanks()
        let name = try string()
        skipBlanks()
        guard take(UInt8(ascii: ":")) else { throw unexpected("':' after a member name") }
        skipBlanks()
        return name
    }

    /// Whether a string's content equals `name`, escapes undone.
    func equals(_ range: StringRange, _ name: [UInt8]) -> Bool {
        let content = UnsafeBufferPointer(rebasing: bytes[range.start..<range.end])
        guard range.escaped else { return content.elementsEqual(name) }
        var decoded: [UInt8] = []
        Self.unescape(content, into: &decoded)
        return decoded == name
    }

    static func hex(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// The escapes that stand for control characters: `\b`, `\f`, `\n`, `\r`, `\t`.
    private static let controlEscapes: [UInt8: UInt8] = Dictionary(uniqueKeysWithValues: zip(Array("bfnrt".utf8), [8, 12, 10, 13, 9]))

    /// Undoes the escapes of string content already checked by `string()`; a lone surrogate becomes U+FFFD.
    static func unescape(_ content: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        var i = 0
        func code(at j: Int) -> UInt32 {
            (1...4).reduce(0) { $0 << 4 | (hex(content[j + $1]) ?? 0) }
        }
        while i < content.count {
            let byte = content[i]
            guard byte == UInt8(ascii: "\\"), i + 1 < content.count else {
                out.append(byte)
                i += 1
                continue
            }
            let kind = content[i + 1]
            i += 2
            if let control = controlEscapes[kind] {
                out.append(control)
                continue
            }
            switch kind {
            case UInt8(ascii: "u"):
                guard i + 3 < content.count else { return }
                var scalar = code(at: i - 1)
                i += 4
                if (0xD800..<0xDC00).contains(scalar), i + 5 < content.count, content[i] == UInt8(ascii: "\\"),
                   content[i + 1] == UInt8(ascii: "u") {
                    let low = code(at: i + 1)
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                }
                out.append(contentsOf: Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8))
            default: out.append(kind)
            }
        }
    }
}
