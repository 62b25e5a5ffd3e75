/// Builds the `--help` text of a command.
enum Help {
    private static let column = 26
    private static let width = 80

    static func text(for command: any Command.Type, path: [String], isRoot: Bool) -> String {
        let config = command.configuration
        let specs = config.arguments
        var sections = ["OVERVIEW: \(config.abstract)"]
        if !config.discussion.isEmpty { sections.append(config.discussion) }
        sections.append("USAGE: " + ([path.joined(separator: " ")] + usage(config)).joined(separator: " "))

        let positionals = specs.filter { $0.kind == .positional || $0.kind == .variadic }
        if !positionals.isEmpty {
            sections.append(table("ARGUMENTS:", positionals.map { (display($0), describe($0)) }))
        }
        var options = specs.filter { $0.kind == .option || $0.kind == .flag }.map { (display($0), describe($0)) }
        if isRoot { options.append(("--version", "Show the version.")) }
        options.append(("-h, --help", "Show help information."))
        sections.append(table("OPTIONS:", options))

        if !config.subcommands.isEmpty {
            let rows = config.subcommands.map { ($0.configuration.name, $0.configuration.abstract) }
            let hint = "  See '\(path.joined(separator: " ")) help <subcommand>' for detailed help."
            sections.append(table("SUBCOMMANDS:", rows) + "\n\n" + hint)
        }
        return sections.joined(separator: "\n\n") + "\n"
    }

    private static func usage(_ config: CommandConfiguration) -> [String] {
        if !config.subcommands.isEmpty { return ["<subcommand>"] }
        return config.arguments.map { spec in
            switch spec.kind {
            case .option: return spec.isRequired ? "\(spec.name) <\(spec.valueName)>" : "[\(spec.name) <\(spec.valueName)>]"
            case .flag: return "[\(spec.name)]"
            case .positional: return spec.isRequired ? "<\(spec.valueName)>" : "[<\(spec.valueName)>]"
            case .variadic: return "[<\(spec.valueName)> ...]"
            }
        }
    }

    private static func display(_ spec: ArgumentSpec) -> String {
        let short = spec.shortName.map { "-\($0), " } ?? ""
        switch spec.kind {
        case .option: return "\(short)\(spec.name) <\(spec.valueName)>"
        case .flag: return "\(short)\(spec.name)"
        case .positional: return "<\(spec.valueName)>"
        case .variadic: return "<\(spec.valueName)> ..."
        }
    }

    private static func describe(_ spec: ArgumentSpec) -> String {
        guard let defaultValue = spec.defaultValue else { return spec.help }
        // Quoted only when blanks would otherwise be invisible.
        let shown = defaultValue.isEmpty || defaultValue.contains(" ") ? "\"\(defaultValue)\"" : defaultValue
        return "\(spec.help) (default: \(shown))"
    }

    private static func table(_ title: String, _ rows: [(String, String)]) -> String {
        var lines = [title]
        for (left, right) in rows {
            let lead = "  " + left
            let wrapped = wrap(right, width: width - column)
            let padding = String(repeating: " ", count: column)
            // A name too long for its column gets the help on the following line instead of a ragged edge.
            if right.isEmpty {
                lines.append(lead)
            } else if lead.count + 2 > column {
                lines.append(lead)
                lines += wrapped.map { padding + $0 }
            } else {
                lines.append(lead + String(repeating: " ", count: column - lead.count) + (wrapped.first ?? ""))
                lines += wrapped.dropFirst().map { padding + $0 }
            }
        }
        return lines.joined(separator: "\n")
    }

    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty && current.count + 1 + word.count > width {
                lines.append(current)
                current = ""
            }
            current += current.isEmpty ? String(word) : " " + word
        }
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }
}
