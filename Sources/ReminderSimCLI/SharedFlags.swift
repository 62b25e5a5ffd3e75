import Console
import Foundation

/// `--json`: the command's result as one JSON document on stdout, and nothing else there. Each
/// command says in its own help what the document holds (`JSONFlag.spec.described(…)`).
enum JSONFlag {
    static let spec = ArgumentSpec.flag("--json", help: "Print the result as one JSON document on stdout instead of text.")
}

/// `--csv-safe`: CSV for a spreadsheet, with a `'` before text it would run as a formula.
enum CSVSafeFlag {
    static let spec = ArgumentSpec.flag("--csv-safe", help: """
        Put a ' before CSV text a spreadsheet would run as a formula (=, @, or + and - not followed \
        by a number). By default CSV text is written as stored, so that it joins with the database.
        """)
}

/// `--all-pairs`: the paired comparison of every two configurations, whatever their number.
enum AllPairsFlag {
    static let spec = ArgumentSpec.flag("--all-pairs", help: "Keep the paired comparison of every two configurations.")
}

/// `--stats`: what the command cost, on stderr once it is done.
enum StatsFlag {
    static let spec = ArgumentSpec.flag("--stats", help: "Print the time taken and peak memory to stderr.")
}

extension JSONFlag {
    /// A JSON value built of dictionaries, arrays, strings, numbers and `NSNull`, as the tool prints
    /// one: indented, keys sorted, slashes unescaped, ending in a newline. Strings are escaped by
    /// `JSONSerialization`; a number that is not finite must be `NSNull` already.
    static func text(_ object: Any) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// `x`, or `NSNull` when it is not finite (a damaged row), which JSON cannot write.
    static func number(_ x: Double) -> Any {
        x.isFinite ? x : NSNull()
    }
}
