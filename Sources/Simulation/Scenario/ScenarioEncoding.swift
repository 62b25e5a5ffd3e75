import Dispatch
import Foundation
import Synchronization

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

    /// Each configuration's `canonicalJSON()` (nil where it cannot be written), in order, worked
    /// out on up to `threads` threads: a tune stores thousands of candidates.
    public static func canonicalJSON(of specs: [ConfigurationSpec], threads: Int) -> [String?] {
        let parts = max(1, min(threads, specs.count / 256))
        let size = (specs.count + parts - 1) / parts
        let done = Mutex<[Int: [String?]]>([:])
        DispatchQueue.concurrentPerform(iterations: parts) { p in
            let range = (p * size)..<min((p + 1) * size, specs.count)
            let part = specs[range].map { try? $0.canonicalJSON() }
            done.withLock { $0[p] = part }
        }
        return done.withLock { byPart in (0..<parts).flatMap { byPart[$0] ?? [] } }
    }
}

private func canonicalJSONText<T: Encodable>(
    _ value: T, formatting: JSONEncoder.OutputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = formatting
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}
