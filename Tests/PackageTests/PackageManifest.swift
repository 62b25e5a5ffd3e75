/// The targets of `Package.swift`, read from its text: enough to check imports without the toolchain.
///
/// It understands the forms this package uses — `.target`, `.testTarget`, `.executableTarget` and
/// `.systemLibrary` calls in the `targets:` list of `Package(…)`, with `name:`, `path:` and `dependencies:`
/// given as literals — and reports anything else as a problem rather than guess, so a manifest it cannot
/// read fails the test that uses it instead of passing it.
struct PackageManifest {
    struct Target: Equatable {
        var kind: String
        var name: String
        var dependencies: [String]
        /// The target's folder relative to the package, as given or by SwiftPM's default.
        var path: String
    }

    var targets: [Target] = []
    /// What could not be read, each naming the place.
    var problems: [String] = []

    /// The kinds of target whose sources are Swift files in one folder.
    static let kinds: Set<String> = ["target", "testTarget", "executableTarget", "systemLibrary"]

    init(text: String) {
        let code = Substring(SwiftText.withoutComments(text))
        guard let call = code.range(of: "Package("),
              let arguments = SwiftText.bracketed(code, from: code.index(before: call.upperBound)) else {
            problems.append("Package.swift: no Package(…) call")
            return
        }
        guard let list = Self.argument("targets", in: arguments),
              let open = list.firstIndex(of: "["), let items = SwiftText.bracketed(list, from: open) else {
            problems.append("Package.swift: no targets: [...] list in Package(…)")
            return
        }
        for item in SwiftText.topLevelItems(items) { read(item) }
    }

    /// The value of the argument labelled `label` among a call's top-level arguments.
    static func argument(_ label: String, in arguments: Substring) -> Substring? {
        for item in SwiftText.topLevelItems(arguments) {
            guard let colon = item.firstIndex(of: ":"),
                  SwiftText.trimmed(item[..<colon]) == label else { continue }
            return SwiftText.trimmed(item[item.index(after: colon)...])
        }
        return nil
    }

    /// A call such as `.target(name: "X")`: its name and the text between its parentheses.
    static func call(_ item: Substring) -> (name: Substring, arguments: Substring)? {
        guard item.first == ".", let open = item.firstIndex(of: "("),
              let arguments = SwiftText.bracketed(item, from: open),
              SwiftText.trimmed(item[item.index(after: arguments.endIndex)...]).isEmpty else { return nil }
        let name = item[item.index(after: item.startIndex)..<open]
        return SwiftText.isIdentifier(name) ? (name, arguments) : nil
    }

    private mutating func read(_ item: Substring) {
        let shown = item.prefix(60)
        guard let (kind, arguments) = Self.call(item), Self.kinds.contains(String(kind)) else {
            problems.append("Package.swift: cannot read the target declaration \(shown)")
            return
        }
        guard let nameText = Self.argument("name", in: arguments), let name = SwiftText.stringLiteral(nameText) else {
            problems.append("Package.swift: a target without a literal name: \(shown)")
            return
        }
        var path = (kind == "testTarget" ? "Tests/" : "Sources/") + name
        if let pathText = Self.argument("path", in: arguments) {
            guard let given = SwiftText.stringLiteral(pathText) else {
                problems.append("Package.swift: \(name): the path is not a literal")
                return
            }
            path = given
        }
        var dependencies: [String] = []
        if let list = Self.argument("dependencies", in: arguments) {
            guard list.first == "[", let items = SwiftText.bracketed(list, from: list.startIndex) else {
                problems.append("Package.swift: \(name): the dependencies are not a literal list")
                return
            }
            for dependency in SwiftText.topLevelItems(items) {
                guard let module = Self.dependencyName(dependency) else {
                    problems.append("Package.swift: \(name): cannot read the dependency \(dependency)")
                    continue
                }
                dependencies.append(module)
            }
        }
        targets.append(Target(kind: String(kind), name: name, dependencies: dependencies, path: path))
    }

    /// The module a dependency makes importable: `"X"`, `.target(name: "X")` or `.byName(name: "X")`.
    static func dependencyName(_ item: Substring) -> String? {
        if let literal = SwiftText.stringLiteral(item) { return literal }
        guard let (kind, arguments) = call(item), kind == "target" || kind == "byName",
              let name = argument("name", in: arguments) else { return nil }
        return SwiftText.stringLiteral(name)
    }
}
