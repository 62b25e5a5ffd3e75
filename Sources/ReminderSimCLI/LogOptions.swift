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
    static let data = ArgumentSpec.positional("data", help: "The visit log.")

    static let format = ArgumentSpec.option(
        "--format", valueName: "kind", help: "cdnow, csv, tsv, whitespace, or a single delimiter character.", default: "csv")
    static let header = ArgumentSpec.flag("--header", help: "The first line is a header, even if it reads as data.")
    static let noHeader = ArgumentSpec.flag("--no-header", help: """
        The file has no header line (columns are then numbers). Without either flag, the first line is a \
        header only if it does not read as a data row; what was read as a header is said on stderr.
        """)
    static let user = ArgumentSpec.option(
        "--user", valueName: "column", help: "User id column: a header name or a 0-based number.", default: "0")
    static let time = ArgumentSpec.option(
        "--time", valueName: "column", help: "Timestamp column: a header name or a 0-based number.", default: "1")
    static let timestamp = ArgumentSpec.option("--timestamp", valueName: "format", help: """
        iso8601, dateTime (yyyy-MM-dd HH:mm:ss), compactDate (yyyyMMdd), epochSeconds, \
        epochMilliseconds, or a pattern such as 'dd/MM/yyyy HH:mm'.
        """, default: "iso8601")
    static let utcOffset = ArgumentSpec.option(
        "--utc-offset", valueName: "hours", help: "Offset of timestamps written without a zone.", default: "0")
    static let session = ArgumentSpec.option(
        "--session", valueName: "column", help: "Session id column: each session of a user is one visit.")
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
        format, header, noHeader, user, time, timestamp, utcOffset, session, sessionGap, byDay, observationEndOption,
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
        let user = column(try arguments.value(Self.user)), time = column(try arguments.value(Self.time))
        let timestamp: String = try arguments.value(Self.timestamp)
        let utcOffset: Double = try arguments.value(Self.utcOffset, expected: "hours from -12 to 14", where: { (-12...14).contains($0) })
        let session = try arguments.optionalValue(Self.session, as: String.self).map(column)
        let sessionGap: Double = try arguments.value(Self.sessionGap, expected: "minutes > 0", where: { $0 > 0 })
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
            default: kind
            }
            let d = DelimitedFormat(
                delimiter: delimiter, header: header ? true : noHeader ? false : nil, user: user, time: time,
                timestamp: timestamp, utcOffsetHours: utcOffset, session: session, sessionGapMinutes: sessionGap,
                byCalendarDay: byDay)
            if case let .failure(issue) = d.validated() {
                throw UsageError("\(issue.path == "delimiter" ? Self.format.name : "--" + issue.path): \(issue.reason)")
            }
            format = .delimited(d)
        }
        observationEnd = try Self.date(Self.observationEndOption, arguments)
        skipBadRows = try arguments.flag(Self.skipBadRowsFlag)
        keepOutliers = try arguments.flag(Self.keepOutliersFlag)
    }

    /// A date option's value, checked to be a date `YYYY-MM-DD`; nil when it is not given.
    static func date(_ option: ArgumentSpec, _ arguments: ParsedArguments) throws -> String? {
        guard let text: String = try arguments.optionalValue(option) else { return nil }
        guard CalendarDate(iso: text) != nil else { throw UsageError("\(option.name): expected a date YYYY-MM-DD, got \"\(text)\"") }
        return text
    }

    /// Reads the log at `path` as these options say, turning its problems into the tool's exit codes.
    /// Says on `diagnostics` what was read as a header and which visits are outliers.
    func read(_ path: String, diagnostics: (String) -> Void) throws -> RecordedLog {
        let log: RecordedLog
        do {
            log = try RecordedSource(path: path, format: format, observationEnd: observationEnd)
                .read(onBadRow: skipBadRows ? .skip : .stop, outliers: keepOutliers ? .keep : .exclude)
        } catch let error as RecordedDataError {
            throw ScenarioLoading.commandError(error, message: error.message)
        }
        for line in Self.notes(log, path: path) { diagnostics(line) }
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
