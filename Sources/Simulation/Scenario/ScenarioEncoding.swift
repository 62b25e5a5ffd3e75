import Foundation

extension Scenario {
    /// The scenario as the JSON text the tool writes: sorted keys, indented, a final newline.
    /// `Scenario.decode` reads it back to an equal scenario.
    public func canonicalJSON() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }
}
