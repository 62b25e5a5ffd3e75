/// Just enough of Swift's lexical structure to read a manifest and a file's imports: where comments and
/// string literals are, and where a list splits at its top-level commas.
enum SwiftText {
    /// What the scanner is inside of at some point of a text.
    enum State: Equatable {
        case code
        /// A `//` comment, up to the end of its line.
        case lineComment
        /// A `/* … */` comment, which nests.
        case blockComment(depth: Int)
        case string
        case multilineString
    }

    /// `text` with its comments replaced by spaces (newlines kept), so that lines keep their numbers and
    /// nothing commented out is taken for code. String literals are kept as they are.
    static func withoutComments(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        scan(text) { byte, state in
            switch state {
            case .lineComment, .blockComment: out.append(byte == newline ? byte : space)
            case .code, .string, .multilineString: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// For each line of `text`, whether it starts in code, rather than inside a block comment or a
    /// multi-line string literal.
    static func lineStartsInCode(_ text: String) -> [Bool] {
        var starts = [true]
        var previous = space
        scan(text) { byte, state in
            if previous == newline { starts.append(state == .code) }
            previous = byte
        }
        if previous == newline { starts.append(true) }
        return starts
    }

    private static let newline = UInt8(ascii: "\n"), space = UInt8(ascii: " "), quote = UInt8(ascii: "\"")
    private static let slash = UInt8(ascii: "/"), star = UInt8(ascii: "*"), backslash = UInt8(ascii: "\\")

    /// Calls `visit` with every UTF-8 byte of `text` and what it belongs to: comment bytes (the delimiters
    /// included) as comment, string bytes (the quotes included) as string.
    static func scan(_ text: String, _ visit: (UInt8, State) -> Void) {
        let bytes = Array(text.utf8)
        var state = State.code
        var i = 0
        func at(_ index: Int) -> UInt8 { index < bytes.count ? bytes[index] : 0 }
        func isTripleQuote(_ index: Int) -> Bool { at(index) == quote && at(index + 1) == quote && at(index + 2) == quote }
        func emit(_ count: Int, as belongs: State) {
            for k in 0..<count where i + k < bytes.count { visit(bytes[i + k], belongs) }
            i += count
        }
        while i < bytes.count {
            let c = bytes[i]
            switch state {
            case .code:
                if c == slash, at(i + 1) == slash {
                    while i < bytes.count, bytes[i] != newline { emit(1, as: .lineComment) }
                } else if c == slash, at(i + 1) == star {
                    emit(2, as: .blockComment(depth: 1)); state = .blockComment(depth: 1)
                } else if isTripleQuote(i) {
                    emit(3, as: .multilineString); state = .multilineString
                } else if c == quote {
                    emit(1, as: .string); state = .string
                } else {
                    emit(1, as: .code)
                }
            case .lineComment:
                state = .code
            case .blockComment(let depth):
                if c == star, at(i + 1) == slash {
                    emit(2, as: state); state = depth == 1 ? .code : .blockComment(depth: depth - 1)
                } else if c == slash, at(i + 1) == star {
                    emit(2, as: state); state = .blockComment(depth: depth + 1)
                } else {
                    emit(1, as: state)
                }
            case .string:
                if c == backslash { emit(2, as: .string) }
                else if c == quote || c == newline { emit(1, as: .string); state = .code }
                else { emit(1, as: .string) }
            case .multilineString:
                if c == backslash { emit(2, as: .multilineString) }
                else if isTripleQuote(i) { emit(3, as: .multilineString); state = .code }
                else { emit(1, as: .multilineString) }
            }
        }
    }

    /// The items of a comma-separated list, split only at commas outside brackets, parentheses, braces and
    /// string literals; each item trimmed, empty items (a trailing comma) left out. Expects comment-free text.
    static func topLevelItems(_ text: Substring) -> [Substring] {
        var items: [Substring] = []
        var depth = 0
        var inString = false
        var escaped = false
        var start = text.startIndex
        for index in text.indices {
            let c = text[index]
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
                continue
            }
            switch c {
            case "\"": inString = true
            case "(", "[", "{": depth += 1
            case ")", "]", "}": depth -= 1
            case "," where depth == 0:
                items.append(text[start..<index])
                start = text.index(after: index)
            default: break
            }
        }
        items.append(text[start...])
        return items.map(trimmed).filter { !$0.isEmpty }
    }

    /// The text inside the brackets that open at `open` (a `(` or `[`), or `nil` if they never close.
    static func bracketed(_ text: Substring, from open: Substring.Index) -> Substring? {
        var depth = 0
        var inString = false
        var escaped = false
        var index = open
        while index < text.endIndex {
            let c = text[index]
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
            } else if c == "\"" {
                inString = true
            } else if c == "(" || c == "[" || c == "{" {
                depth += 1
            } else if c == ")" || c == "]" || c == "}" {
                depth -= 1
                if depth == 0 { return text[text.index(after: open)..<index] }
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// The value of a plain string literal such as `"Storage"`, or `nil` if `text` is anything else.
    static func stringLiteral(_ text: Substring) -> String? {
        let t = trimmed(text)
        guard t.count >= 2, t.first == "\"", t.last == "\"" else { return nil }
        let inner = t.dropFirst().dropLast()
        guard !inner.contains("\""), !inner.contains("\\") else { return nil }
        return String(inner)
    }

    static func trimmed(_ text: Substring) -> Substring {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }),
              let last = text.lastIndex(where: { !$0.isWhitespace }) else { return text[text.endIndex...] }
        return text[first...last]
    }

    static func isIdentifier(_ text: Substring) -> Bool {
        guard let first = text.first, first == "_" || first.isLetter else { return false }
        return text.allSatisfy { $0 == "_" || $0.isLetter || $0.isNumber }
    }
}
