import Foundation

/// A value that can be read from one command-line word.
public protocol ArgumentValue {
    init(argument: String) throws(ArgumentValueError)
}

/// Why a word could not be converted; `expected` completes "expected …, got "word"".
public struct ArgumentValueError: Error, Sendable {
    public let expected: String

    public init(expected: String) {
        self.expected = expected
    }
}

extension String: ArgumentValue {
    public init(argument: String) throws(ArgumentValueError) {
        self = argument
    }
}

extension Int: ArgumentValue {
    public init(argument: String) throws(ArgumentValueError) { self = try parseWhole(argument, "a whole number") }
}

extension Int64: ArgumentValue {
    public init(argument: String) throws(ArgumentValueError) { self = try parseWhole(argument, "a whole number") }
}

extension UInt64: ArgumentValue {
    public init(argument: String) throws(ArgumentValueError) {
        self = try parseWhole(argument, "a non-negative whole number")
    }
}

/// A whole number of type `T` written in decimal, or the error naming what was expected.
private func parseWhole<T: FixedWidthInteger>(_ text: String, _ expected: String) throws(ArgumentValueError) -> T {
    guard let value = T(text) else { throw ArgumentValueError(expected: expected) }
    return value
}

extension Double: ArgumentValue {
    public init(argument: String) throws(ArgumentValueError) {
        // "nan" and "inf" parse as Double but are never meaningful settings, and neither is a hexadecimal
        // float such as "0x10": a decimal number only, as every other number the tool reads.
        guard argument.unicodeScalars.allSatisfy({ "0123456789.eE+-".unicodeScalars.contains($0) }),
              let value = Double(argument), value.isFinite else { throw ArgumentValueError(expected: "a number") }
        self = value
    }
}

extension ArgumentValue where Self: RawRepresentable, Self.RawValue == String, Self: CaseIterable {
    public init(argument: String) throws(ArgumentValueError) {
        guard let value = Self(rawValue: argument) else {
            let choices = Self.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            throw ArgumentValueError(expected: "one of \(choices)")
        }
        self = value
    }
}

/// One declared option, flag or positional argument of a command.
public struct ArgumentSpec: Sendable {
    /// How the argument is written on the command line.
    public enum Kind: Sendable {
        case option, flag, positional, variadic
    }

    public let kind: Kind
    /// `--name` for options and flags; the value name for positional arguments.
    public let name: String
    public let shortName: Character?
    public let valueName: String
    public let help: String
    /// Used when the argument is absent, and shown in the help.
    public let defaultValue: String?
    public let isRequired: Bool

    public static func option(
        _ name: String, short: Character? = nil, valueName: String = "value",
        help: String, default defaultValue: String? = nil, required: Bool = false
    ) -> ArgumentSpec {
        ArgumentSpec(kind: .option, name: name, shortName: short, valueName: valueName,
                     help: help, defaultValue: defaultValue, isRequired: required && defaultValue == nil)
    }

    public static func flag(_ name: String, short: Character? = nil, help: String) -> ArgumentSpec {
        ArgumentSpec(kind: .flag, name: name, shortName: short, valueName: "",
                     help: help, defaultValue: nil, isRequired: false)
    }

    public static func positional(_ valueName: String, help: String) -> ArgumentSpec {
        ArgumentSpec(kind: .positional, name: valueName, shortName: nil, valueName: valueName,
                     help: help, defaultValue: nil, isRequired: true)
    }

    public static func optionalPositional(_ valueName: String, help: String, default defaultValue: String? = nil) -> ArgumentSpec {
        ArgumentSpec(kind: .positional, name: valueName, shortName: nil, valueName: valueName,
                     help: help, defaultValue: defaultValue, isRequired: false)
    }

    /// Zero or more trailing positional words; must be the last positional argument.
    public static func variadic(_ valueName: String, help: String) -> ArgumentSpec {
        ArgumentSpec(kind: .variadic, name: valueName, shortName: nil, valueName: valueName,
                     help: help, defaultValue: nil, isRequired: false)
    }

    /// How the argument is named in error messages.
    var label: String {
        kind == .option || kind == .flag ? name : "<\(valueName)>"
    }
}

/// The words given to one command, matched against its specs and read back as typed values.
public struct ParsedArguments: Sendable {
    public let commandPath: String
    private let specs: [ArgumentSpec]
    private let given: [String: String]
    private let flags: Set<String>
    private let trailing: [String]
    /// The names read so far, shared by every copy: see `unreadArguments`.
    private let reads = ReadNames()

    public init(parsing words: [String], specs: [ArgumentSpec], commandPath: String) throws {
        try Self.check(specs, commandPath: commandPath)
        var given: [String: String] = [:]
        var flags: Set<String> = []
        var positionals: [String] = []
        var index = 0
        var optionsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            if optionsEnded || !Self.looksLikeOption(word) {
                positionals.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            let (spec, inlineValue) = try Self.match(word, in: specs)
            if spec.kind == .flag {
                guard inlineValue == nil else { throw UsageError("flag '\(spec.name)' does not take a value") }
                flags.insert(spec.name)
                continue
            }
            guard given[spec.name] == nil else { throw UsageError("option '\(spec.name)' given more than once") }
            if let inlineValue {
                given[spec.name] = inlineValue
            } else if index < words.count, !Self.looksLikeOption(words[index]) {
                given[spec.name] = words[index]
                index += 1
            } else {
                throw UsageError("missing value for option '\(spec.name)'")
            }
        }
        for spec in specs where spec.kind == .option && spec.isRequired && given[spec.name] == nil {
            throw UsageError("missing required option '\(spec.name) <\(spec.valueName)>'")
        }
        let singles = specs.filter { $0.kind == .positional }
        for (position, spec) in singles.enumerated() {
            if position < positionals.count {
                given[spec.name] = positionals[position]
            } else if spec.isRequired {
                throw UsageError("missing argument '<\(spec.valueName)>'")
            }
        }
        let extra = Array(positionals.dropFirst(singles.count))
        if let first = extra.first, !specs.contains(where: { $0.kind == .variadic }) {
            throw UsageError("unexpected argument '\(MessageText.oneLine(first))'")
        }
        (self.commandPath, self.specs, self.given, self.flags) = (commandPath, specs, given, flags)
        self.trailing = extra
    }

    public func flag(_ name: String) throws -> Bool {
        _ = try spec(name, kinds: [.flag])
        return flags.contains(name)
    }

    /// Whether the option or positional argument was given explicitly rather than defaulted.
    public func isPresent(_ name: String) throws -> Bool {
        let spec = try spec(name, kinds: [.option, .flag, .positional, .variadic])
        switch spec.kind {
        case .flag: return flags.contains(name)
        case .variadic: return !trailing.isEmpty
        default: return given[name] != nil
        }
    }

    /// The option's or positional argument's value, falling back to its declared default.
    public func value<T: ArgumentValue>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard let value = try optionalValue(name, as: type) else {
            let spec = try spec(name, kinds: [.option, .positional])
            throw UsageError("missing value for '\(spec.label)'")
        }
        return value
    }

    /// Like `value(_:as:)`, with a range check; `expected` replaces the type's own description in errors.
    public func value<T: ArgumentValue>(
        _ name: String, as type: T.Type = T.self, expected: String, where isValid: (T) -> Bool
    ) throws -> T {
        let spec = try spec(name, kinds: [.option, .positional])
        guard let raw = given[name] ?? spec.defaultValue else {
            throw UsageError("missing value for '\(spec.label)'")
        }
        guard let value = try? T(argument: raw), isValid(value) else {
            throw UsageError("\(spec.label): expected \(expected), got \"\(MessageText.oneLine(raw))\"")
        }
        return value
    }

    /// The value if given or defaulted, otherwise nil.
    public func optionalValue<T: ArgumentValue>(_ name: String, as type: T.Type = T.self) throws -> T? {
        let spec = try spec(name, kinds: [.option, .positional])
        guard let raw = given[name] ?? spec.defaultValue else { return nil }
        return try Self.convert(raw, for: spec, as: type)
    }

    /// The words collected by a variadic argument.
    public func values<T: ArgumentValue>(_ name: String, as type: T.Type = T.self) throws -> [T] {
        let spec = try spec(name, kinds: [.variadic])
        return try trailing.map { try Self.convert($0, for: spec, as: type) }
    }

    /// The declared arguments nothing has read yet, by name, in the order declared. Once a command is
    /// built from its arguments this is empty: a name left here is declared (and shown in the help) but
    /// never used.
    public var unreadArguments: [String] {
        let read = reads.names
        return specs.map(\.name).filter { !read.contains($0) }
    }

    private func spec(_ name: String, kinds: [ArgumentSpec.Kind]) throws -> ArgumentSpec {
        // Reading an undeclared name is a bug in the command, not in the user's input.
        guard let spec = specs.first(where: { $0.name == name && kinds.contains($0.kind) }) else {
            throw CommandError.software("'\(commandPath)' reads undeclared argument '\(name)'")
        }
        reads.insert(name)
        return spec
    }

    private static func convert<T: ArgumentValue>(_ raw: String, for spec: ArgumentSpec, as type: T.Type) throws -> T {
        do throws(ArgumentValueError) {
            return try T(argument: raw)
        } catch {
            throw UsageError("\(spec.label): expected \(error.expected), got \"\(MessageText.oneLine(raw))\"")
        }
    }

    /// Anything that starts like a negative number (`-5`, `-.5`, `-1/3`) and a lone "-" (stdin) are
    /// values, so `--offset -5` works and `--shard -1/3` is checked as a shard. No option name starts
    /// with a digit.
    static func looksLikeOption(_ word: String) -> Bool {
        guard word.count > 1, word.hasPrefix("-") else { return false }
        let second = word[word.index(after: word.startIndex)]
        return !(second.isASCII && second.isNumber) && second != "."
    }

    private static func match(_ word: String, in specs: [ArgumentSpec]) throws -> (ArgumentSpec, String?) {
        let named = specs.filter { $0.kind == .option || $0.kind == .flag }
        if word.hasPrefix("--") {
            let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard let spec = named.first(where: { $0.name == name }) else {
                throw UsageError("unknown option '\(MessageText.oneLine(name))'")
            }
            return (spec, parts.count > 1 ? String(parts[1]) : nil)
        }
        let letters = word.dropFirst()
        guard let spec = named.first(where: { $0.shortName == letters.first }) else {
            throw UsageError("unknown option '\(MessageText.oneLine(word))'")
        }
        // `-u4` and `-u=4` attach a value; a flag never takes one, so `-vq` is unknown rather than guessed.
        var rest = letters.dropFirst()
        if rest.hasPrefix("=") { rest = rest.dropFirst() }
        if rest.isEmpty { return (spec, nil) }
        guard spec.kind == .option else { throw UsageError("unknown option '\(MessageText.oneLine(word))'") }
        return (spec, String(rest))
    }

    private static func check(_ specs: [ArgumentSpec], commandPath: String) throws {
        func fail(_ problem: String) -> CommandError {
            .software("'\(commandPath)' declares \(problem)")
        }
        var seen: Set<String> = []
        var shorts: Set<Character> = []
        var sawOptionalPositional = false
        for (index, spec) in specs.enumerated() {
            guard seen.insert(spec.name).inserted else { throw fail("'\(spec.name)' twice") }
            if let short = spec.shortName, !shorts.insert(short).inserted { throw fail("'-\(short)' twice") }
            switch spec.kind {
            case .option, .flag:
                guard spec.name.hasPrefix("--") else { throw fail("option '\(spec.name)' without a leading '--'") }
            case .positional:
                if spec.isRequired && sawOptionalPositional {
                    throw fail("required '<\(spec.valueName)>' after an optional positional argument")
                }
                sawOptionalPositional = sawOptionalPositional || !spec.isRequired
            case .variadic:
                let laterPositional = specs[(index + 1)...].contains { $0.kind == .positional || $0.kind == .variadic }
                guard !laterPositional else { throw fail("positional arguments after variadic '<\(spec.valueName)>'") }
            }
        }
    }
}

/// The argument names a `ParsedArguments` has been asked for; a reference, so that reading through
/// any copy counts.
private final class ReadNames: @unchecked Sendable {
    private let lock = NSLock()
    private var read: Set<String> = []

    var names: Set<String> { lock.withLock { read } }

    func insert(_ name: String) {
        lock.withLock { _ = read.insert(name) }
    }
}
