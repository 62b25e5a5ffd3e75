/// Paths as the tool handles them: plain strings split at `/`, nothing else.
///
/// Foundation's `NSString` path methods trap on some ordinary paths on Linux (a one-character name
/// such as `j`, `.`, `a/`, `é`), so every path the tool takes apart or puts together goes through
/// these functions instead. They work on the UTF-8 bytes: a `/` byte never occurs inside another
/// character's encoding, so every piece cut at one is valid text, whatever the name holds (accents,
/// combining marks, spaces, quotes, newlines).
///
/// They only rearrange text: nothing is looked up on disk, `.` and `..` are names like any other,
/// and a path is never made absolute.
public enum Path {
    private static let slash = UInt8(ascii: "/")
    private static let dot = UInt8(ascii: ".")

    /// The folder part of `path`: everything before its last component, without trailing slashes.
    /// `""` when the path is a bare name (the current folder); `"/"` for a name at the root and for
    /// the root itself. `a/b` → `a`, `a/` → `""`, `/a` → `/`, `a//b/` → `a`.
    public static func parent(_ path: String) -> String {
        let bytes = Array(path.utf8)
        var end = trimmedEnd(bytes)
        if end == 0 { return bytes.isEmpty ? "" : "/" }
        while end > 0, bytes[end - 1] != slash { end -= 1 }
        if end == 0 { return "" }
        while end > 0, bytes[end - 1] == slash { end -= 1 }
        return end == 0 ? "/" : String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// The folder that holds `path`, as a path that can be opened: `"."` where `parent` is empty.
    public static func folder(of path: String) -> String {
        let folder = parent(path)
        return folder.isEmpty ? "." : folder
    }

    /// The last component of `path`, without trailing slashes: `a/b` → `b`, `a/` → `a`, `/` → `/`.
    public static func lastComponent(_ path: String) -> String {
        let bytes = Array(path.utf8)
        let end = trimmedEnd(bytes)
        if end == 0 { return bytes.isEmpty ? "" : "/" }
        var start = end
        while start > 0, bytes[start - 1] != slash { start -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// `name` inside `folder`: `join("a", "b")` → `a/b`, `join("", "b")` → `b`, `join("/", "b")` →
    /// `/b`. A `name` that starts with `/` is still put inside `folder` (it is a name, not a path).
    public static func join(_ folder: String, _ name: String) -> String {
        var name = Substring(name)
        while name.utf8.first == slash { name = name.dropFirst() }
        if folder.isEmpty { return String(name) }
        if folder.utf8.last == slash { return folder + name }
        return folder + "/" + name
    }

    /// `name` relative to `folder` unless it is absolute: how a file named inside another file is found.
    public static func resolve(_ name: String, relativeTo folder: String?) -> String {
        guard let folder, !folder.isEmpty, name.utf8.first != slash else { return name }
        return join(folder, name)
    }

    /// The last component of `path` without its extension: `data/events.csv.gz` → `events.csv`,
    /// `.hidden` → `.hidden`, `name.` → `name.`.
    public static func stem(_ path: String) -> String {
        let name = Array(lastComponent(path).utf8)
        guard let dotIndex = name.lastIndex(of: dot), dotIndex > 0, dotIndex < name.count - 1 else {
            return String(decoding: name, as: UTF8.self)
        }
        return String(decoding: name[..<dotIndex], as: UTF8.self)
    }

    /// The end of `bytes` without trailing slashes.
    private static func trimmedEnd(_ bytes: [UInt8]) -> Int {
        var end = bytes.count
        while end > 0, bytes[end - 1] == slash { end -= 1 }
        return end
    }
}

extension Path {
    /// A path as a message shows it: on one line, line breaks, tabs and other control or format
    /// characters escaped (`\n`, `\u{1b}`), and cut to its first `limit` scalars with `…`.
    public static func shown(_ path: String, limit: Int = 160) -> String {
        var out = ""
        var count = 0
        for scalar in path.unicodeScalars {
            if count == limit {
                out += "…"
                break
            }
            count += 1
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out += needsEscape(scalar) ? "\\u{" + String(scalar.value, radix: 16) + "}" : String(scalar)
            }
        }
        return out
    }

    /// `text` as one word of a POSIX shell command line, on one line: as it is when the shell reads
    /// it so (letters, digits and `_-./+,:@%=`, not starting with `-`), in single quotes when nothing
    /// in it needs escaping, and otherwise in bash's `$'…'` with line breaks and control or format
    /// characters escaped, so that a command shown with it can be pasted and names the same file.
    /// A path as a command's argument in a shell: quoted as `shellWord` quotes it, with `./` before a
    /// relative path that starts with `-`, which a command would read as an option.
    public static func shellArgument(_ path: String) -> String { shellWord(path.hasPrefix("-") ? "./" + path : path) }

    public static func shellWord(_ text: String) -> String {
        let plain = !text.isEmpty && !text.hasPrefix("-") && text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-./+,:@%=".unicodeScalars.contains(scalar))
        }
        if plain { return text }
        guard text.unicodeScalars.contains(where: needsEscape) else {
            return "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
        }
        var out = "$'"
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "'": out += "\\'"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                guard needsEscape(scalar) else {
                    out.unicodeScalars.append(scalar)
                    continue
                }
                let hex = String(scalar.value, radix: 16)
                out += scalar.value < 0x80 ? "\\x" + String(repeating: "0", count: 2 - hex.count) + hex
                    : scalar.value < 0x10000 ? "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    : "\\U" + String(repeating: "0", count: 8 - hex.count) + hex
            }
        }
        return out + "'"
    }

    /// Whether `shown` escapes `scalar`: a control character (C0, DEL, C1), a format character (an
    /// invisible or bidirectional mark) or a line or paragraph separator.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x80 { return scalar.value < 0x20 || scalar.value == 0x7F }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }
}
