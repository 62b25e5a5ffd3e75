import Console
import Foundation

/// The `remindersim` tool: its commands and its entry point.
public enum Remindersim: Command {
    public static let version = "0.2.0"

    public static let configuration = CommandConfiguration(
        name: "remindersim",
        abstract: "Measure what reminder notifications and launch-count rules do to an app's users.",
        discussion: """
            Runs virtual users through faithful ports of ACPReminder and Crontab-IOS under the \
            configurations of a scenario, against a holdout that gets no reminders.
            """,
        subcommands: [
            RunCommand.self, ValidateCommand.self, ScenarioCommand.self, ListCommand.self, ReportCommand.self,
            ExportCommand.self, CompareCommand.self, MergeCommand.self, TraceCommand.self, TuneCommand.self,
            FitCommand.self, ImportCommand.self, CalibrateCommand.self,
        ])

    /// Runs the tool with the process's arguments and returns the exit status.
    public static func main(arguments: [String] = Array(CommandLine.arguments.dropFirst()),
                            io: ConsoleIO = .standard()) -> Int32 {
        ignoreFileSizeLimitSignal()
        return CommandRunner.main(root: Remindersim.self, arguments: arguments, version: version, io: io)
    }

    /// A write past the file size limit (`ulimit -f`) raises SIGXFSZ, which kills the process in the
    /// middle of writing the database. Ignored, the write fails with EFBIG instead, and the command
    /// reports it as an I/O error like a full disk, cleaning up after itself.
    static func ignoreFileSizeLimitSignal() {
        signal(SIGXFSZ, SIG_IGN)
    }
}
