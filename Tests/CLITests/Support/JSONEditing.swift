import Foundation

/// Edits a JSON tree (as `JSONSerialization` reads it) at paths written the way the tool reports
/// them, such as `configurations[0].reminders[0].timePeriods`, so a test reads like a user's edit.
enum JSONEdit {
    enum Step: Equatable {
        case key(String)
        case index(Int)
    }

    struct PathError: Error, CustomStringConvertible {
        let description: String
    }

    static func steps(_ path: String) -> [Step] {
        var steps: [Step] = []
        for part in path.split(separator: ".") {
            var rest = Substring(part)
            if let bracket = rest.firstIndex(of: "[") {
                if bracket > rest.startIndex { steps.append(.key(String(rest[..<bracket]))) }
                rest = rest[bracket...]
                while rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
                    steps.append(.index(Int(rest[rest.index(after: rest.startIndex)..<close])!))
                    rest = rest[rest.index(after: close)...]
                }
            } else {
                steps.append(.key(String(rest)))
            }
        }
        return steps
    }

    /// `json` with the value at `path` replaced by `value`, or removed when `value` is nil.
    static func setting(_ value: Any?, at path: String, in json: Any) throws -> Any {
        try setting(value, at: steps(path)[...], in: json, whole: path)
    }

    /// `json` with the object member at `path` renamed to `newName`, keeping its value.
    static func renaming(_ path: String, to newName: String, in json: Any) throws -> Any {
        let value = try self.value(at: path, in: json)
        var parent = steps(path)
        parent.removeLast()
        let withoutOld = try setting(nil, at: path, in: json)
        let newPath = (parent.isEmpty ? [] : [render(parent)]) + [newName]
        return try setting(value, at: newPath.joined(separator: "."), in: withoutOld)
    }

    static func value(at path: String, in json: Any) throws -> Any {
        var current = json
        for step in steps(path) {
            switch step {
            case let .key(key):
                guard let object = current as? [String: Any], let next = object[key] else {
                    throw PathError(description: "\(path): no member \"\(key)\"")
                }
                current = next
            case let .index(index):
                guard let array = current as? [Any], array.indices.contains(index) else {
                    throw PathError(description: "\(path): no element \(index)")
                }
                current = array[index]
            }
        }
        return current
    }

    private static func render(_ steps: [Step]) -> String {
        var out = ""
        for step in steps {
            switch step {
            case let .key(key): out += out.isEmpty ? key : "." + key
            case let .index(index): out += "[\(index)]"
            }
        }
        return out
    }

    private static func setting(_ value: Any?, at steps: ArraySlice<Step>, in json: Any, whole: String) throws -> Any {
        guard let step = steps.first else { return value as Any }
        let rest = steps.dropFirst()
        switch step {
        case let .key(key):
            guard var object = json as? [String: Any] else {
                throw PathError(description: "\(whole): \"\(key)\" is not inside an object")
            }
            if rest.isEmpty {
                object[key] = value
            } else {
                guard let child = object[key] else { throw PathError(description: "\(whole): no member \"\(key)\"") }
                object[key] = try setting(value, at: rest, in: child, whole: whole)
            }
            return object
        case let .index(index):
            guard var array = json as? [Any], array.indices.contains(index) else {
                throw PathError(description: "\(whole): no element \(index)")
            }
            if rest.isEmpty {
                if let value { array[index] = value } else { array.remove(at: index) }
            } else {
                array[index] = try setting(value, at: rest, in: array[index], whole: whole)
            }
            return array
        }
    }

    static func text(_ json: Any) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
