import Console
import Foundation
import RecordedData
import Simulation

/// The command-line options that describe a recorded log, shared by `fit` and `import`.
struct LogOptions {
    static let arguments: [ArgumentSpec] = [
        .option("--format", valueName: "kind", help: "cdnow, csv, tsv, whitespace, or a single delimiter character.",
                default: "csv"),
        .flag("--no-header", help: "The file has no header line (columns are then numbers)."),
        .option("--user", valueName: "column", help: "User id column: a header name or a 0-based number.", default: "0"),
        .option("--time", valueName: "column", help: "Timestamp column: a header name or a 0-based number.", default: "1"),
        .option("--timestamp", valueName: "format", help: """
            iso8601, dateTime (yyyy-MM-dd HH:mm:ss), compactDate (yyyyMMdd), epochSeconds, \
            epochMilliseconds, or a pattern such as 'dd/MM/yyyy HH:mm'.
            """, default: "iso8601"),
        .option("--utc-offset", valueName: "hours", help: "Offset of timestamps written without a zone.", default: "0"),
        .option("--session", valueName: "column", help: "Session id column: each session of a user is one visit."),
        .option("--session-gap", valueName: "minutes", help: "Without sessions, events closer than this are one visit.",
                default: "30"),
        .flag("--by-day", help: "All events of a user on one calendar day are one visit."),
        .option("--observation-end", valueName: "date", help: "Last day observed (default: the time of the last event)."),
        .flag("--skip-bad-rows", help: "Skip rows that cannot be read (they are counted) instead of stopping."),
    ]

    let format: RecordedFormat
    let observationEnd: String?
    let skipBadRows: Bool

    init(arguments: ParsedArguments) throws {
        let kind: String = try arguments.value("--format")
        if kind == "cdnow" {
            format = .cdnow
        } else {
            func column(_ text: String) -> ColumnReference { Int(text).map { .position($0) } ?? .name(text) }
            let delimiter: String = switch kind {
            case "csv": ","
            case "tsv": "\t"
            case "whitespace": "whitespace"
            default: kind
            }
            let d = DelimitedFormat(
                delimiter: delimiter, header: !(try arguments.flag("--no-header")),
                user: column(try arguments.value("--user")), time: column(try arguments.value("--time")),
                timestamp: try arguments.value("--timestamp"),
                utcOffsetHours: try arguments.value("--utc-offset", expected: "hours from -12 to 14", where: { (-12...14).contains($0) }),
                session: try arguments.optionalValue("--session", as: String.self).map(column),
                sessionGapMinutes: try arguments.value("--session-gap", expected: "minutes > 0", where: { $0 > 0 }),
                byCalendarDay: try arguments.flag("--by-day"))
            if case let .failure(issue) = d.validated() {
                throw UsageError("--\(issue.path == "delimiter" ? "format" : issue.path): \(issue.reason)")
            }
            format = .delimited(d)
        }
        observationEnd = try Self.date("--observation-end", arguments)
        skipBadRows = try arguments.flag("--skip-bad-rows")
    }

    static func date(_ option: String, _ arguments: ParsedArguments) throws -> String? {
        guard let text: String = try arguments.optionalValue(option) else { return nil }
        guard CalendarDate(iso: text) != nil else { throw UsageError("\(option): expected a date YYYY-MM-DD, got \"\(text)\"") }
        return text
    }

    /// Reads the log, turning its problems into the tool's exit codes.
    static func read(_ path: String, format: RecordedFormat, observationEnd: String?, skipBadRows: Bool) throws -> RecordedLog {
        do {
            return try RecordedSource(path: path, format: format, observationEnd: observationEnd)
                .read(onBadRow: skipBadRows ? .skip : .stop)
        } catch let error as RecordedDataError {
            throw ScenarioLoading.commandError(error, message: error.message)
        }
    }
}

/// `remindersim import`: reads a recorded log as `fit` and scenarios would, and summarises it.
struct ImportCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "import",
        abstract: "Read a recorded visit log and summarise it: users, visits, gaps, bad rows.",
        discussion: """
            Checks that a log reads the way a scenario or 'fit' will read it. The log is streamed: memory \
            grows with the visits kept, not with the rows read. Example: \
            remindersim import events.csv --user user_id --time timestamp --skip-bad-rows
            """,
        arguments: [.positional("data", help: "The visit log.")] + LogOptions.arguments + [
            .flag("--stats", help: "Print the time taken, rows per second and peak memory to stderr."),
        ])

    let data: String
    let options: LogOptions
    let stats: Bool

    init(arguments: ParsedArguments) throws {
        data = try arguments.value("data")
        options = try LogOptions(arguments: arguments)
        stats = try arguments.flag("--stats")
    }

    func run(context: CommandContext) throws {
        let started = DispatchTime.now()
        let log = try LogOptions.read(data, format: options.format, observationEnd: options.observationEnd,
                                      skipBadRows: options.skipBadRows)
        let seconds = RunCommand.seconds(since: started)
        func day(_ s: Double) -> String { CalendarDate(daysSinceEpoch: Int((s / 86_400).rounded(.down))).description }
        let out = context.stdout
        out.writeLine("\(data): \(SummaryText.group(Int64(log.rows))) rows, \(SummaryText.group(Int64(log.events))) events kept")
        out.writeLine("  users: \(SummaryText.group(Int64(log.users.count))), visits: \(SummaryText.group(Int64(log.visitCount)))"
            + String(format: " (%.2f per user)", Double(log.visitCount) / Double(max(log.users.count, 1))))
        out.writeLine("  first visit \(day(log.firstVisit)), observation end \(day(log.observationEnd))")
        out.writeLine("  duplicate events: \(SummaryText.group(Int64(log.duplicates))), rows filtered out: "
            + "\(SummaryText.group(Int64(log.filtered))), bad rows skipped: \(SummaryText.group(Int64(log.skipped)))")
        for issue in log.issues.prefix(10) { out.writeLine("  skipped: \(issue)") }
        let km = KaplanMeier(log.gaps(unit: .days))
        out.writeLine(String(
            format: "  gaps: median %@ days; still away after 7 days %.1f%%, 30 days %.1f%%; never seen back %.1f%%",
            (km.quantile(u: 0.5)).map { String(format: "%.1f", $0) } ?? "n/a",
            km.survival(at: 7) * 100, km.survival(at: 30) * 100, km.plateau * 100))
        if stats {
            // Read last: the gap analysis above needs memory of its own, and the peak is the whole command's.
            context.stderr.writeLine(String(
                format: "stats: %d rows in %.2f s, %.0f rows/s, peak RSS %.1f MB", log.rows, seconds,
                Double(log.rows) / max(seconds, 1e-9), ResourceUsage.peakResidentMegabytes))
        }
    }
}
