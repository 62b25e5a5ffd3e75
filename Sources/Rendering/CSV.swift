/// One CSV cell; numbers are typed so that they are never mistaken for formulas or altered.
public enum CSVField: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    case decimal(Double)
    case null
}

/// Why `CSVTable.parse` rejected its input; `record` counts from 1 and includes the header.
public enum CSVParseError: Error, Equatable, Sendable {
    case unterminatedQuote(record: Int)
    case quoteInsideUnquotedField(record: Int)
    case textAfterClosingQuote(record: Int)
}

/// A header and rows encoded as RFC 4180 CSV: CRLF line endings, UTF-8, every record newline-terminated.
public struct CSVTable: Sendable, Equatable {
    public var header: [String]
    /// Rows are written as given; keeping them as wide as the header is the caller's job.
    public var rows: [[CSVField]]

    public init(header: [String], rows: [[CSVField]] = []) {
        self.header = header
        self.rows = rows
    }

    /// The table as CSV text, every text as it is (tidy CSV that joins with the database, as pandas
    /// and R read it). `neutralizeFormulas` prefixes `'` to the text cells a spreadsheet would run
    /// as a formula (see `readsAsFormula`), for files meant to be opened in a spreadsheet.
    public func encoded(neutralizeFormulas: Bool = false) -> String {
        var out = ""
        out += header.map { Self.encode(.text($0), neutralizeFormulas: neutralizeFormulas) }.joined(separator: ",") + "\r\n"
        for row in rows {
            out += row.map { Self.encode($0, neutralizeFormulas: neutralizeFormulas) }.joined(separator: ",") + "\r\n"
        }
        return out
    }

    /// The text of a single field exactly as it appears between separators.
    public static func encode(_ field: CSVField, neutralizeFormulas: Bool = false) -> String {
        switch field {
        case .text(let text): return encodeText(text, neutralizeFormulas: neutralizeFormulas)
        case .integer(let value): return String(value)
        case .decimal(let value): return NumberText.real(value) ?? ""
        case .null: return ""
        }
    }

    /// Spreadsheets start a formula at these whatever follows.
    private static let formulaLeaders: Set<Unicode.Scalar> = ["=", "@", "\t", "\r"]

    /// Whether a spreadsheet would run `text` as a formula: it starts with `=`, `@`, a tab or a
    /// carriage return, or with `+` or `-` followed by anything but a plain number (`-2+3`,
    /// `+SUM(A1)`, `-3 days`). A signed number such as `-1` or `+2.5`, a lone sign and all other text
    /// stay as they are, so they still join with the database.
    public static func readsAsFormula(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first else { return false }
        if formulaLeaders.contains(first) { return true }
        guard first == "+" || first == "-" else { return false }
        let rest = text.unicodeScalars.dropFirst()
        if rest.allSatisfy({ $0 == " " }) { return false }
        return !isPlainNumber(String(String.UnicodeScalarView(rest)))
    }

    /// Digits with at most one decimal point and an optional exponent: what a spreadsheet reads as a number.
    private static func isPlainNumber(_ text: String) -> Bool {
        var digits = 0, dots = 0, sawExponent = false, exponentDigits = 0
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            let afterExponent = previous == "e" || previous == "E"
            if ("0"..."9").contains(scalar) {
                if sawExponent { exponentDigits += 1 } else { digits += 1 }
            } else if scalar == "." && !sawExponent {
                dots += 1
            } else if (scalar == "e" || scalar == "E") && !sawExponent && digits > 0 {
                sawExponent = true
            } else if !((scalar == "+" || scalar == "-") && afterExponent) {
                return false
            }
            previous = scalar
        }
        return digits > 0 && dots <= 1 && (!sawExponent || exponentDigits > 0)
    }

    private static func encodeText(_ text: String, neutralizeFormulas: Bool) -> String {
        let neutralized = neutralizeFormulas && readsAsFormula(text)
        // Bytes, not Characters: "\r\n" or a quote followed by a combining mark is one Character, and
        // these four are ASCII, which UTF-8 never uses inside another character.
        let (comma, quote, cr, lf) = (UInt8(ascii: ","), UInt8(ascii: "\""), UInt8(ascii: "\r"), UInt8(ascii: "\n"))
        let needsQuotes = text.utf8.contains { $0 == comma || $0 == quote || $0 == cr || $0 == lf }
        guard needsQuotes else { return neutralized ? "'" + text : text }
        var quoted: [UInt8] = [quote]
        quoted.reserveCapacity(text.utf8.count + 4)
        if neutralized { quoted.append(UInt8(ascii: "'")) }
        for byte in text.utf8 {
            quoted.append(byte)
            if byte == quote { quoted.append(quote) }
        }
        quoted.append(quote)
        return String(decoding: quoted, as: UTF8.self)
    }

    /// Splits RFC 4180 text (CRLF, LF or CR line breaks) into records, header included; a final line break is optional.
    public static func parse(_ text: String) throws -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = String.UnicodeScalarView()
        var quoted = false
        var inQuotes = false
        var closed = false
        let scalars = Array(text.unicodeScalars)

        func endField() {
            record.append(String(field))
            field = String.UnicodeScalarView()
            quoted = false
            closed = false
        }

        var i = 0
        while i < scalars.count {
            let scalar = scalars[i]
            i += 1
            if inQuotes {
                if scalar != "\"" {
                    field.append(scalar)
                } else if i < scalars.count, scalars[i] == "\"" {
                    field.append(scalar)
                    i += 1
                } else {
                    inQuotes = false
                    closed = true
                }
                continue
            }
            switch scalar {
            case ",":
                endField()
            case "\r", "\n":
                endField()
                records.append(record)
                record = []
                if scalar == "\r", i < scalars.count, scalars[i] == "\n" { i += 1 }
            case "\"":
                if closed { throw CSVParseError.textAfterClosingQuote(record: records.count + 1) }
                guard field.isEmpty else { throw CSVParseError.quoteInsideUnquotedField(record: records.count + 1) }
                inQuotes = true
                quoted = true
            default:
                if closed { throw CSVParseError.textAfterClosingQuote(record: records.count + 1) }
                field.append(scalar)
            }
        }
        if inQuotes { throw CSVParseError.unterminatedQuote(record: records.count + 1) }
        if !record.isEmpty || !field.isEmpty || quoted {
            endField()
            records.append(record)
        }
        return records
    }
}
