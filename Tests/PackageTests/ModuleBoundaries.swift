/// The package's module boundaries checked against each other: the imports of every target's files,
/// the dependencies `Package.swift` declares for it, and the rules in its module's README.
struct ModuleBoundaries {
    /// One Swift file of a target with its imports.
    struct SourceFile {
        var target: String
        /// The file's path relative to the package, to name it in problems.
        var path: String
        var imports: [ImportLine]
    }

    var targets: [PackageManifest.Target]
    var files: [SourceFile]
    /// The rules of each target that has a README, by target name.
    var rules: [String: ModuleRules]

    /// Every breach, each naming the file and line or the target, the module and the rule.
    func problems() -> [String] {
        let packageModules = Set(targets.map(\.name))
        var problems: [String] = []
        for target in targets {
            problems += declarationProblems(of: target, packageModules: packageModules)
        }
        for file in files {
            guard let target = targets.first(where: { $0.name == file.target }) else { continue }
            for found in file.imports where found.module != target.name {
                let place = "\(file.path):\(found.line): \(target.name) imports \(found.module)"
                if packageModules.contains(found.module), !target.dependencies.contains(found.module) {
                    problems.append("\(place), which Package.swift does not declare among its dependencies")
                }
                problems += ruleProblems(target.name, using: found.module, packageModules: packageModules, place: place)
                if let users = rules[found.module]?.importedOnlyBy, !users.contains(target.name) {
                    problems.append("\(place), whose README lets only \(users.sorted().joined(separator: ", ")) import it")
                }
            }
        }
        return problems
    }

    /// What is wrong with a target's README rules and with its declared dependencies under them.
    private func declarationProblems(of target: PackageManifest.Target, packageModules: Set<String>) -> [String] {
        guard let rule = rules[target.name] else { return [] }
        var problems = rule.problems
        for listed in (rule.mustNotImport ?? []).union(rule.importedOnlyBy ?? []) where !packageModules.contains(listed) {
            problems.append("\(target.name)/README.md: \(listed) is not a module of the package")
        }
        for listed in (rule.mayImport ?? []).intersection(rule.mustNotImport ?? []) {
            problems.append("\(target.name)/README.md: \(listed) is both allowed and forbidden")
        }
        for dependency in target.dependencies {
            problems += ruleProblems(target.name, using: dependency, packageModules: packageModules,
                                     place: "Package.swift: \(target.name) depends on \(dependency)")
        }
        return problems
    }

    /// Whether `target`'s README allows it to use `module`, as a list of problems naming `place`.
    private func ruleProblems(_ target: String, using module: String, packageModules: Set<String>, place: String) -> [String] {
        guard let rule = rules[target] else { return [] }
        var problems: [String] = []
        if let allowed = rule.mayImport, !allowed.contains(module) {
            problems.append("\(place), which its README does not list under May import")
        }
        if rule.mustNotImport?.contains(module) == true
            || (rule.mustNotImportAnyOther && packageModules.contains(module) && rule.mayImport?.contains(module) != true) {
            problems.append("\(place), which its README says it must not import")
        }
        return problems
    }
}
