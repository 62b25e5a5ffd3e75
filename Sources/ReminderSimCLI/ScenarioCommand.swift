import Console
import Foundation
import Simulation

/// `remindersim scenario`: prints the built-in default scenario as a starting point.
struct ScenarioCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "scenario",
        abstract: "Print the built-in default scenario as JSON, to copy and edit.",
        discussion: "Example: remindersim scenario > my-app.json")

    init(arguments: ParsedArguments) throws {}

    func run(context: CommandContext) throws {
        context.stdout.write(try Scenario.builtInDefault.canonicalJSON())
    }
}

