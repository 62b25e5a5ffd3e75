import Foundation
import GapFamilies
import Simulation
import XCTest

/// The scenarios in `Datasets/` must run, and `Datasets/scenario.schema.json` must describe the
/// same file the reader accepts: the same fields in the same places, the same required fields and
/// the same number ranges.
final class DatasetScenarioTests: XCTestCase {
    static let datasets = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Datasets")
    static let schemaName = "scenario.schema.json"

    /// The fields each object of a scenario file may hold, and those it must hold, as
    /// `ScenarioDecoding.swift` reads them; keyed by where the schema describes that object.
    static let readerObjects: [(schemaPath: [String], allowed: Set<String>, required: Set<String>)] = [
        ([], ["$schema", "name", "description", "seed", "users", "horizonDays", "startDate", "population", "response",
              "configurations", "grid", "baseline", "decision", "liveTest", "tune"], ["name", "population"]),
        (["$defs", "liveTest"], ["holdoutShare", "baselineShare", "days", "users", "preDays"], []),
        (["$defs", "tune"], ["baseline", "objective", "constraints", "minimumDifference", "space"], ["space"]),
        (["$defs", "tuneSpace"], ["periods", "unit", "sequenceLength", "circular", "randomMessage", "messages", "delivery",
                                  "sequences", "mix"], []),
        (["$defs", "tuneSpace", "properties", "sequenceLength"], ["min", "max"], ["min", "max"]),
        (["$defs", "tuneSpace", "properties", "sequences"], ["steps", "afterDays"], ["steps", "afterDays"]),
        (["$defs", "tuneSpace", "properties", "sequences", "properties", "steps"], ["min", "max"], ["min", "max"]),
        (["$defs", "tuneSpace", "properties", "mix"], ["periods"], ["periods"]),
        (["$defs", "tuneRange"], ["min", "max"], ["min", "max"]),
        (["$defs", "decision"], ["objective", "constraints", "minimumDifference"], []),
        (["$defs", "decisionBound"], ["min", "max"], []),
        (["$defs", "population"], ["utcOffsets", "installSpreadDays", "segments", "platforms", "returnPattern"], ["segments"]),
        (["$defs", "platform"], ["platform", "name", "weight", "permission", "segmentWeights", "pendingLimit", "alarms"], ["platform"]),
        (["$defs", "permission"], ["granted", "ask", "provisional"], ["granted"]),
        (["$defs", "alarms"], ["exact", "windowMinutes", "idleShare", "maintenanceMinutes"], []),
        (["$defs", "utcOffset"], ["hours", "zone", "weight"], []),
        (["$defs", "returnPattern"], ["weekdays", "hours"], []),
        (["$defs", "returnPattern", "properties", "weekdays"],
         ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"], []),
        (["$defs", "segment"], ["name", "weight", "returns", "dropoutPerSession", "sessionLength", "coldLaunchAfterMinutes"],
         ["name", "returns"]),
        (["$defs", "sessionLength"], ["medianMinutes", "sigma"], []),
        (["$defs", "response"], ["baseResponse", "messageWeights", "fatigue", "quietHours", "quietFactor", "dormantFactor",
                                 "responseDelayMinutes", "optOutPerDelivery", "attributionWindowHours", "uncertainty"], []),
        (["$defs", "response", "properties", "uncertainty"], ["scale", "parameters", "mean", "covariance"],
         ["parameters", "mean", "covariance"]),
        (["$defs", "response", "properties", "baseResponse"], ["value", "low", "high"], ["value", "low", "high"]),
        (["$defs", "response", "properties", "fatigue"], ["value", "low", "high"], ["value", "low", "high"]),
        (["$defs", "response", "properties", "quietFactor"], ["value", "low", "high"], ["value", "low", "high"]),
        (["$defs", "response", "properties", "dormantFactor"], ["value", "low", "high"], ["value", "low", "high"]),
        (["$defs", "response", "properties", "responseDelayMinutes"], ["value", "low", "high"], ["value", "low", "high"]),
        (["$defs", "response", "properties", "optOutPerDelivery"], ["value", "low", "high"], ["value", "low", "high"]),
        (["$defs", "response", "properties", "quietHours"], ["start", "end"], ["start", "end"]),
        (["$defs", "configuration"], ["label", "mode", "wiring", "reminders", "sequence", "cronRules", "delivery"],
         ["label"]),
        (["$defs", "delivery"], ["sendWindow", "quietHours", "frequencyCap"], []),
        (["$defs", "timeSpan"], ["start", "end"], ["start", "end"]),
        (["$defs", "sequence"], ["afterDays", "messages"], ["afterDays", "messages"]),
        (["$defs", "reminder"], ["messages", "timePeriods", "unit", "randomMessage", "circularTimePeriod", "appDomain"],
         ["messages", "timePeriods"]),
        (["$defs", "grid"], ["labelPrefix", "messages", "timePeriods", "unit", "randomMessage", "circularTimePeriod", "mode",
                             "cronRules"], ["messages", "timePeriods"]),
    ]

    /// The fields of each `returns` form, and the fields each requires. A parametric family's come from
    /// its description: `distribution`, its parameters and `unit`, and one more form for each parameter
    /// that may be given by another field instead (lognormal's `median` for `mu`); every parameter is
    /// required, `unit` is not.
    static var readerDistributions: [String: [(fields: Set<String>, required: Set<String>)]] {
        var forms: [String: [(fields: Set<String>, required: Set<String>)]] = [
            "empirical": [(["distribution", "values", "weights", "unit"], ["distribution", "values"]),
                          (["distribution", "data", "format", "observationEnd"], ["distribution", "data"])],
            "replay": [(["distribution", "data", "format", "observationEnd"], ["distribution", "data"])],
        ]
        for family in GapFamily.allCases {
            let names = family.parameters.map(\.name)
            var variants = [names]
            for (i, parameter) in family.parameters.enumerated() {
                if let alternative = parameter.alternative {
                    var other = names
                    other[i] = alternative.name
                    variants.append(other)
                }
            }
            forms[family.name] = variants.map { (Set(["distribution", "unit"] + $0), Set(["distribution"] + $0)) }
        }
        return forms
    }

    /// Fields whose allowed range depends on another field, with the value that other field is
    /// given while the range is probed (the schema cannot compare two fields).
    static let unitDependentMinimum = [".returns.mean", ".returns.scale", ".returns.alpha"]
    /// The ceiling of these depends on the objective (1 for a share), which a schema range cannot say:
    /// the schema gives the ceiling of a count and MinimumDifferenceTests checks a share's.
    static let objectiveDependentMaximum = ["minimumDifference"]
    /// The ceiling of this depends on the configurations' count (their daily rows, `Scenario.maximumDailyRows`),
    /// which a schema range cannot say: the schema gives the ceiling of the days and ScenarioValidationTests
    /// checks the rows'.
    static let countDependentMaximum = ["horizonDays"]

    static let companions: [String: [(key: String, value: Double)]] = [
        // installSpreadDays ≤ horizonDays
        "population.installSpreadDays": [("horizonDays", 3650)],
    ]

    /// A scenario with every field and every `returns` form, so that all ranges are checked
    /// whatever the examples happen to use.
    static let everyField = #"""
        {"$schema": "scenario.schema.json", "name": "every field", "description": "d", "seed": 3, "users": 10,
         "horizonDays": 30, "startDate": "2026-01-05",
         "population": {
           "utcOffsets": [{"hours": 1, "weight": 1}, {"hours": -5, "weight": 2}, {"zone": "Europe/Berlin", "weight": 1}],
           "installSpreadDays": 10,
           "returnPattern": {"weekdays": {"monday": 1, "tuesday": 1, "wednesday": 1, "thursday": 1, "friday": 1.2, "saturday": 2,
                                          "sunday": 1.5},
                             "hours": [0, 0, 0, 0, 0, 0.5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.5]},
           "segments": [
             {"name": "e", "weight": 1, "returns": {"distribution": "exponential", "mean": 2, "unit": "days"},
              "dropoutPerSession": 0.1, "sessionLength": {"medianMinutes": 3, "sigma": 0.5}, "coldLaunchAfterMinutes": 20},
             {"name": "w", "returns": {"distribution": "weibull", "shape": 0.8, "scale": 2, "unit": "hours"}},
             {"name": "lm", "returns": {"distribution": "lognormal", "mu": 1, "sigma": 1, "unit": "minutes"}},
             {"name": "ld", "returns": {"distribution": "lognormal", "median": 2, "sigma": 1}},
             {"name": "g", "returns": {"distribution": "gamma", "shape": 0.7, "mean": 3, "unit": "hours"}},
             {"name": "b", "returns": {"distribution": "bgnbd", "r": 0.24, "alpha": 4.4, "a": 0.79, "b": 2.4, "unit": "weeks"}},
             {"name": "p", "returns": {"distribution": "paretoNBD", "r": 0.55, "alpha": 10.6, "s": 0.61, "beta": 11.7, "unit": "weeks"}},
             {"name": "x", "returns": {"distribution": "empirical", "values": [1, 2], "weights": [1, 1]}}],
           "platforms": [
             {"platform": "ios", "name": "iPhone", "weight": 2, "pendingLimit": 64, "segmentWeights": {"e": 1, "w": 0.5},
              "permission": {"granted": 0.5, "ask": "install", "provisional": 0.2}},
             {"platform": "android", "weight": 1, "permission": {"granted": 0.7, "ask": "1 3"},
              "alarms": {"exact": false, "windowMinutes": 10, "idleShare": 0.3, "maintenanceMinutes": 60}}]},
         "response": {"baseResponse": 0.1, "messageWeights": {"m \\ \"quoted\"": 2}, "fatigue": 0.9,
           "quietHours": {"start": 22, "end": 7}, "quietFactor": 0.5, "dormantFactor": 0.5, "responseDelayMinutes": 10,
           "optOutPerDelivery": 0.01, "attributionWindowHours": 24},
         "configurations": [
           {"label": "c", "mode": "documented", "wiring": "early", "cronRules": ["1 1"],
            "reminders": [{"messages": ["m", "m \\ \"quoted\""], "timePeriods": [2], "unit": "days", "randomMessage": false,
                           "circularTimePeriod": false, "appDomain": "d"}]}],
         "grid": {"labelPrefix": "g ", "messages": ["m"], "timePeriods": [[1, 2]], "unit": "hours", "randomMessage": [false],
                  "circularTimePeriod": [false], "mode": ["documented"], "cronRules": []},
         "baseline": "c",
         "decision": {"objective": "optOutRate", "constraints": {"opensLiftPerUser": {"min": 0}, "deliveredPerUser": {"min": 1, "max": 30}},
                      "minimumDifference": 0.001},
         "tune": {"baseline": "c", "objective": "opensLiftPerUser", "constraints": {"optOutRate": {"max": 0.03}},
                  "minimumDifference": 0.01,
                  "space": {"periods": {"min": 1, "max": 3}, "unit": "days", "sequenceLength": {"min": 1, "max": 2},
                            "circular": [false, true], "randomMessage": [false], "messages": ["m"],
                            "sequences": {"steps": {"min": 1, "max": 2}, "afterDays": {"min": 1, "max": 3}},
                            "mix": {"periods": {"min": 1, "max": 2}}}}}
        """#

    /// `everyField` names every kind of `returns`, so that the ranges of every family's parameters are probed.
    func testEveryFieldHasEveryKindOfReturns() throws {
        let scenario = try Scenario.decode(Self.everyField)
        let kinds = Set(scenario.population.segments.map(\.returns.distributionName))
        XCTAssertEqual(kinds, Set(ReturnKind.all.map(\.name)).subtracting(["replay"]))
    }

    /// `everyField` and every example file, by name.
    func scenarioTexts() throws -> [(name: String, text: String)] {
        try [("everyField", Self.everyField)]
            + exampleFiles().map { ($0.lastPathComponent, try String(contentsOf: $0, encoding: .utf8)) }
    }

    func exampleFiles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: Self.datasets, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" && $0.lastPathComponent != Self.schemaName }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    func schema() throws -> JSON {
        try JSON.parse(String(contentsOf: Self.datasets.appendingPathComponent(Self.schemaName), encoding: .utf8))
    }

    func testEveryExampleScenarioIsAccepted() throws {
        let files = try exampleFiles()
        let names = Set(files.map(\.lastPathComponent))
        // default-scenario.json may or may not be there; the hand-written examples must be.
        XCTAssertTrue(names.isSuperset(of: ["daily-habit.json", "weekly-rate-app.json"]), "found \(names.sorted())")
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            do {
                let scenario = try Scenario.decode(text, source: file.lastPathComponent)
                XCTAssertFalse(scenario.expandedConfigurations.isEmpty, file.lastPathComponent)
            } catch {
                XCTFail("\(file.lastPathComponent) refused:\n\(error.description)")
            }
        }
    }

    func testSchemaHasTheReadersFieldsAndRequiredFields() throws {
        let root = try schema()
        XCTAssertEqual(root["$schema"], .string("https://json-schema.org/draft/2020-12/schema"))
        XCTAssertNil(root["$id"])
        for (path, allowed, required) in Self.readerObjects {
            let place = path.isEmpty ? "top level" : "#/" + path.joined(separator: "/")
            guard let object = root.at(path) else {
                XCTFail("schema has nothing at \(place)")
                continue
            }
            XCTAssertEqual(object.keySet("properties"), allowed, "properties at \(place)")
            XCTAssertEqual(object.stringSet("required"), required, "required at \(place)")
            XCTAssertEqual(object["additionalProperties"], .bool(false), "additionalProperties at \(place)")
        }

        guard case let .array(alternatives)? = root.at(["$defs", "returns"])?["oneOf"] else {
            return XCTFail("#/$defs/returns has no oneOf")
        }
        var found: [String: [(fields: Set<String>, required: Set<String>)]] = [:]
        for alternative in alternatives {
            guard case let .string(name)? = alternative.at(["properties", "distribution"])?["const"] else {
                XCTFail("a returns alternative has no distribution const")
                continue
            }
            XCTAssertEqual(alternative["additionalProperties"], .bool(false), "additionalProperties of \(name)")
            XCTAssertTrue(alternative.stringSet("required").contains("distribution"), "required of \(name)")
            found[name, default: []].append((alternative.keySet("properties"), alternative.stringSet("required")))
        }
        let expected = Self.readerDistributions
        XCTAssertEqual(Set(found.keys), Set(expected.keys))
        for (name, forms) in expected {
            let schemaForms = found[name] ?? []
            XCTAssertEqual(Set(schemaForms.map(\.fields)), Set(forms.map(\.fields)), "fields of \(name)")
            for form in forms {
                let match = schemaForms.first { $0.fields == form.fields }
                XCTAssertEqual(match?.required, form.required, "required fields of \(name) \(form.fields.sorted())")
            }
        }
    }

    /// The one check that the reader itself decides: which top-level fields it reports missing.
    func testSchemaRequiredTopLevelFieldsAreTheOnesTheReaderAsksFor() throws {
        let root = try schema()
        guard case let .object(members) = try JSON.parse(Self.everyField) else { return XCTFail("not an object") }
        XCTAssertNoThrow(try Scenario.decode(Self.everyField), "everyField must be valid")
        // A field absent from a valid scenario is not required; of the others, the reader names the required.
        var missing: Set<String> = []
        for (key, _) in members {
            let text = JSON.object(members.filter { $0.key != key }).text
            do {
                _ = try Scenario.decode(text)
            } catch {
                if error.issues.contains(where: { $0.path == key && $0.reason.hasPrefix("required field is missing") }) {
                    missing.insert(key)
                }
            }
        }
        XCTAssertEqual(missing, root.stringSet("required"))
    }

    func testExampleKeysAppearInTheSchemaAtTheSamePlace() throws {
        let root = try schema()
        for (name, text) in try scenarioTexts() {
            var walk = SchemaWalk(root: root)
            walk.visit(try JSON.parse(text), schema: root, steps: [])
            XCTAssertEqual(walk.unknown, [], "keys of \(name) that the schema does not describe there")
            XCTAssertFalse(walk.numbers.isEmpty, name)
        }
    }

    /// Moves every number of the examples to the edges of the schema's range and checks that the
    /// reader accepts what the schema accepts and refuses, at that field, what the schema refuses.
    func testSchemaNumberRangesMatchTheReader() throws {
        let root = try schema()
        var probed = 0
        for (name, text) in try scenarioTexts() {
            let example = try JSON.parse(text)
            var walk = SchemaWalk(root: root)
            walk.visit(example, schema: root, steps: [])
            var seen: Set<String> = []
            for leaf in walk.numbers where seen.insert(leaf.schemaKey).inserted {
                for (value, accepted) in leaf.probes() {
                    // The one-second floor of these depends on `unit`, which a schema range cannot say:
                    // the schema gives the hard floor and ScenarioBoundsTests checks the rest.
                    if accepted && Self.unitDependentMinimum.contains(where: leaf.readerPath.hasSuffix)
                        && value < 1 { continue }
                    if accepted && Self.objectiveDependentMaximum.contains(where: leaf.readerPath.hasSuffix)
                        && value > 1 { continue }
                    if accepted && Self.countDependentMaximum.contains(leaf.readerPath),
                       let count = (try? Scenario.decode(text))?.expandedConfigurations.count,
                       Double(count + 1) * value > Double(Scenario.maximumDailyRows) { continue }
                    probed += 1
                    var edited = example.replacing(at: leaf.steps[...], with: .number(value))
                    for (key, other) in Self.companions[leaf.readerPath] ?? [] {
                        edited = edited.replacing(at: [JSONStep.key(key)][...], with: .number(other))
                    }
                    let issues: [ScenarioIssue]
                    do {
                        _ = try Scenario.decode(edited.text)
                        issues = []
                    } catch {
                        issues = error.issues
                    }
                    let refusedHere = issues.contains { $0.path == leaf.readerPath }
                    XCTAssertEqual(
                        !refusedHere, accepted,
                        "\(name): \(leaf.readerPath) = \(value): the schema \(accepted ? "accepts" : "refuses") it, "
                            + "the reader says \(issues.map(\.description))")
                }
            }
        }
        XCTAssertGreaterThan(probed, 100)
    }
}

/// One step of a path into a JSON value.
private enum JSONStep: Equatable {
    case key(String)
    case index(Int)
}

/// A number found in a scenario, where it is, and the schema that describes it.
private struct NumberLeaf {
    let steps: [JSONStep]
    /// The path as the reader writes it in its issues, e.g. `population.segments[0].weight`.
    let readerPath: String
    let schema: JSON

    /// The same schema place for every element of a list, so each range is probed once per list.
    var schemaKey: String {
        steps.map { step in
            switch step {
            case let .key(k): return "." + k
            case .index: return "[]"
            }
        }.joined()
    }

    /// Values at and just beyond each bound, with whether the schema accepts them.
    func probes() -> [(Double, Bool)] {
        let integer = schema["type"] == .string("integer")
        func step(_ bound: Double) -> Double { integer ? 1 : max(abs(bound) * 1e-9, 1e-9) }
        var out: [(Double, Bool)] = []
        if case let .number(m)? = schema["minimum"] { out += [(m, true), (m - step(m), false)] }
        if case let .number(m)? = schema["exclusiveMinimum"] { out += [(m, false), (m + step(m), true)] }
        if case let .number(m)? = schema["maximum"] { out += [(m, true), (m + step(m), false)] }
        if case let .number(m)? = schema["exclusiveMaximum"] { out += [(m, false), (m - step(m), true)] }
        if integer, let inside = out.first(where: { $0.1 })?.0 { out.append((inside + 0.5, false)) }
        return out
    }
}

/// Walks a scenario and the schema side by side: object keys against `properties` (or a schema
/// in `additionalProperties`), array elements against `items`, `$ref`s resolved, and `oneOf`
/// narrowed to the alternatives whose `distribution` and fields fit the object.
private struct SchemaWalk {
    let root: JSON
    var unknown: [String] = []
    var numbers: [NumberLeaf] = []

    init(root: JSON) { self.root = root }

    func resolved(_ schema: JSON) -> JSON {
        guard case let .string(ref)? = schema["$ref"], ref.hasPrefix("#/") else { return schema }
        return root.at(ref.dropFirst(2).split(separator: "/").map(String.init)).map(resolved) ?? .null
    }

    /// The schema and the `oneOf` alternatives that could describe `object`.
    func candidates(for object: JSON, in schema: JSON) -> [JSON] {
        let schema = resolved(schema)
        guard case let .array(alternatives)? = schema["oneOf"] else { return [schema] }
        let keys = object.keySet()
        let fitting = alternatives.map(resolved).filter { alternative in
            if let kind = alternative.at(["properties", "distribution"])?["const"], kind != object["distribution"] {
                return false
            }
            return keys.isSubset(of: alternative.keySet("properties"))
        }
        return [schema] + fitting
    }

    static func readerPath(_ steps: [JSONStep], additional: Set<Int>) -> String {
        var out = ""
        for (i, step) in steps.enumerated() {
            switch step {
            case let .index(n): out += "[\(n)]"
            case let .key(k) where additional.contains(i):
                out += "[\"" + k.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"]"
            case let .key(k): out += out.isEmpty ? k : "." + k
            }
        }
        return out
    }

    mutating func visit(_ value: JSON, schema: JSON, steps: [JSONStep], additional: Set<Int> = []) {
        let schema = resolved(schema)
        switch value {
        case let .object(members):
            let places = candidates(for: value, in: schema)
            for (key, member) in members {
                let path = steps + [.key(key)]
                if let sub = places.lazy.compactMap({ $0.at(["properties", key]) }).first {
                    visit(member, schema: sub, steps: path, additional: additional)
                } else if let sub = places.lazy.compactMap({ $0["additionalProperties"] }).first(where: { $0.isObject }) {
                    visit(member, schema: sub, steps: path, additional: additional.union([steps.count]))
                } else {
                    unknown.append(Self.readerPath(path, additional: additional))
                }
            }
        case let .array(elements):
            guard let items = schema["items"] else {
                if !elements.isEmpty { unknown.append(Self.readerPath(steps, additional: additional) + "[]") }
                return
            }
            for (i, element) in elements.enumerated() {
                visit(element, schema: items, steps: steps + [.index(i)], additional: additional)
            }
        case .number:
            numbers.append(NumberLeaf(steps: steps, readerPath: Self.readerPath(steps, additional: additional), schema: schema))
        default:
            break
        }
    }
}

extension JSON {
    fileprivate subscript(key: String) -> JSON? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    fileprivate func at(_ keys: [String]) -> JSON? {
        keys.reduce(Optional(self)) { $0?[$1] }
    }

    fileprivate var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// The keys of this object, or of its member `key`.
    fileprivate func keySet(_ key: String? = nil) -> Set<String> {
        guard case let .object(members)? = key.map({ self[$0] }) ?? self else { return [] }
        return Set(members.map(\.key))
    }

    fileprivate func stringSet(_ key: String) -> Set<String> {
        guard case let .array(elements)? = self[key] else { return [] }
        return Set(elements.compactMap { if case let .string(s) = $0 { s } else { nil } })
    }

    fileprivate func replacing(at steps: ArraySlice<JSONStep>, with new: JSON) -> JSON {
        guard let first = steps.first else { return new }
        switch (self, first) {
        case let (.object(members), .key(k)):
            return .object(members.map {
                (key: $0.key, value: $0.key == k ? $0.value.replacing(at: steps.dropFirst(), with: new) : $0.value)
            })
        case let (.array(elements), .index(i)):
            var copy = elements
            copy[i] = copy[i].replacing(at: steps.dropFirst(), with: new)
            return .array(copy)
        default:
            return self
        }
    }

    /// JSON text of the value; numbers keep every digit the reader needs.
    fileprivate var text: String {
        switch self {
        case .null: return "null"
        case let .bool(b): return b ? "true" : "false"
        case let .number(x): return x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : String(x)
        case let .string(s):
            var out = "\""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        case let .array(elements): return "[" + elements.map(\.text).joined(separator: ",") + "]"
        case let .object(members):
            return "{" + members.map { JSON.string($0.key).text + ":" + $0.value.text }.joined(separator: ",") + "}"
        }
    }
}
