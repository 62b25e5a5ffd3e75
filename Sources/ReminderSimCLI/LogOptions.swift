import Console
import Foundation
import Reporting
import RecordedData
import ScenarioData
import Simulation

/// The command-line options that describe a recorded log, shared by `fit` and `import`.
struct LogOptions: OptionGroup {
    /// What the help of a command that reads a log says of its limits.
    static let limits: String = "A line of the log may be at most \(RecordedLog.maximumLineBytes >> 20) MiB long; "
        + "a longer one stops the read (exit 65). A time outside the years 0000 to 9999 makes its row bad."

    /// The log itself, the positional argument of `fit` and `import`.
    static let data = ArgumentSpec.positional("data", help: "The visit log (- for standard input).")

    static let format = ArgumentSpec.option("--format", valueName: "kind", help: """
        cdnow, csv, tsv, whitespace, a single delimiter character, jsonl (one JSON object per line, fields \
        named by dotted paths such as properties.distinct_id), or an analytics export as downloaded: firebase \
        (GA4/Firebase BigQuery rows as JSON lines), amplitude (the Export API's ZIP of gzipped JSON lines), \
        mixpanel (raw export JSON lines). The presets set --user, --time, --timestamp, --session, \
        --event-field and --utc-offset-field; any of these given overrides its preset.
        """, default: "csv")
    static let header = ArgumentSpec.flag("--header", help: "The first line is a header, even if it reads as data.")
    static let noHeader = ArgumentSpec.flag("--no-header", help: """
        The file has no header line (columns are then numbers). Without either flag, the first line is a \
        header only if it does not read as a data row; what was read as a header is said on stderr.
        """)
    static let user = ArgumentSpec.option(
        "--user", valueName: "column", help: "User id column: a header name, a 0-based number, or a JSON path.", default: "0")
    static let time = ArgumentSpec.option(
        "--time", valueName: "column", help: "Timestamp column: a header name, a 0-based number, or a JSON path.", default: "1")
    static let timestamp = ArgumentSpec.option("--timestamp", valueName: "format", help: """
        iso8601, dateTime (yyyy-MM-dd HH:mm:ss), compactDate (yyyyMMdd), epochSeconds, \
        epochMilliseconds, epochMicroseconds, or a pattern such as 'dd/MM/yyyy HH:mm'.
        """, default: "iso8601")
    static let utcOffset = ArgumentSpec.option(
        "--utc-offset", valueName: "hours", help: "Offset of timestamps written without a zone.", default: "0")
    static let session = ArgumentSpec.option(
        "--session", valueName: "column",
        help: "Session id column: each session of a user is one visit ('none': no sessions, even in a preset).")
    static let eventField = ArgumentSpec.option(
        "--event-field", valueName: "column", help: "Event type column; the summary counts the rows of each type.")
    static let events = ArgumentSpec.option(
        "--event", valueName: "names", help: "Keep only events of these types (comma-separated, e.g. session_start,app_open).")
    static let excludedEvents = ArgumentSpec.option(
        "--exclude-event", valueName: "names", help: "Leave out events of these types (comma-separated).")
    static let utcOffsetField = ArgumentSpec.option("--utc-offset-field", valueName: "column", help: """
        A column giving each event's offset from UTC in seconds; with it, or with timestamps that carry \
        zones, import reports the users' offsets and fit writes them as utcOffsets.
        """)
    static let sessionGap = ArgumentSpec.option(
        "--session-gap", valueName: "minutes", help: "Without sessions, events closer than this are one visit.", default: "30")
    static let byDay = ArgumentSpec.flag("--by-day", help: "All events of a user on one calendar day are one visit.")
    static let observationEndOption = ArgumentSpec.option(
        "--observation-end", valueName: "date", help: "Last day observed (default: the time of the last event).")
    static let skipBadRowsFlag = ArgumentSpec.flag(
        "--skip-bad-rows", help: "Skip rows that cannot be read (they are counted) instead of stopping.")
    static let keepOutliersFlag = ArgumentSpec.flag("--keep-outliers", help: """
        Keep visits far outside the rest of the data (more than the span of the central 99% of visit times \
        before its 0.5th or after its 99.5th percentile) or outside the years 1990 to 2099. They are always \
        reported; by default left out.
        """)

    static let specs = [
        format, header, noHeader, user, time, timestamp, utcOffset, session, sessionGap, byDay, eventField, events,
        excludedEvents, utcOffsetField, observationEndOption,
        skipBadRowsFlag, keepOutliersFlag,
    ]

    let format: RecordedFormat
    let observationEnd: String?
    let skipBadRows: Bool
    let keepOutliers: Bool

    init(_ arguments: ParsedArguments) throws {
        let kind: String = try arguments.value(Self.format)
        let header = try arguments.flag(Self.header), noHeader = try arguments.flag(Self.noHeader)
        if header && noHeader {
            throw UsageError("\(Self.header.name) and \(Self.noHeader.name) contradict each other: give at most one")
        }
        // Every column option is read whatever the format, so that none is declared and left unread.
        func column(_ text: String) -> ColumnReference { Int(text).map { .position($0) } ?? .name(text) }
        let preset = Self.presets[kind]
        // A preset's column, unless the option is given.
        func chosen(_ option: ArgumentSpec, _ presetValue: String?) throws -> String? {
            if try arguments.isPresent(option.name) { return try arguments.optionalValue(option) }
            return try presetValue ?? arguments.optionalValue(option)
        }
        let user = column(try chosen(Self.user, preset?.user) ?? "0"), time = column(try chosen(Self.time, preset?.time) ?? "1")
        let timestamp: String = try chosen(Self.timestamp, preset?.timestamp) ?? "iso8601"
        let utcOffset: Double = try arguments.value(Self.utcOffset, expected: "hours from -12 to 14", where: { (-12...14).contains($0) })
        let sessionName = try chosen(Self.session, preset?.session)
        let session = sessionName == "none" ? nil : sessionName.map(column)
        let event = try chosen(Self.eventField, preset?.event).map(column)
        let offsetField = try chosen(Self.utcOffsetField, preset?.utcOffset).map(column)
        func names(_ option: ArgumentSpec) throws -> [String]? {
            guard let text: String = try arguments.optionalValue(option) else { return nil }
            let list = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !list.isEmpty else { throw UsageError("\(option.name): expected event names separated by commas") }
            guard event != nil else { throw UsageError("\(option.name): needs \(Self.eventField.name), the event type column") }
            return list
        }
        let events = try names(Self.events), excluded = try names(Self.excludedEvents)
        if let events, let excluded, let both = events.first(where: excluded.contains) {
            throw UsageError("\(Self.events.name) and \(Self.excludedEvents.name) both name \(Excerpt.quoted(both)): "
                + "an event type is kept or left out, not both")
        }
        // A scenario's segment reads its log with the same format, within the same limits.
        let sessionGap: Double = try arguments.value(Self.sessionGap, expected: "minutes > 0 and at most 1,000,000",
                                                     where: { $0 > 0 && $0 <= 1e6 })
        let byDay = try arguments.flag(Self.byDay)
        if kind == "cdnow" {
            if header || noHeader {
                throw UsageError("\((header ? Self.header : Self.noHeader).name): the CDNOW format finds its header line itself")
            }
            format = .cdnow
        } else {
            let delimiter: String = switch kind {
            case "csv": ","
            case "tsv": "\t"
            case "whitespace": "whitespace"
            case _ where preset != nil: "jsonl"
            default: kind
            }
            if delimiter == "jsonl", header || noHeader {
                throw UsageError("\((header ? Self.header : Self.noHeader).name): JSON lines have no header line")
            }
            let d = DelimitedFormat(
                delimiter: delimiter, header: header ? true : noHeader ? false : nil, user: user, time: time,
                timestamp: timestamp, utcOffsetHours: utcOffset, session: session, sessionGapMinutes: sessionGap,
                byCalendarDay: byDay, event: event, events: events, excludeEvents: excluded, utcOffsetField: offsetField)
            if case let .failure(issue) = d.validated() {
                // The field's own option: `event` is --event-field, not --event (the event names).
                let option = Self.option(for: issue.path)
                throw UsageError("\(option): \(issue.reason)")
            }
            format = .delimited(d)
        }
        observationEnd = try Self.date(Self.observationEndOption, arguments)
        skipBadRows = try arguments.flag(Self.skipBadRowsFlag)
        keepOutliers = try arguments.flag(Self.keepOutliersFlag)
    }

    /// The fields an analytics export names, by `--format` preset; nil where the export has none.
    struct Preset {
        var user: String
        var time: String
        var timestamp: String
        var session: String?
        var event: String
        var utcOffset: String?
    }

    /// GA4/Firebase BigQuery rows, Amplitude Export API events and Mixpanel raw export events, by the
    /// fields their documentation lists.
    static let presets: [String: Preset] = [
        "firebase": Preset(
            user: "user_pseudo_id", time: "event_timestamp", timestamp: "epochMicroseconds",
            session: "event_params.ga_session_id", event: "event_name", utcOffset: "device.time_zone_offset_seconds"),
        "amplitude": Preset(
            user: "amplitude_id", time: "event_time", timestamp: "iso8601", session: "session_id", event: "event_type"),
        "mixpanel": Preset(
            user: "properties.distinct_id", time: "properties.time", timestamp: "epochSeconds", event: "event"),
    ]

    /// The option that sets a field of the scenario's format.
    static func option(for field: String) -> String {
        switch field {
        case "delimiter": return format.name
        case "event": return eventField.name
        case "events": return events.name
        case "excludeEvents": return excludedEvents.name
        case "utcOffsetField": return utcOffsetField.name
        default: return "--" + field
        }
    }

    /// A date option's value, checked to be a date `YYYY-MM-DD`; nil when it is not given.
    static func date(_ option: ArgumentSpec, _ arguments: ParsedArguments) throws -> String? {
        guard let text: String = try arguments.optionalValue(option) else { return nil }
        guard CalendarDate(iso: text) != nil else {
            throw UsageError("\(option.name): expected a date YYYY-MM-DD from 0001-01-01 to 9999-12-31, got \(Excerpt.quoted(text, mark: "\""))")
        }
        return text
    }

    /// Reads the log at `path` as these options say, turning its problems into the tool's exit codes.
    /// Says on `diagnostics` what was read as a header and which visits are outliers.
    func read(_ path: String, diagnostics: (String) -> Void) throws -> RecordedLog {
        let log: RecordedLog
        // `-` is standard input, as for the commands that read a scenario, and named as they name it.
        let name = InputFile.displayName(path)
        if path == "-" || path == "/dev/stdin", ProcessSetup.standardInputIsClosed {
            throw CommandError.noInput("\(name): standard input is closed")
        }
        do {
            log = try RecordedSource(path: path == "-" ? "/dev/stdin" : path, format: format, observationEnd: observationEnd)
                .read(onBadRow: skipBadRows ? .skip : .stop, outliers: keepOutliers ? .keep : .exclude,
                      name: name != path ? name : nil)
        } catch let error as RecordedDataError {
            // A format given on the command line that cannot be used is a usage error.
            if error.kind == .badFormat { throw UsageError(error.message) }
            throw ScenarioLoading.commandError(error, message: error.message)
        }
        for line in Self.notes(log, path: name) { diagnostics(line) }
        return log
    }

    /// The calendar day (UTC) of a time in a log, as messages name it.
    static func day(_ seconds: Double) -> String {
        CalendarDate(daysSinceEpoch: Int((seconds / 86_400).rounded(.down))).description
    }

    /// What the import decided on its own: the header line and outlying visits.
    static func notes(_ log: RecordedLog, path: String) -> [String] {
        var out: [String] = []
        if let header = log.headerLine {
            out.append("\(path): read the first line as a header: "
                + header.prefix(12).map { Excerpt.quoted($0) }.joined(separator: ", ") + (header.count > 12 ? ", …" : ""))
        }
        if let o = log.outliers {
            out.append("\(path): \(o.visits) visit\(o.visits == 1 ? "" : "s") outside "
                + "\(CivilTime.isoString(o.bounds.lowerBound)) to \(CivilTime.isoString(o.bounds.upperBound)) "
                + (o.excluded ? "left out as outliers (--keep-outliers keeps them)" : "kept (--keep-outliers)")
                + "; an outlier is \(OutlierReport.rule)")
            for row in o.examples.prefix(5) { out.append("  \(row)") }
        }
        return out
    }
}
