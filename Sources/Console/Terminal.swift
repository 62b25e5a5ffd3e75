#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Facts about the terminal behind a file descriptor.
public enum Terminal {
    public static func isInteractive(fd: Int32) -> Bool {
        isatty(fd) == 1
    }

    /// Colour is off for pipes and files, for `TERM=dumb`, and whenever `NO_COLOR` is non-empty (no-color.org).
    public static func colorEnabled(environment: [String: String], fd: Int32) -> Bool {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        if environment["TERM"] == "dumb" { return false }
        return isInteractive(fd: fd)
    }

    /// False for `TERM=dumb`, a terminal that moves the cursor back with `\r` but knows no escape
    /// sequences (Emacs shells, some CI logs): output to it is plain text.
    public static func understandsEscapes(environment: [String: String]) -> Bool {
        environment["TERM"] != "dumb"
    }

    /// Columns of the terminal, or nil when `fd` is not a terminal.
    public static func width(fd: Int32) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
