/// Splits one line into field byte ranges without allocating per field.
struct FieldSplitter {
    /// Runs of blanks, or one separator byte with optional RFC 4180 quoting.
    enum Mode {
        case whitespace
        case separator(UInt8, quoting: Bool)
    }

    /// A field's bytes within the line; `escaped` marks quoted content holding doubled quotes.
    struct Field {
        var start: Int
        var end: Int
        var escaped: Bool
    }

    /// Why a line breaks the quoting rules.
    enum Failure {
        case unclosedQuote(field: Int)
        case textAfterQuote(field: Int)
        case tooManyFields

        var reason: String {
            switch self {
            case .unclosedQuote(let field):
                return "quoted field \(field) is not closed on this line"
                    + " (line breaks inside quoted fields are not supported in logs)"
            case .textAfterQuote(let field):
                return "unexpected character after the closing quote of field \(field)"
            case .tooManyFields:
                return "more than \(FieldSplitter.maximumFields) fields (a log's columns are at positions 0 to "
                    + "\(FieldSplitter.maximumFields - 1))"
            }
        }
    }

    let mode: Mode
    private(set) var fields: [Field] = []

    init(_ delimiter: LogFormat.Delimiter) throws(ImportError) {
        switch delimiter {
        case .comma: mode = .separator(UInt8(ascii: ","), quoting: true)
        case .tab: mode = .separator(UInt8(ascii: "\t"), quoting: false)
        case .whitespace: mode = .whitespace
        // JSON lines are read by `JSONLineReader`; the splitter is never asked to split them.
        case .jsonLines: mode = .whitespace
        case .character(let c):
            guard let byte = c.asciiValue, c != "\"", c != "\n", c != "\r" else {
                throw .invalidFormat("delimiter \(Excerpt.quoted(String(c))) must be a single ASCII character other than a quote or line break")
            }
            mode = .separator(byte, quoting: true)
        }
    }

    var count: Int { fields.count }

    /// The most fields a line may have: a column may be at positions 0 to 10,000. A line of more (a
    /// line of commas) is refused as it is split, so its fields take no more memory than that.
    static let maximumFields = 10_001

    /// Fills `fields` for `line`; returns a failure when the line breaks the quoting rules.
    mutating func split(_ line: UnsafeBufferPointer<UInt8>) -> Failure? {
        fields.removeAll(keepingCapacity: true)
        let n = line.count
        switch mode {
        case .whitespace:
            var i = 0
            while i < n {
                while i < n, isBlank(line[i]) { i += 1 }
                guard i < n else { break }
                let start = i
                while i < n, !isBlank(line[i]) { i += 1 }
                guard fields.count < Self.maximumFields else { return .tooManyFields }
                fields.append(Field(start: start, end: i, escaped: false))
            }
        case let .separator(separator, quoting):
            let quote = UInt8(ascii: "\"")
            var i = 0
            while true {
                if quoting, i < n, line[i] == quote {
                    var j = i + 1
                    var escaped = false
                    while j < n {
                        if line[j] == quote {
                            guard j + 1 < n, line[j + 1] == quote else { break }
                            escaped = true
                            j += 2
                        } else {
                            j += 1
                        }
                    }
                    guard j < n else { return .unclosedQuote(field: fields.count + 1) }
                    guard fields.count < Self.maximumFields else { return .tooManyFields }
                    fields.append(Field(start: i + 1, end: j, escaped: escaped))
                    i = j + 1
                    if i == n { return nil }
                    guard line[i] == separator else { return .textAfterQuote(field: fields.count) }
                    i += 1
                } else {
                    var j = i
                    while j < n, line[j] != separator { j += 1 }
                    guard fields.count < Self.maximumFields else { return .tooManyFields }
                    fields.append(Field(start: i, end: j, escaped: false))
                    if j == n { return nil }
                    i = j + 1
                }
            }
        }
        return nil
    }

    /// Hands the field's content to `body`, trimmed of blanks and with doubled quotes undone.
    static func withContent<R>(
        of field: Field, in line: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> R
    ) rethrows -> R {
        var start = field.start, end = field.end
        while start < end, isBlank(line[start]) { start += 1 }
        while end > start, isBlank(line[end - 1]) { end -= 1 }
        let slice = UnsafeBufferPointer(rebasing: line[start..<end])
        guard field.escaped else { return try body(slice) }
        var unescaped: [UInt8] = []
        var previousWasQuote = false
        for byte in slice {
            if byte == UInt8(ascii: "\""), previousWasQuote {
                previousWasQuote = false
                continue
            }
            previousWasQuote = byte == UInt8(ascii: "\"")
            unescaped.append(byte)
        }
        return try unescaped.withUnsafeBufferPointer(body)
    }

    static func string(of field: Field, in line: UnsafeBufferPointer<UInt8>) -> String {
        withContent(of: field, in: line) { String(decoding: $0, as: UTF8.self) }
    }
}

@inline(__always)
func isBlank(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
}
