import Dispatch
import Foundation

/// A thread-safe progress line (bar, percentage, count, rate, ETA) that draws only on a terminal.
public final class ProgressBar: @unchecked Sendable {
    /// Ten redraws a second look smooth and keep terminal output negligible next to the work itself.
    public static let redrawInterval: UInt64 = 100_000_000

    private let total: Int
    private let label: String
    private let output: any OutputWriter
    private let isEnabled: Bool
    private let color: Bool
    private let escapes: Bool
    private let width: Int
    private let clock: @Sendable () -> UInt64
    private let started: UInt64
    private let lock = NSLock()
    private var done = 0
    private var lastDraw: UInt64?
    private var isFinished = false
    /// Characters of the last line drawn, to blank out what a shorter one leaves without escapes.
    private var lastLength = 0

    /// `clock` returns monotonic nanoseconds; tests substitute their own. Without `escapes` (a dumb
    /// terminal) lines are redrawn with `\r` and blanked with spaces.
    public init(total: Int, label: String = "", output: any OutputWriter, enabled: Bool, color: Bool = false,
                escapes: Bool = true, width: Int = 80,
                clock: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
        self.total = total
        self.label = label
        self.output = output
        self.isEnabled = enabled
        self.color = color && escapes
        self.escapes = escapes
        self.width = width
        self.clock = clock
        self.started = clock()
    }

    /// Draws on the console's stderr when it is a terminal.
    public convenience init(total: Int, label: String = "", io: ConsoleIO) {
        let width = io.stderrIsTerminal ? Terminal.width(fd: STDERR_FILENO) ?? 80 : 80
        self.init(total: total, label: label, output: io.stderr, enabled: io.stderrIsTerminal,
                  color: io.stderrColorEnabled, escapes: io.stderrUnderstandsEscapes, width: width)
    }

    public var completed: Int {
        lock.lock()
        defer { lock.unlock() }
        return done
    }

    /// Report work in batches of thousands of items: every call takes the lock and reads the clock.
    public func advance(by count: Int = 1) {
        lock.lock()
        defer { lock.unlock() }
        done += count
        // A disabled bar still counts, so callers can read `completed`, but never touches the output.
        guard isEnabled, !isFinished else { return }
        let now = clock()
        if let lastDraw, now &- lastDraw < Self.redrawInterval { return }
        lastDraw = now
        draw(at: now)
    }

    /// Draws the final state and ends the line; later calls do nothing.
    public func finish() {
        lock.lock()
        defer { lock.unlock() }
        guard isEnabled, !isFinished else { return }
        isFinished = true
        draw(at: clock())
        output.write("\n")
    }

    private func draw(at now: UInt64) {
        let elapsed = Double(now &- started) / 1e9
        let line = Self.render(done: done, total: total, elapsed: elapsed, width: width, label: label, color: color)
        // Erase to end of line so a shorter redraw leaves no stale characters behind.
        if escapes {
            output.write("\r" + line + "\u{1B}[K")
        } else {
            let length = line.count
            output.write("\r" + line + String(repeating: " ", count: max(0, lastLength - length)))
            lastLength = length
        }
    }

    /// One progress line, exactly `width` columns when there is room for a bar, and never more than
    /// `width`: on a narrow terminal the label goes first, then the count and rate, then the end of
    /// what is left (a line wider than the terminal would wrap, and each redraw leave a row behind).
    public static func render(done: Int, total: Int, elapsed: Double, width: Int,
                              label: String = "", color: Bool = false) -> String {
        let done = max(0, done)
        // Integer arithmetic so that 100% appears only when everything is done.
        let percent = total > 0 ? min(100, done * 100 / total) : 100
        let rate = elapsed > 0 ? formatRate(Double(done) / elapsed) : "--/s"
        let timing = done >= total ? "in \(formatDuration(elapsed))" : "ETA \(formatDuration(eta(done: done, total: total, elapsed: elapsed)))"
        let percentText = String(repeating: " ", count: 3 - String(percent).count) + "\(percent)%"
        let stats = "\(percentText) \(done)/\(total) \(rate) \(timing)"
        let prefix = label.isEmpty ? "" : label + " "
        let barWidth = width - prefix.count - stats.count - 3
        guard barWidth >= 5 else {
            let short = "\(percentText) \(timing)"
            let line = [prefix + stats, stats, short].first { $0.count <= width } ?? String(short.prefix(max(1, width)))
            return line
        }
        let filled = total > 0 ? min(barWidth, done * barWidth / total) : barWidth
        var bar = String(repeating: "#", count: filled)
        if color && filled > 0 { bar = "\u{1B}[32m" + bar + "\u{1B}[0m" }
        return prefix + "[" + bar + String(repeating: ".", count: barWidth - filled) + "] " + stats
    }

    /// Seconds still needed at the average rate so far, or nil before anything is known.
    public static func eta(done: Int, total: Int, elapsed: Double) -> Double? {
        guard done > 0, elapsed > 0 else { return nil }
        guard done < total else { return 0 }
        return elapsed * Double(total - done) / Double(done)
    }

    /// "42s", "1m05s", "2h03m"; "--" when unknown.
    public static func formatDuration(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, seconds >= 0 else { return "--" }
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole)s" }
        if whole < 3600 { return "\(whole / 60)m" + twoDigits(whole % 60) + "s" }
        return "\(whole / 3600)h" + twoDigits(whole / 60 % 60) + "m"
    }

    /// "2.5/s", "840/s", "12.3k/s", "4.1M/s".
    public static func formatRate(_ perSecond: Double) -> String {
        guard perSecond.isFinite, perSecond >= 0 else { return "--/s" }
        switch perSecond {
        case ..<10: return String(format: "%.1f/s", perSecond)
        case ..<1000: return String(format: "%.0f/s", perSecond)
        case ..<1_000_000: return String(format: "%.1fk/s", perSecond / 1000)
        default: return String(format: "%.1fM/s", perSecond / 1_000_000)
        }
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
