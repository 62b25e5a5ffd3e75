/// A command's declaration; a group of subcommands conforms to this alone.
public protocol Command: Sendable {
    static var configuration: CommandConfiguration { get }
}

/// A command that does work: built from its parsed arguments, then run.
public protocol RunnableCommand: Command {
    init(arguments: ParsedArguments) throws
    func run(context: CommandContext) throws
}

/// Name, help text, arguments and subcommands of a command.
public struct CommandConfiguration: Sendable {
    public let name: String
    public let abstract: String
    public let discussion: String
    public let arguments: [ArgumentSpec]
    public let subcommands: [any Command.Type]

    public init(
        name: String, abstract: String, discussion: String = "",
        arguments: [ArgumentSpec] = [], subcommands: [any Command.Type] = []
    ) {
        (self.name, self.abstract, self.discussion, self.arguments) = (name, abstract, discussion, arguments)
        self.subcommands = subcommands
    }
}

/// What a running command may use: its output streams and how it was invoked.
public struct CommandContext: Sendable {
    public let io: ConsoleIO
    /// For example "remindersim run", for messages that point at the command.
    public let commandPath: String

    public init(io: ConsoleIO, commandPath: String) {
        (self.io, self.commandPath) = (io, commandPath)
    }

    public var stdout: any OutputWriter { io.stdout }
    public var stderr: any OutputWriter { io.stderr }
}
