import Console
import Foundation

/// The `remindersim` tool: its commands and its entry point.
public enum ReminderSim: Command {
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
            FitCommand.self, ImportCommand.self, CalibrateCommand.self, ReadoutCommand.self,
        ])

    /// Runs the tool as the process `remindersim`: sets up how the process meets a closed pipe or a
    /// file-size limit, then
    /// runs it with the process's arguments and streams. Returns the exit status.
    public static func runAsProcess() -> Int32 {
        ProcessSetup.ignoreWriteSignals()
        ProcessSetup.holdClosedStandardInput()
        if let problem = ProcessSetup.closedStandardStream() {
            // Nothing could be shown or saved safely: a file opened now would take the closed stream's number.
            return problem
        }
        return main()
    }

    /// Runs the tool with `arguments` and `io` and returns the exit status.
    public static func main(arguments: [String] = Array(CommandLine.arguments.dropFirst()),
                            io: ConsoleIO = .standard()) -> Int32 {
        CommandRunner.main(root: ReminderSim.self, arguments: arguments, version: version, io: io)
    }
}
