/// Process exit statuses, following BSD sysexits(3) where a convention exists.
public enum ExitCode: Int32, Sendable {
    case success = 0
    case failure = 1
    case usage = 64
    case dataError = 65
    case noInput = 66
    case software = 70
    case ioError = 74
}

/// The command line was malformed; reported with a hint pointing at the command's help (exit 64).
public struct UsageError: Error, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// A failure with a specific exit status and a message for stderr.
public struct CommandError: Error, Sendable, CustomStringConvertible {
    public let code: ExitCode
    public let message: String

    public init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func dataError(_ message: String) -> CommandError { CommandError(.dataError, message) }
    public static func noInput(_ message: String) -> CommandError { CommandError(.noInput, message) }
    public static func ioError(_ message: String) -> CommandError { CommandError(.ioError, message) }
    public static func software(_ message: String) -> CommandError { CommandError(.software, message) }

    public var description: String { message }
}

/// Stops the command successfully after printing `output` to stdout (help, version).
public struct CleanExit: Error, Sendable, CustomStringConvertible {
    public let output: String

    public init(_ output: String) {
        self.output = output
    }

    public var description: String { output }
}
