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
        context.stdout.write(try ScenarioJSON.encode(Scenario.builtInDefault))
    }
}

/// The canonical JSON text of a scenario: sorted keys, two-space indent, trailing newline.
public enum ScenarioJSON {
    public static func encode(_ scenario: Scenario) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(scenario)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
