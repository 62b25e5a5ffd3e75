import Console
import Foundation
import Reporting
import RecordedData
import Rendering
import Simulation

/// `remindersim import`: reads a recorded log as `fit` and scenarios would, and summarises it.
struct ImportCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "import",
        abstract: "Read a recorded visit log and summarise it: users, visits, gaps, bad rows.",
        discussion: """
            Checks that a log reads the way a scenario or 'fit' will read it. The log is streamed: memory \
            grows with the visits kept, not with the rows read.
            """ + " " + LogOptions.limits + " Example: remindersim import events.csv --user user_id --time timestamp --skip-bad-rows",
        arguments: [LogOptions.data] + LogOptions.specs + [stats])

    static let stats = StatsFlag.spec.described("Print the time taken, rows per second and peak memory to stderr.")

    let data: String
    let options: LogOptions
    let stats: Bool

    init(arguments: ParsedArguments) throws {
        data = try arguments.value(LogOptions.data)
        options = try LogOptions(arguments)
        stats = try arguments.flag(Self.stats)
    }

    func run(context: CommandContext) throws {
        let started = DispatchTime.now()
        let log = try options.read(data, diagnostics: context.stderr.writeLine)
        let seconds = RunCommand.seconds(since: started)
        let out = context.stdout
        out.writeLine("\(InputFile.displayName(data)): \(Text.group(Int64(log.rows))) rows, \(Text.group(Int64(log.events))) events kept")
        out.writeLine("  users: \(Text.group(Int64(log.users.count))), visits: \(Text.group(Int64(log.visitCount)))"
            + " (\(NumberText.fixed(Double(log.visitCount) / Double(max(log.users.count, 1)), decimals: 2, grouping: true)) per user)")
        if let layout = log.layout { out.writeLine("  layout: \(layout)") }
        out.writeLine("  first visit \(LogOptions.day(log.firstVisit)), observation end \(LogOptions.day(log.observationEnd))")
        out.writeLine("  duplicate events: \(Text.group(Int64(log.duplicates))), rows filtered out: "
            + "\(Text.group(Int64(log.filtered))), bad rows skipped: \(Text.group(Int64(log.skipped)))")
        for issue in log.issues.prefix(10) { out.writeLine("  skipped: \(issue)") }
        for line in Self.eventTypeLines(log) { out.writeLine(line) }
        for line in Self.offsetLines(log.utcOffsets) { out.writeLine(line) }
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

    /// The rows of each event type, most first, marking the types left out; at most 30 types shown.
    static func eventTypeLines(_ log: RecordedLog) -> [String] {
        guard !log.eventTypes.isEmpty || log.otherEventTypes > 0 else { return [] }
        var out = ["  event types (rows; those marked left out are not visits):"]
        for type in log.eventTypes.prefix(30) {
            out.append("    \(Excerpt.name(type.name)): \(Text.group(Int64(type.rows)))" + (type.kept ? "" : " (left out)"))
        }
        let rest = log.eventTypes.dropFirst(30).reduce(0) { $0 + $1.rows } + log.otherEventTypes
        if rest > 0 { out.append("    other types: \(Text.group(Int64(rest)))") }
        return out
    }

    /// The users' offsets from UTC, as the events state them, with each offset's share of users.
    static func offsetLines(_ offsets: UTCOffsetTally) -> [String] {
        guard !offsets.isEmpty else { return [] }
        let known = offsets.users.values.reduce(0, +)
        let shares = offsets.sorted.map { entry in
            "\(UTCOffsetText.name(entry.seconds)) " + String(format: "%.1f%%", Double(entry.users) / Double(known) * 100)
        }
        return ["  UTC offsets (users, at their earliest event stating one): " + shares.joined(separator: ", ")
            + (offsets.unknown > 0 ? "; unknown for \(Text.group(Int64(offsets.unknown))) users" : "")]
    }
}

/// Offsets from UTC as the summaries and scenarios show them.
enum UTCOffsetText {
    /// `UTC+5:30`, `UTC−3`, `UTC+0`.
    static func name(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "−" : "+"
        let minutes = abs(seconds) / 60
        return "UTC\(sign)\(minutes / 60)" + (minutes % 60 == 0 ? "" : String(format: ":%02d", minutes % 60))
    }

    /// The scenario's `utcOffsets`: each offset in hours with its share of the users whose offset is known.
    static func scenarioShares(_ offsets: UTCOffsetTally) -> [[String: Any]] {
        let known = Double(offsets.users.values.reduce(0, +))
        return offsets.sorted.map { entry in
            let share = (Double(entry.users) / known * 1e6).rounded() / 1e6
            return ["hours": Double(entry.seconds) / 3_600, "weight": share]
        }
    }
}
