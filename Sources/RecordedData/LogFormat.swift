/// How a visit log file is laid out and how its events become visits.
public struct LogFormat: Sendable, Equatable {
    /// What separates fields on a line.
    public enum Delimiter: Sendable, Equatable {
        /// RFC 4180 CSV: quoted fields may contain commas and doubled quotes.
        case comma
        /// Tab-separated; no quoting.
        case tab
        /// Runs of spaces and tabs; leading and trailing blanks are ignored; no quoting.
        case whitespace
        /// Any single ASCII character, with the same quoting rules as `comma` (e.g. `;` in European CSV).
        case character(Character)
        /// Not delimited: each line is one JSON object, and columns are fields named by dotted paths
        /// (`properties.distinct_id`).
        case jsonLines
    }

    /// A column picked by its header name or by 0-based position.
    public enum Column: Sendable, Equatable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
        case name(String)
        case position(Int)

        public init(stringLiteral value: String) { self = .name(value) }
        public init(integerLiteral value: Int) { self = .position(value) }
    }

    /// One of several layouts a file may have, told apart by the number of fields of its rows.
    public struct Layout: Sendable, Equatable {
        public var fieldCount: Int
        public var timeColumn: Int
        /// What the columns are, for the import's summary.
        public var name: String

        public init(fieldCount: Int, timeColumn: Int, name: String) {
            self.fieldCount = fieldCount
            self.timeColumn = timeColumn
            self.name = name
        }
    }

    public var delimiter: Delimiter
    /// true: the first non-blank line is a header; false: there is none; nil: the first line is a header
    /// only if it does not read as a data row (columns chosen by name always need a header).
    public var hasHeader: Bool?
    public var userColumn: Column
    public var timeColumn: Column
    public var timestamp: TimestampFormat
    /// Offset from UTC, in seconds, for timestamps that carry no zone of their own.
    public var defaultUTCOffsetSeconds: Int
    /// When set, each distinct session id of a user is one visit, whatever the gaps.
    public var sessionColumn: Column?
    public var eventTypeColumn: Column?
    /// Event types to keep; `nil` keeps every row. Only read when `eventTypeColumn` is set.
    public var keptEventTypes: Set<String>?
    /// Event types to drop, after `keptEventTypes`. Only read when `eventTypeColumn` is set.
    public var excludedEventTypes: Set<String>?
    /// A column giving each event's offset from UTC in seconds (e.g. `device.time_zone_offset_seconds`);
    /// an empty or null value means the event's offset is unknown.
    public var utcOffsetColumn: Column?
    /// Events of one user closer than this collapse into one visit (no session column, no day grouping).
    public var sessionGapMinutes: Double
    /// Day resolution: all events of one user on one calendar day (in the default offset) are one visit,
    /// dated at the start of that day. Ignored when `sessionColumn` is set.
    public var visitsByCalendarDay: Bool
    /// When set, the first row's field count picks the layout, and so the time column; rows with another
    /// count are bad rows. `timeColumn` is then ignored.
    public var layouts: [Layout]?

    public init(
        delimiter: Delimiter = .comma,
        hasHeader: Bool? = nil,
        userColumn: Column,
        timeColumn: Column,
        timestamp: TimestampFormat = .iso8601,
        defaultUTCOffsetSeconds: Int = 0,
        sessionColumn: Column? = nil,
        eventTypeColumn: Column? = nil,
        keptEventTypes: Set<String>? = nil,
        excludedEventTypes: Set<String>? = nil,
        utcOffsetColumn: Column? = nil,
        sessionGapMinutes: Double = 30,
        visitsByCalendarDay: Bool = false,
        layouts: [Layout]? = nil
    ) {
        self.delimiter = delimiter
        self.hasHeader = hasHeader
        self.userColumn = userColumn
        self.timeColumn = timeColumn
        self.timestamp = timestamp
        self.defaultUTCOffsetSeconds = defaultUTCOffsetSeconds
        self.sessionColumn = sessionColumn
        self.eventTypeColumn = eventTypeColumn
        self.keptEventTypes = keptEventTypes
        self.excludedEventTypes = excludedEventTypes
        self.utcOffsetColumn = utcOffsetColumn
        self.sessionGapMinutes = sessionGapMinutes
        self.visitsByCalendarDay = visitsByCalendarDay
        self.layouts = layouts
    }

    /// CDNOW purchase logs (Fader, Hardie & Lee 2005), whitespace-separated with dates as `yyyyMMdd`, in
    /// either of the two layouts that circulate: the master file (`customer_id date number_of_cds
    /// dollar_value`) or the five-column one with a second id before the date (as in the 1/10 sample).
    /// Several purchases on one day are one visit. A header line is optional.
    public static let cdnow = LogFormat(
        delimiter: .whitespace,
        hasHeader: nil,
        userColumn: 0,
        timeColumn: 1,
        timestamp: .compactDate,
        visitsByCalendarDay: true,
        layouts: [
            Layout(fieldCount: 4, timeColumn: 1, name: "CDNOW master layout (customer id, date, CDs, dollars)"),
            Layout(fieldCount: 5, timeColumn: 2,
                   name: "CDNOW five-column layout (customer id, second id, date, CDs, dollars)"),
        ]
    )
}

/// How the time column is written.
public enum TimestampFormat: Sendable, Equatable {
    /// ISO 8601 extended format: `2024-03-01`, `2024-03-01T10:00`, `2024-03-01T10:00:00.250+02:00`, `…Z`;
    /// a space may replace the `T`; without a zone the default UTC offset applies.
    case iso8601
    /// `yyyy-MM-dd HH:mm:ss` in the default UTC offset.
    case dateTime
    /// `yyyyMMdd` in the default UTC offset.
    case compactDate
    /// Seconds since 1970-01-01 UTC, optionally with a fraction.
    case epochSeconds
    /// Milliseconds since 1970-01-01 UTC.
    case epochMilliseconds
    /// Microseconds since 1970-01-01 UTC, as GA4 and Firebase export `event_timestamp`.
    case epochMicroseconds
    /// Fixed-width tokens `yyyy MM dd HH mm ss SSS`; any other non-letter, or text in single quotes, is literal.
    case custom(String)

    /// Parses one timestamp outside an import, e.g. to build an observation end; `nil` if it does not match.
    public func seconds(from text: String, defaultUTCOffsetSeconds: Int = 0) throws(ImportError) -> Double? {
        let parser = try TimestampParser(self, defaultUTCOffsetSeconds: defaultUTCOffsetSeconds)
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBufferPointer { parser.parse(UnsafeBufferPointer($0)) }
    }

    var displayName: String {
        switch self {
        case .iso8601: return "ISO 8601"
        case .dateTime: return "yyyy-MM-dd HH:mm:ss"
        case .compactDate: return "yyyyMMdd"
        case .epochSeconds: return "epoch seconds"
        case .epochMilliseconds: return "epoch milliseconds"
        case .epochMicroseconds: return "epoch microseconds"
        case .custom(let pattern): return "'\(pattern)'"
        }
    }
}

/// What to do with a row that cannot be read.
public enum BadRowPolicy: Sendable, Equatable {
    /// Throw an `ImportIssue` at the first bad row.
    case stop
    /// Count and skip bad rows, keeping the first few as examples.
    case skip
}
