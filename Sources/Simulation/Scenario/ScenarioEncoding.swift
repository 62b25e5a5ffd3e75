import Foundation

extension Scenario {
    /// The scenario as the JSON text the tool writes: sorted keys, indented, a final newline.
    /// `Scenario.decode` reads it back to an equal scenario.
    public func canonicalJSON() throws -> String {
        try canonicalJSONText(self) + "\n"
    }

    /// The same JSON on one line (sorted keys, no spaces), for a cell of a table.
    public func compactJSON() throws -> String {
        try canonicalJSONText(self, formatting: [.sortedKeys, .withoutEscapingSlashes])
    }
}

extension ConfigurationSpec {
    /// The configuration as the scenario's JSON writes it (sorted keys, indented, no final newline):
    /// an entry ready to paste into a scenario's `configurations`.
    public func canonicalJSON() throws -> String {
        try canonicalJSONText(self)
    }
}

private func canonicalJSONText<T: Encodable>(
    _ value: T, formatting: JSONEncoder.OutputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = formatting
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}
