#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One line on a terminal's stderr that says what a command is doing now, erased once that is done;
/// left standing when the command is stopped meanwhile (Ctrl-C), so that what it said stays read.
/// Only on a terminal that knows escapes: nothing is written to a file, a pipe or `TERM=dumb`.
public struct StatusLine: Sendable {
    private let io: ConsoleIO
    private let width: Int

    public init(io: ConsoleIO) {
        self.io = io
        width = io.stderrIsTerminal ? Terminal.width(fd: STDERR_FILENO) ?? 80 : 80
    }

    private var shows: Bool { io.stderrIsTerminal && io.stderrUnderstandsEscapes }

    /// Shows `text` in place of what the line held, cut to the terminal's width (it must not wrap).
    public func show(_ text: String) {
        guard shows else { return }
        io.stderr.write("\r\u{1B}[K" + String(text.prefix(max(1, width))))
    }

    /// Erases the line.
    public func clear() {
        guard shows else { return }
        io.stderr.write("\r\u{1B}[K")
    }
}
