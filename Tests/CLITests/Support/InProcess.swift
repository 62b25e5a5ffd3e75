import Console
import ReminderSimCLI
import ReminderSimTestSupport

extension ReminderSimTestCase {
    /// Runs the tool's entry point inside the test process, with output collected in memory: for
    /// command lines that are refused or answered before anything runs (help, usage errors), where a
    /// child process would only add its start-up time. The binary itself is tested by `remindersim(…)`.
    func inProcess(_ arguments: String...) -> CommandResult { inProcess(arguments: arguments) }

    func inProcess(arguments: [String]) -> CommandResult {
        let out = MemoryWriter(), err = MemoryWriter()
        let status = ReminderSim.main(arguments: arguments, io: ConsoleIO(stdout: out, stderr: err))
        return CommandResult(arguments: arguments, status: status, crashed: false, stdout: out.text, stderr: err.text)
    }
}
