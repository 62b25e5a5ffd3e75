/// Arguments declared and read in one type, so that what a command shows in its help and what it
/// reads cannot drift apart: a command lists `Group.specs` in its configuration's arguments and
/// builds `Group(arguments)` from what was parsed. The group reads its values through its own specs
/// (`arguments.value(Self.users)`), never by spelling a name again; reading a spec the command did
/// not declare fails with an internal error (exit 70) on the first run that reaches it.
public protocol OptionGroup: Sendable {
    /// The group's options, flags and positional arguments, in the order the help shows them.
    static var specs: [ArgumentSpec] { get }

    /// Reads the group's values; throws `UsageError` for a value the group refuses.
    init(_ arguments: ParsedArguments) throws
}

extension ArgumentSpec {
    /// The same argument with another help text, value name or default: for a command whose use of a
    /// shared option differs (a different default, a file rather than a folder), while its name stays
    /// declared in one place.
    public func described(_ help: String, valueName: String? = nil, default defaultValue: String? = nil) -> ArgumentSpec {
        ArgumentSpec(kind: kind, name: name, shortName: shortName, valueName: valueName ?? self.valueName,
                     help: help, defaultValue: defaultValue, isRequired: isRequired && defaultValue == nil)
    }
}

/// Reading through a declared spec rather than its name: the name is written once, where the spec is.
extension ParsedArguments {
    public func flag(_ spec: ArgumentSpec) throws -> Bool {
        try flag(spec.name)
    }

    /// Whether the argument was given explicitly rather than defaulted.
    public func isPresent(_ spec: ArgumentSpec) throws -> Bool {
        try isPresent(spec.name)
    }

    /// The argument's value, falling back to its declared default.
    public func value<T: ArgumentValue>(_ spec: ArgumentSpec, as type: T.Type = T.self) throws -> T {
        try value(spec.name, as: type)
    }

    /// The argument's value with a range check; `expected` replaces the type's own description in errors.
    public func value<T: ArgumentValue>(
        _ spec: ArgumentSpec, as type: T.Type = T.self, expected: String, where isValid: (T) -> Bool
    ) throws -> T {
        try value(spec.name, as: type, expected: expected, where: isValid)
    }

    /// The argument's value with a range check when it was given; nil when it was not.
    public func valueIfPresent<T: ArgumentValue>(
        _ spec: ArgumentSpec, as type: T.Type = T.self, expected: String, where isValid: (T) -> Bool
    ) throws -> T? {
        try isPresent(spec) ? value(spec, as: type, expected: expected, where: isValid) : nil
    }

    /// The value if given or defaulted, otherwise nil.
    public func optionalValue<T: ArgumentValue>(_ spec: ArgumentSpec, as type: T.Type = T.self) throws -> T? {
        try optionalValue(spec.name, as: type)
    }

    /// The words collected by a variadic argument.
    public func values<T: ArgumentValue>(_ spec: ArgumentSpec, as type: T.Type = T.self) throws -> [T] {
        try values(spec.name, as: type)
    }
}
