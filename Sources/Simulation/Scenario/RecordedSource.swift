import Foundation
import RecordedData

/// A recorded visit log that a segment's returns come from.
public struct RecordedSource: Hashable, Sendable {
    /// The log file; a relative path is relative to the scenario file's folder (the caller that reads it
    /// resolves it).
    public var path: String
    public var format: RecordedFormat
    /// The last day of observation (`YYYY-MM-DD`, inclusive); default: the time of the last event.
    public var observationEnd: String?

    public init(path: String, format: RecordedFormat = .cdnow, observationEnd: String? = nil) {
        self.path = path
        self.format = format
        self.observationEnd = observationEnd
    }
}

/// How a recorded log is laid out.
public enum RecordedFormat: Hashable, Sendable {
    /// The CDNOW master file: whitespace-separated `customer_id date …`, one visit per customer and day.
    case cdnow
    case delimited(DelimitedFormat)
}

/// A delimited event log: one event per line, with a user column and a time column.
public struct DelimitedFormat: Hashable, Sendable, Encodable {
    /// `,`, `\t`, `whitespace`, any other single character, or `jsonl`: one JSON object per line, whose
    /// columns are fields named by dotted paths.
    public var delimiter: String
    /// true: the first line is a header; false: there is none; nil: it is a header only if it does not read as data.
    public var header: Bool?
    public var user: ColumnReference
    public var time: ColumnReference
    /// `iso8601`, `dateTime` (`yyyy-MM-dd HH:mm:ss`), `compactDate` (`yyyyMMdd`), `epochSeconds`,
    /// `epochMilliseconds`, `epochMicroseconds`, or a pattern with `yyyy MM dd HH mm ss` (e.g. `dd/MM/yyyy HH:mm`).
    public var timestamp: String
    /// Offset of timestamps written without a zone, in hours.
    public var utcOffsetHours: Double
    /// A session id column: each distinct id of a user is one visit.
    public var session: ColumnReference?
    /// Without a session column, events closer than this are one visit.
    public var sessionGapMinutes: Double
    /// All events of one user on one calendar day are one visit.
    public var byCalendarDay: Bool
    /// The event type column (e.g. `event_name`).
    public var event: ColumnReference?
    /// Event types kept (nil: all); needs `event`.
    public var events: [String]?
    /// Event types dropped; needs `event`.
    public var excludeEvents: [String]?
    /// A column giving each event's offset from UTC in seconds (e.g. `device.time_zone_offset_seconds`).
    public var utcOffsetField: ColumnReference?

    public init(delimiter: String = ",", header: Bool? = nil, user: ColumnReference, time: ColumnReference,
                timestamp: String = "iso8601", utcOffsetHours: Double = 0, session: ColumnReference? = nil,
                sessionGapMinutes: Double = 30, byCalendarDay: Bool = false, event: ColumnReference? = nil,
                events: [String]? = nil, excludeEvents: [String]? = nil, utcOffsetField: ColumnReference? = nil) {
        self.delimiter = delimiter
        self.header = header
        self.user = user
        self.time = time
        self.timestamp = timestamp
        self.utcOffsetHours = utcOffsetHours
        self.session = session
        self.sessionGapMinutes = sessionGapMinutes
        self.byCalendarDay = byCalendarDay
        self.event = event
        self.events = events
        self.excludeEvents = excludeEvents
        self.utcOffsetField = utcOffsetField
    }

    static let namedTimestamps = ["iso8601", "dateTime", "compactDate", "epochSeconds", "epochMilliseconds", "epochMicroseconds"]

    /// The format checked: nil when usable, otherwise the field at fault and why.
    public func validated() -> Result<Void, ScenarioIssue> {
        logFormat().map { _ in () }
    }

    /// The importer's format, or why it cannot be built.
    func logFormat() -> Result<LogFormat, ScenarioIssue> {
        let d: LogFormat.Delimiter
        switch delimiter {
        case ",": d = .comma
        case "\t", "tab": d = .tab
        case "whitespace": d = .whitespace
        case "jsonl": d = .jsonLines
        default:
            guard delimiter.count == 1, let c = delimiter.first, c.isASCII else {
                return .failure(ScenarioIssue(path: "delimiter", reason: "must be \",\", \"\\t\", \"whitespace\", \"jsonl\" or one ASCII character, got \(ScenarioIssue.quote(delimiter))"))
            }
            d = .character(c)
        }
        let t: TimestampFormat
        switch timestamp {
        case "iso8601": t = .iso8601
        case "dateTime": t = .dateTime
        case "compactDate": t = .compactDate
        case "epochSeconds": t = .epochSeconds
        case "epochMilliseconds": t = .epochMilliseconds
        case "epochMicroseconds": t = .epochMicroseconds
        default:
            guard timestamp.contains("yyyy") else {
                return .failure(ScenarioIssue(
                    path: "timestamp",
                    reason: "must be one of \(Self.namedTimestamps.map { "\"\($0)\"" }.joined(separator: ", ")) or a pattern with yyyy, MM, dd, HH, mm, ss; got \(ScenarioIssue.quote(timestamp))"))
            }
            t = .custom(timestamp)
        }
        if d == .jsonLines {
            let columns: [(String, ColumnReference?)] = [
                ("user", user), ("time", time), ("session", session), ("event", event), ("utcOffsetField", utcOffsetField),
            ]
            for case let (field, .position?) in columns {
                return .failure(ScenarioIssue(path: field, reason: "JSON lines name fields by a dotted path such as properties.distinct_id, not by number"))
            }
        }
        // Each role is a column of its own: the user read as the time (or the session) is no log.
        let roles: [(String, ColumnReference?)] = [
            ("user", user), ("time", time), ("session", session), ("event", event), ("utcOffsetField", utcOffsetField),
        ]
        for (k, (field, reference)) in roles.enumerated() {
            guard let reference else { continue }
            if let (other, _) = roles[..<k].first(where: { $0.1.map { $0.sameColumn(as: reference) } ?? false }) {
                return .failure(ScenarioIssue(path: field, reason: "names the same column as \(other); each needs a column of its own"))
            }
        }
        if event == nil, let listed = events != nil ? "events" : excludeEvents != nil ? "excludeEvents" : nil {
            return .failure(ScenarioIssue(path: listed, reason: "needs the event type column, event"))
        }
        return .success(LogFormat(
            delimiter: d, hasHeader: header, userColumn: user.column, timeColumn: time.column, timestamp: t,
            defaultUTCOffsetSeconds: Int((utcOffsetHours * 3_600).rounded()), sessionColumn: session?.column,
            eventTypeColumn: event?.column, keptEventTypes: events.map(Set.init), excludedEventTypes: excludeEvents.map(Set.init),
            utcOffsetColumn: utcOffsetField?.column, sessionGapMinutes: sessionGapMinutes, visitsByCalendarDay: byCalendarDay))
    }
}

/// A column given by header name (a JSON string) or by 0-based position (a JSON integer).
public enum ColumnReference: Hashable, Sendable, Encodable {
    case name(String)
    case position(Int)

    /// Whether both name the same column: the same position, or names equal but for case and
    /// surrounding blanks (as the header is searched).
    func sameColumn(as other: ColumnReference) -> Bool {
        switch (self, other) {
        case let (.position(a), .position(b)): return a == b
        case let (.name(a), .name(b)):
            return a.trimmingCharacters(in: .whitespaces).caseInsensitiveCompare(b.trimmingCharacters(in: .whitespaces)) == .orderedSame
        default: return false
        }
    }

    var column: LogFormat.Column {
        switch self {
        case let .name(n): return .name(n)
        case let .position(p): return .position(p)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case let .name(n): try c.encode(n)
        case let .position(p): try c.encode(p)
        }
    }
}

extension RecordedSource {
    /// The importer's format (CDNOW for a delimited format that did not pass validation).
    public var logFormat: LogFormat {
        switch format {
        case .cdnow: return .cdnow
        case let .delimited(d): return (try? d.logFormat().get()) ?? .cdnow
        }
    }

    /// The observation end in seconds since 1970: the last second of the given day, so that visits
    /// dated at the start of the next day fall outside.
    public var observationEndSeconds: Double? {
        observationEnd.flatMap(CalendarDate.init(iso:)).map { Double($0.daysSinceEpoch + 1) * 86_400 - 1 }
    }

    func encode(into c: inout KeyedEncodingContainer<ReturnProcess.Keys>) throws {
        try c.encode(path, forKey: .data)
        switch format {
        case .cdnow: try c.encode("cdnow", forKey: .format)
        case let .delimited(d): try c.encode(d, forKey: .format)
        }
        try c.encodeIfPresent(observationEnd, forKey: .observationEnd)
    }
}

extension JSONFieldReader {
    /// `data`, `format` and `observationEnd` of a return process that reads a recorded log.
    mutating func recordedSource(_ o: ObjectFields) -> RecordedSource? {
        let path = field(o, "data", Self.string)
        if path == "" { fail(o.path("data"), "must not be empty") }
        let format = field(o, "format", default: RecordedFormat.cdnow) { r, j, p -> RecordedFormat? in
            if case let .string(s) = j {
                guard s == "cdnow" else {
                    r.fail(p, "expected \"cdnow\" or an object describing the columns, got \(ScenarioIssue.quote(s))")
                    return nil
                }
                return .cdnow
            }
            return r.delimitedFormat(j, at: p).map { .delimited($0) }
        }
        let end = optionalField(o, "observationEnd", Self.string)
        if case let .some(.some(day)) = end, CalendarDate(iso: day) == nil {
            fail(o.path("observationEnd"), "must be a date YYYY-MM-DD, got \(ScenarioIssue.quote(day))")
        }
        guard let path, let format, let end else { return nil }
        return RecordedSource(path: path, format: format, observationEnd: end)
    }

    mutating func delimitedFormat(_ json: JSON, at path: String) -> DelimitedFormat? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let column: (inout JSONFieldReader, JSON, String) -> ColumnReference? = { r, j, p in
            switch j {
            case let .string(s) where !s.isEmpty: return .name(s)
            case .number:
                return r.integer(j, at: p, .within(0...10_000)).map { .position($0) }
            default:
                r.fail(p, "expected a column name or a 0-based column number, got \(j.typeName)")
                return nil
            }
        }
        let delimiter = field(o, "delimiter", default: ",", Self.string)
        let header = optionalField(o, "header", Self.bool)
        let user = field(o, "user", column)
        let time = field(o, "time", column)
        let timestamp = field(o, "timestamp", default: "iso8601", Self.string)
        let offset = field(o, "utcOffsetHours", default: 0, Self.number(.within(-12...14)))
        let session = optionalField(o, "session", column)
        let gap = field(o, "sessionGapMinutes", default: 30, Self.number(.positiveUpTo(1e6)))
        let byDay = field(o, "byCalendarDay", default: false, Self.bool)
        let event = optionalField(o, "event", column)
        let names: (inout JSONFieldReader, JSON, String) -> [String]? = { r, j, p in r.list(j, at: p, nonEmpty: true, Self.string) }
        let events = optionalField(o, "events", names), excluded = optionalField(o, "excludeEvents", names)
        let offsetField = optionalField(o, "utcOffsetField", column)
        guard let delimiter, let header, let user, let time, let timestamp, let offset, let session, let gap, let byDay,
              let event, let events, let excluded, let offsetField
        else { return nil }
        let format = DelimitedFormat(
            delimiter: delimiter, header: header, user: user, time: time, timestamp: timestamp, utcOffsetHours: offset,
            session: session, sessionGapMinutes: gap, byCalendarDay: byDay, event: event, events: events,
            excludeEvents: excluded, utcOffsetField: offsetField)
        if case let .failure(issue) = format.logFormat() {
            fail(o.path(issue.path), issue.reason)
            return nil
        }
        if header == .some(false), case .name = user { fail(o.path("user"), "a file without a header needs column numbers") }
        if header == .some(false), case .name = time { fail(o.path("time"), "a file without a header needs column numbers") }
        return format
    }
}
