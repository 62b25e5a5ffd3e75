import Foundation

/// Entry point: dispatches to a command and turns every outcome into output and an exit status.
public enum CommandRunner {
    /// Runs `root` with `arguments` (without the program name) and returns the status to exit with.
    public static func main(root: any Command.Type, arguments: [String], version: String, io: ConsoleIO) -> Int32 {
        let tool = root.configuration.name
        var path = [tool]
        var status: Int32
        do {
            try dispatch(root: root, arguments: arguments, version: version, io: io, path: &path)
            status = ExitCode.success.rawValue
        } catch {
            status = report(error, tool: tool, path: path, io: io)
        }
        do {
            try io.stdout.flush()
        } catch where isClosedPipe(error) {
            // The reader went away (`| head`): what it wanted, it has; the rest is not an error.
        } catch {
            io.stderr.writeLine("\(tool): error: cannot write to standard output: \(systemReason(error))")
            if status == ExitCode.success.rawValue { status = ExitCode.ioError.rawValue }
        }
        try? io.stderr.flush()
        return status
    }

    /// `path` tracks the deepest command reached so a usage error can point at the right help.
    private static func dispatch(
        root: any Command.Type, arguments: [String], version: String, io: ConsoleIO, path: inout [String]
    ) throws {
        var command = root
        var rest = arguments[...]
        while !command.configuration.subcommands.isEmpty {
            guard let first = rest.first else {
                throw UsageError("missing subcommand; expected one of: \(names(command.configuration.subcommands))")
            }
            rest = rest.dropFirst()
            switch first {
            case "--help", "-h":
                throw CleanExit(Help.text(for: command, path: path, isRoot: command == root))
            case "--version" where command == root:
                throw CleanExit(version)
            case "help":
                var target = command
                var targetPath = path
                for name in rest {
                    target = try subcommand(name, of: target)
                    targetPath.append(name)
                }
                throw CleanExit(Help.text(for: target, path: targetPath, isRoot: target == root))
            default:
                command = try subcommand(first, of: command)
                path.append(first)
            }
        }

        let ownWords = rest.prefix { $0 != "--" }
        if ownWords.contains("--help") || ownWords.contains("-h") {
            throw CleanExit(Help.text(for: command, path: path, isRoot: command == root))
        }
        if command == root && ownWords.contains("--version") {
            throw CleanExit(version)
        }
        let commandPath = path.joined(separator: " ")
        guard let runnable = command as? any RunnableCommand.Type else {
            throw CommandError.software("'\(commandPath)' has neither subcommands nor anything to run")
        }
        let parsed = try ParsedArguments(parsing: Array(rest), specs: command.configuration.arguments,
                                         commandPath: commandPath)
        try runnable.init(arguments: parsed).run(context: CommandContext(io: io, commandPath: commandPath))
    }

    private static func subcommand(_ name: String, of command: any Command.Type) throws -> any Command.Type {
        let subcommands = command.configuration.subcommands
        guard !subcommands.isEmpty else {
            throw UsageError("'\(command.configuration.name)' has no subcommand '\(MessageText.oneLine(name))'")
        }
        guard let found = subcommands.first(where: { $0.configuration.name == name }) else {
            throw UsageError("unknown subcommand '\(MessageText.oneLine(name))'; expected one of: \(names(subcommands))")
        }
        return found
    }

    private static func names(_ commands: [any Command.Type]) -> String {
        commands.map { $0.configuration.name }.joined(separator: ", ")
    }

    private static func report(_ error: any Error, tool: String, path: [String], io: ConsoleIO) -> Int32 {
        switch error {
        case let exit as CleanExit:
            io.stdout.write(exit.output.hasSuffix("\n") ? exit.output : exit.output + "\n")
            return ExitCode.success.rawValue
        case let usage as UsageError:
            io.stderr.writeLine("\(tool): error: \(MessageText.safe(usage.message))")
            io.stderr.writeLine("See '\(path.joined(separator: " ")) --help'.")
            return ExitCode.usage.rawValue
        case let failure as CommandError:
            if !failure.message.isEmpty { io.stderr.writeLine("\(tool): error: \(MessageText.safe(failure.message))") }
            return failure.code.rawValue
        case is CocoaError, is POSIXError:
            // A file operation no command anticipated: the system's reason, never Foundation's text.
            io.stderr.writeLine("\(tool): error: \(systemReason(error))")
            return ExitCode.ioError.rawValue
        default:
            let message = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
            io.stderr.writeLine("\(tool): error: \(MessageText.safe(message))")
            return ExitCode.failure.rawValue
        }
    }

    /// The POSIX error code behind a failed file operation, if it has one.
    public static func posixCode(_ error: any Error) -> Int32? {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return Int32(ns.code) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        return nil
    }

    /// Whether a write failed because the pipe's reader closed it (EPIPE, with SIGPIPE ignored).
    public static func isClosedPipe(_ error: any Error) -> Bool {
        posixCode(error) == EPIPE
    }

    /// The system's short reason for an I/O error ("No space left on device"), not Foundation's dump.
    public static func systemReason(_ error: any Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        // Foundation's own sentences ("The operation could not be completed…", "NSCocoaErrorDomain
        // error 256") never reach a user: the common cases by name, the rest as a plain failure.
        guard ns.domain == NSCocoaErrorDomain else { return "input/output error" }
        switch ns.code {
        case NSFileNoSuchFileError, NSFileReadNoSuchFileError: return "no such file or folder"
        case NSFileReadNoPermissionError, NSFileWriteNoPermissionError: return "permission denied"
        case NSFileWriteOutOfSpaceError: return "no space left on device"
        case NSFileWriteVolumeReadOnlyError: return "read-only file system"
        case NSFileWriteFileExistsError: return "a file of that name already exists"
        default: return "input/output error"
        }
    }
}
