/// One `import` declaration of a Swift file.
struct ImportLine: Equatable {
    /// The imported module: `Foundation` for `import struct Foundation.Date`.
    var module: String
    /// The line's number, from 1.
    var line: Int
}

enum ImportLines {
    static let accessModifiers: Set<Substring> = ["public", "package", "internal", "fileprivate", "private", "open"]
    static let declarationKinds: Set<Substring> = ["typealias", "struct", "class", "enum", "protocol", "let", "var", "func"]

    /// The imports of a Swift file: every line that starts in code (not in a comment or a multi-line
    /// string) and declares an import, with attributes such as `@testable` or `@preconcurrency`, an access
    /// level or a declaration kind. Imports inside `#if` blocks count: the file may import them.
    static func imports(in text: String) -> [ImportLine] {
        let code = SwiftText.withoutComments(text)
        let lines = code.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        let starts = SwiftText.lineStartsInCode(text)
        var found: [ImportLine] = []
        for (index, line) in lines.enumerated() where index < starts.count && starts[index] {
            if let module = importedModule(line) { found.append(ImportLine(module: module, line: index + 1)) }
        }
        return found
    }

    /// The module imported by one line of comment-free code, or `nil` if the line is no import.
    static func importedModule(_ line: Substring) -> String? {
        var rest = line.drop { $0.isWhitespace }
        while rest.first == "@" {
            rest = rest.dropFirst().drop { $0 == "_" || $0.isLetter || $0.isNumber }
            if rest.first == "(" {
                guard let inside = SwiftText.bracketed(rest, from: rest.startIndex) else { return nil }
                rest = rest[rest.index(after: inside.endIndex)...]
            }
            rest = rest.drop { $0.isWhitespace }
        }
        var word = nextWord(&rest)
        if accessModifiers.contains(word), rest.first?.isWhitespace == true {
            rest = rest.drop { $0.isWhitespace }
            word = nextWord(&rest)
        }
        guard word == "import", rest.first?.isWhitespace == true else { return nil }
        rest = rest.drop { $0.isWhitespace }
        var module = nextWord(&rest)
        if declarationKinds.contains(module), rest.first?.isWhitespace == true {
            rest = rest.drop { $0.isWhitespace }
            module = nextWord(&rest)
        }
        return module.isEmpty ? nil : String(module)
    }

    /// The identifier at the start of `text`, removed from it.
    private static func nextWord(_ text: inout Substring) -> Substring {
        let word = text.prefix { $0 == "_" || $0.isLetter || $0.isNumber }
        text = text[word.endIndex...]
        return word
    }
}
