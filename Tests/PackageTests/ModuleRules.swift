/// What a module's README allows it to import, from its rule lines:
///
///     May import: Simulation, Fitting, Foundation.
///     Must not import: Storage, Reporting.
///     Imported only by: Storage.
///
/// Each line is a comma-separated list of module names, or `nothing`; `Must not import:` may also say
/// `any other module of the package`. Anything else on a rule line is a problem, so that the rules stay
/// precise enough to be checked.
struct ModuleRules: Equatable {
    static let anyOther = "any other module of the package"

    /// Every module the module may import, the system's and the toolchain's included; `nil` without the line.
    var mayImport: Set<String>?
    /// Modules it must not import; `nil` without the line.
    var mustNotImport: Set<String>?
    /// True when `Must not import:` says `any other module of the package`.
    var mustNotImportAnyOther = false
    /// The only targets that may import the module; `nil` without the line.
    var importedOnlyBy: Set<String>?
    /// What could not be read.
    var problems: [String] = []

    init(readme text: String, name: String) {
        for line in text.split(separator: "\n") {
            if let list = Self.value(of: "May import:", in: line) {
                mayImport = names(list, line: line, name: name)
            } else if let list = Self.value(of: "Must not import:", in: line) {
                if list == Self.anyOther { mustNotImportAnyOther = true; mustNotImport = [] }
                else { mustNotImport = names(list, line: line, name: name) }
            } else if let list = Self.value(of: "Imported only by:", in: line) {
                importedOnlyBy = names(list, line: line, name: name)
            }
        }
    }

    /// The list after `label` on a line that starts with it, without the closing full stop.
    private static func value(of label: String, in line: Substring) -> Substring? {
        guard line.hasPrefix(label) else { return nil }
        var list = SwiftText.trimmed(line.dropFirst(label.count))
        if list.last == "." { list = list.dropLast() }
        return list
    }

    private mutating func names(_ list: Substring, line: Substring, name: String) -> Set<String> {
        if list == "nothing" { return [] }
        var found = Set<String>()
        for item in list.split(separator: ",", omittingEmptySubsequences: false).map(SwiftText.trimmed) {
            if SwiftText.isIdentifier(item) { found.insert(String(item)) }
            else { problems.append("\(name)/README.md: \"\(line)\": \"\(item)\" is not a module name") }
        }
        return found
    }
}
