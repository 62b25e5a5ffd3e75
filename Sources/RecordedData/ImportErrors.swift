/// One row that could not be read: thrown under `.stop`, collected as an example under `.skip`.
public struct ImportIssue: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based, counting the header and blank lines, so it matches what an editor shows.
    public let line: Int
    public let reason: String
    public let file: String
    /// The column involved, e.g. `date (field 2)`, when the problem is in one field.
    public let column: String?

    public init(line: Int, reason: String, file: String = "", column: String? = nil) {
        self.line = line
        self.reason = reason
        self.file = file
        self.column = column
    }

    /// The same problem with the file `path` named `name` in its message (standard input read from
    /// its device file, named as the command line names it).
    func naming(_ path: String, as name: String) -> ImportIssue {
        ImportIssue(line: line, reason: reason, file: ImportError.renamed(file, path, name), column: column)
    }

    public var description: String {
        let place = file.isEmpty ? "line \(line)" : "\(file):\(line)"
        return column.map { "\(place): column \($0): \(reason)" } ?? "\(place): \(reason)"
    }
}

/// A problem with the file or the format as a whole, rather than with one row.
public enum ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotRead(file: String, reason: String)
    /// A gzip file whose compressed data is damaged or cut short.
    case corruptCompression(file: String, reason: String)
    /// The file has no non-blank line at all.
    case emptyFile(file: String, jsonLines: Bool = false)
    /// The file was read but no row became an event (header only, everything skipped or filtered out).
    case noEvents(file: String, rows: Int, skipped: Int, filtered: Int)
    /// Every visit is an outlier (see `OutlierReport.rule`), so none is left once they are left out.
    case onlyOutliers(file: String, visits: Int, bounds: ClosedRange<Double>)
    case missingColumn(file: String, name: String, header: [String])
    /// The header names the column asked for more than once.
    case ambiguousColumn(file: String, name: String, positions: [Int])
    case columnOutOfRange(file: String, position: Int, fieldCount: Int)
    /// The file has no line feed but carriage returns: its lines end in CR only, as on the classic Mac OS.
    case carriageReturnLines(file: String)
    /// The file is UTF-16 text, which the readers (UTF-8, as logs are) would see as fields full of NULs.
    case utf16(file: String)
    case utf32(file: String)
    /// The format itself is unusable (unknown pattern token, non-ASCII delimiter, named column without header…).
    case invalidFormat(String)

    /// `file` with the path `path` at its start (alone, or before a ZIP entry's name) named `name`.
    static func renamed(_ file: String, _ path: String, _ name: String) -> String {
        if file == path { return name }
        return file.hasPrefix(path + " entry ") ? name + file.dropFirst(path.count) : file
    }

    /// The same problem with the file `path` named `name` in its message.
    func naming(_ path: String, as name: String) -> ImportError {
        let n = { (file: String) in Self.renamed(file, path, name) }
        switch self {
        case let .cannotRead(file, reason): return .cannotRead(file: n(file), reason: reason)
        case let .corruptCompression(file, reason): return .corruptCompression(file: n(file), reason: reason)
        case let .emptyFile(file, jsonLines): return .emptyFile(file: n(file), jsonLines: jsonLines)
        case let .noEvents(file, rows, skipped, filtered):
            return .noEvents(file: n(file), rows: rows, skipped: skipped, filtered: filtered)
        case let .onlyOutliers(file, visits, bounds): return .onlyOutliers(file: n(file), visits: visits, bounds: bounds)
        case let .missingColumn(file, column, header): return .missingColumn(file: n(file), name: column, header: header)
        case let .ambiguousColumn(file, column, positions):
            return .ambiguousColumn(file: n(file), name: column, positions: positions)
        case let .columnOutOfRange(file, position, fieldCount):
            return .columnOutOfRange(file: n(file), position: position, fieldCount: fieldCount)
        case let .carriageReturnLines(file): return .carriageReturnLines(file: n(file))
        case let .utf16(file): return .utf16(file: n(file))
        case let .utf32(file): return .utf32(file: n(file))
        case .invalidFormat: return self
        }
    }

    public var description: String {
        switch self {
        case let .cannotRead(file, reason):
            return "cannot read \(file): \(reason)"
        case let .corruptCompression(file, reason):
            return "\(file): cannot decompress: \(reason)"
        case let .emptyFile(file, jsonLines):
            return jsonLines ? "\(file) is empty: it holds no JSON line" : "\(file) is empty: there is not even a header line"
        case let .noEvents(file, rows, skipped, filtered):
            return "\(file) holds no usable events (\(rows) data rows, \(skipped) skipped as bad, \(filtered) filtered out by event type)"
        case let .onlyOutliers(file, visits, bounds):
            return "\(file): " + (visits == 1 ? "its only visit is an outlier" : "all \(visits) visits are outliers")
                + ", outside \(CivilTime.isoString(bounds.lowerBound)) to "
                + "\(CivilTime.isoString(bounds.upperBound)) (an outlier is \(OutlierReport.rule)); "
                + "outliers are left out, unless kept with --keep-outliers of import and fit"
        case let .missingColumn(file, name, header):
            // The header comes from the file: shown escaped and shortened, never as raw bytes.
            let columns = header.prefix(20).map { Excerpt.name($0) }.joined(separator: ", ") + (header.count > 20 ? ", …" : "")
            return "\(file): no column named \(Excerpt.quoted(name)) in the header (columns: \(columns))"
        case let .ambiguousColumn(file, name, positions):
            return "\(file): the header has \(positions.count) columns named \(Excerpt.quoted(name)) (positions "
                + positions.prefix(10).map(String.init).joined(separator: ", ") + (positions.count > 10 ? ", …" : "")
                + "); choose one by its position (0 is the first)"
        case let .columnOutOfRange(file, position, fieldCount):
            return "\(file): column position \(position) does not exist, the header has \(fieldCount) field\(fieldCount == 1 ? "" : "s")"
        case let .carriageReturnLines(file):
            return "\(file): the file's lines end in CR only; convert them to LF or CRLF (e.g. tr '\\r' '\\n')"
        case let .utf16(file):
            return "\(file): the file is UTF-16 text; convert it to UTF-8 (e.g. iconv -f UTF-16 -t UTF-8)"
        case let .utf32(file):
            return "\(file): the file is UTF-32 text; convert it to UTF-8 (e.g. iconv -f UTF-32 -t UTF-8)"
        case let .invalidFormat(message):
            return "invalid log format: \(message)"
        }
    }
}
