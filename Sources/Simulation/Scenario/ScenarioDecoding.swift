import Foundation
import CronEngine
import ReminderEngine

extension Scenario {
    /// Reads and checks a scenario file's text. Every problem found is reported, each with its
    /// JSON path; nothing is defaulted silently except the documented defaults.
    public static func decode(_ text: String, source: String? = nil) throws(ScenarioError) -> Scenario {
        let json: JSON
        do {
            json = try JSON.parse(text)
        } catch {
            throw ScenarioError(source: source, issues: [ScenarioIssue(path: "", reason: "not valid JSON: \(error)")])
        }
        var reader = JSONFieldReader()
        let scenario = reader.scenario(json)
        var issues = reader.issues
        for issue in scenario?.semanticIssues() ?? [] where !issues.contains(issue) { issues.append(issue) }
        guard let scenario, issues.isEmpty else { throw ScenarioError(source: source, issues: issues) }
        return scenario
    }

    static let noConfigurations = "at least one configuration (or a grid) is required"

    /// The most configurations (listed and generated) one scenario may compare, besides the holdout:
    /// each is simulated for every user and stored with its own tables.
    public static let maximumConfigurations = 1_000

    static let blank = "must not be only spaces"

    /// True for text that is not empty but shows nothing: spaces, tabs, line breaks.
    static func isBlank(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isWhitespace }
    }

    static func spreadBeyondHorizon(_ spread: Double, _ horizon: Int) -> String {
        "installs are spread over \(spread == spread.rounded() ? String(Int(spread)) : String(spread)) days but the run "
            + "lasts \(horizon) (horizonDays): users would install after it ends; shorten the spread or lengthen the run"
    }

    /// Checks that only make sense on a whole scenario (sums, uniqueness, parsing rules).
    public func semanticIssues() -> [ScenarioIssue] {
        var issues: [ScenarioIssue] = []
        func fail(_ p: String, _ r: String) { issues.append(ScenarioIssue(path: p, reason: r)) }

        if name.isEmpty { fail("name", "must not be empty") } else if Self.isBlank(name) { fail("name", Self.blank) }
        if users < 1 { fail("users", "must be ≥ 1, got \(users)") }
        if horizonDays < 1 || horizonDays > 3_650 { fail("horizonDays", "must be between 1 and 3650, got \(horizonDays)") }
        if CalendarDate(iso: startDate) == nil { fail("startDate", "must be a date YYYY-MM-DD, got \"\(startDate)\"") }

        if population.installSpreadDays > Double(horizonDays) {
            fail("population.installSpreadDays", Scenario.spreadBeyondHorizon(population.installSpreadDays, horizonDays))
        }
        if !(population.utcOffsets.map(\.weight).reduce(0, +) > 0) {
            fail("population.utcOffsets", "weights must add up to a positive number")
        }
        if !(population.segments.map(\.weight).reduce(0, +) > 0) {
            fail("population.segments", "weights must add up to a positive number")
        }
        for (i, s) in population.segments.enumerated() {
            if case let .empirical(values, weights, _) = s.returns {
                let p = "population.segments[\(i)].returns"
                if let weights {
                    if weights.count != values.count {
                        fail("\(p).weights", "must have one weight per value (\(values.count)), got \(weights.count)")
                    } else if !(weights.reduce(0, +) > 0) {
                        fail("\(p).weights", "must add up to a positive number")
                    }
                }
            }
        }
        var segmentNames: [String: Int] = [:]
        for (i, segment) in population.segments.enumerated() {
            if segment.name.isEmpty {
                fail("population.segments[\(i)].name", "must not be empty")
            } else if Self.isBlank(segment.name) {
                fail("population.segments[\(i)].name", Self.blank)
            } else if let first = segmentNames[segment.name] {
                fail("population.segments[\(i)].name", "\"\(segment.name)\" is already the name of population.segments[\(first)]")
            } else {
                segmentNames[segment.name] = i
            }
        }
        issues += boundIssues()
        // Checked before anything expands the grid: a grid of millions would exhaust memory first.
        let gridSize = grid?.combinationCount ?? 0
        if gridSize > Self.maximumConfigurations - configurations.count {
            fail("grid", "expands to \(gridSize == Int.max ? "too many" : String(gridSize)) configurations; with the "
                 + "\(configurations.count) listed, a scenario may compare at most \(Self.maximumConfigurations)")
            return issues
        }
        let allMessages = Set(expandedConfigurations.flatMap { $0.reminders.flatMap(\.messages) })
        for key in response.messageWeights.keys.sorted() where !allMessages.contains(key) {
            fail("response.messageWeights[\(JSONFieldReader.quote(key))]", "matches no message of any configuration")
        }
        if let q = response.quietHours, q.start == q.end {
            fail("response.quietHours", "start and end must differ (got \(q.start) for both)")
        }

        let all = expandedConfigurations
        if all.isEmpty { fail("configurations", Scenario.noConfigurations) }
        var seen: [String: String] = [:]
        for (i, c) in all.enumerated() {
            let p = i < configurations.count ? "configurations[\(i)]" : "grid"
            if c.label.isEmpty { fail("\(p).label", "must not be empty") } else if Self.isBlank(c.label) { fail("\(p).label", Self.blank) }
            if c.label.lowercased() == "holdout" { fail("\(p).label", "\"holdout\" is reserved for the holdout") }
            if let first = seen[c.label] {
                // A grid's labels are made, not written: the duplicate is a repeated choice in the grid.
                fail(i < configurations.count ? "\(p).label" : "grid",
                     "\"\(c.label)\" is already the label of \(first)")
            } else {
                seen[c.label] = p
            }
            issues += c.issues(at: p, listed: i < configurations.count)
        }
        // A grid reports each problem once, not once per combination.
        var unique: [ScenarioIssue] = []
        for issue in issues where !unique.contains(issue) { unique.append(issue) }
        return unique
    }
}

extension ConfigurationSpec {
    /// The simulation tracks a configuration's pending notifications in one 64-bit mask.
    public static let maximumReminders = 64

    /// Problems of one configuration on its own: engine settings, domains, cron rules in its mode.
    /// `listed` is false for a grid's configurations, whose problems are reported at `grid`.
    func issues(at p: String, listed: Bool) -> [ScenarioIssue] {
        var issues: [ScenarioIssue] = []
        if reminders.count > Self.maximumReminders {
            issues.append(ScenarioIssue(
                path: listed ? "\(p).reminders" : p,
                reason: "at most \(Self.maximumReminders) reminders per configuration, got \(reminders.count)"))
        }
        var domains: Set<String> = []
        for (j, r) in reminders.enumerated() {
            let rp = listed ? "\(p).reminders[\(j)]" : p
            do {
                _ = try ReminderConfiguration(
                    messages: r.messages, timePeriods: r.timePeriods, unit: r.unit, appDomain: r.appDomain)
            } catch {
                issues.append(ScenarioIssue(path: rp, reason: error.description))
            }
            for (k, message) in r.messages.enumerated() where message.allSatisfy(\.isWhitespace) {
                issues.append(ScenarioIssue(
                    path: listed ? "\(rp).messages[\(k)]" : "grid.messages[\(k)]",
                    reason: message.isEmpty ? "must not be empty" : Scenario.blank))
            }
            if !domains.insert(r.appDomain).inserted {
                issues.append(ScenarioIssue(
                    path: "\(rp).appDomain", reason: "\"\(r.appDomain)\" is used by another reminder of this configuration"))
            }
        }
        for (j, rule) in cronRules.enumerated() {
            do {
                _ = try CronRule(parsing: rule, mode: CronMode(rawValue: mode.rawValue) ?? .documented)
            } catch {
                issues.append(ScenarioIssue(path: "\(p).cronRules[\(j)]", reason: "\(error.reason) (rule \"\(rule)\")"))
            }
        }
        return issues
    }
}

extension JSONFieldReader {
    /// An optional field without a default: nil when absent, `.none` when present but invalid.
    mutating func optionalField<T>(
        _ object: ObjectFields, _ key: String, _ read: (inout JSONFieldReader, JSON, String) -> T?
    ) -> T?? {
        guard let json = object[key] else { return .some(nil) }
        return read(&self, json, object.path(key)).map { .some($0) }
    }

    /// A field's value read by `read`, its default when absent, or a "required" issue.
    mutating func field<T>(
        _ object: ObjectFields, _ key: String, default value: T? = nil,
        _ read: (inout JSONFieldReader, JSON, String) -> T?
    ) -> T? {
        guard let json = object[key] else {
            if value == nil { fail(object.path(key), "required field is missing") }
            return value
        }
        return read(&self, json, object.path(key))
    }

    static func number(_ check: NumberCheck) -> (inout JSONFieldReader, JSON, String) -> Double? {
        { r, j, p in r.number(j, at: p, check) }
    }

    static func integer(_ check: NumberCheck) -> (inout JSONFieldReader, JSON, String) -> Int? {
        { r, j, p in r.integer(j, at: p, check) }
    }

    static func string(_ r: inout JSONFieldReader, _ j: JSON, _ p: String) -> String? { r.string(j, at: p) }
    static func bool(_ r: inout JSONFieldReader, _ j: JSON, _ p: String) -> Bool? { r.bool(j, at: p) }

    mutating func scenario(_ json: JSON) -> Scenario? {
        guard let o = object(json, at: "", allowed: [
            "$schema", "name", "description", "seed", "users", "horizonDays", "startDate", "population", "response",
            "configurations", "grid",
        ]) else { return nil }
        let name = field(o, "name", Self.string)
        if name == "" { fail(o.path("name"), "must not be empty") }
        let description = optionalField(o, "description", Self.string)
        let seed = field(o, "seed", default: 1) { r, j, p -> UInt64? in
            guard let x = r.integer(j, at: p, .nonNegative) else { return nil }
            return UInt64(x)
        }
        let users = field(o, "users", default: 10_000, Self.integer(.positive))
        let horizon = field(o, "horizonDays", default: 90, Self.integer(.positive))
        let start = field(o, "startDate", default: "2026-01-05", Self.string)
        if let start, CalendarDate(iso: start) == nil {
            fail(o.path("startDate"), "must be a date YYYY-MM-DD, got \"\(start)\"")
        }
        let population = field(o, "population") { r, j, p in r.population(j, at: p) }
        let response = field(o, "response", default: ResponseModel.defaults) { r, j, p in r.response(j, at: p) }
        let configurations = field(o, "configurations", default: []) { r, j, p in
            r.list(j, at: p) { r, j, p in r.configuration(j, at: p) }
        }
        let grid = optionalField(o, "grid") { r, j, p in r.grid(j, at: p) }
        // Whole-scenario checks whose inputs were read, so they are reported alongside other problems.
        if let configurations, let grid, configurations.isEmpty, grid == nil {
            fail("configurations", Scenario.noConfigurations)
        }
        if let horizon, let population, population.installSpreadDays > Double(horizon) {
            fail("population.installSpreadDays", Scenario.spreadBeyondHorizon(population.installSpreadDays, horizon))
        }
        guard let name, let description, let seed, let users, let horizon, let start, let population, let response,
            let configurations, let grid
        else { return nil }
        return Scenario(
            name: name, description: description, seed: seed, users: users, horizonDays: horizon, startDate: start,
            population: population, response: response, configurations: configurations, grid: grid)
    }

    mutating func population(_ json: JSON, at path: String) -> Population? {
        guard let o = object(json, at: path, allowed: ["utcOffsets", "installSpreadDays", "segments"]) else { return nil }
        let offsets = field(o, "utcOffsets", default: [UTCOffsetShare(hours: 0, weight: 1)]) { r, j, p in
            r.list(j, at: p, nonEmpty: true) { r, j, p -> UTCOffsetShare? in
                guard let e = r.object(j, at: p, allowed: ["hours", "weight"]) else { return nil }
                let hours = r.field(e, "hours", Self.number(.within(-12...14)))
                let weight = r.field(e, "weight", default: 1, Self.number(.within(0...1e6)))
                guard let hours, let weight else { return nil }
                return UTCOffsetShare(hours: hours, weight: weight)
            }
        }
        let spread = field(o, "installSpreadDays", default: Population.defaultInstallSpreadDays, Self.number(.within(0...3650)))
        let segments = field(o, "segments") { r, j, p in
            r.list(j, at: p, nonEmpty: true) { r, j, p in r.segment(j, at: p) }
        }
        guard let offsets, let spread, let segments else { return nil }
        return Population(utcOffsets: offsets, installSpreadDays: spread, segments: segments)
    }

    mutating func segment(_ json: JSON, at path: String) -> Segment? {
        guard let o = object(json, at: path, allowed: [
            "name", "weight", "returns", "dropoutPerSession", "sessionLength", "coldLaunchAfterMinutes",
        ]) else { return nil }
        let name = field(o, "name", Self.string)
        let weight = field(o, "weight", default: 1, Self.number(.within(0...1e6)))
        let returns = field(o, "returns") { r, j, p in r.returnProcess(j, at: p) }
        let dropout = field(o, "dropoutPerSession", default: Segment.defaultDropoutPerSession, Self.number(.probability))
        let session = field(o, "sessionLength", default: SessionLength()) { r, j, p -> SessionLength? in
            guard let s = r.object(j, at: p, allowed: ["medianMinutes", "sigma"]) else { return nil }
            let median = r.field(s, "medianMinutes", default: SessionLength.defaultMedianMinutes, Self.number(.positiveUpTo(1e6)))
            let sigma = r.field(s, "sigma", default: SessionLength.defaultSigma, Self.number(.positiveUpTo(5)))
            guard let median, let sigma else { return nil }
            return SessionLength(medianMinutes: median, sigma: sigma)
        }
        let cold = field(o, "coldLaunchAfterMinutes", default: Segment.defaultColdLaunchAfterMinutes,
                         Self.number(.within(0...1e6)))
        guard let name, let weight, let returns, let dropout, let session, let cold else { return nil }
        return Segment(name: name, weight: weight, returns: returns, dropoutPerSession: dropout,
                       sessionLength: session, coldLaunchAfterMinutes: cold)
    }

    mutating func returnProcess(_ json: JSON, at path: String) -> ReturnProcess? {
        guard case let .object(members) = json else {
            fail(path, "expected an object, got \(json.typeName)")
            return nil
        }
        guard let kindJSON = members.first(where: { $0.key == "distribution" })?.value else {
            fail(JSONFieldReader.join(path, "distribution"),
                 "required field is missing; expected one of \"exponential\", \"weibull\", \"lognormal\", \"bgnbd\", \"empirical\", \"replay\"")
            return nil
        }
        guard let kind = string(kindJSON, at: JSONFieldReader.join(path, "distribution")) else { return nil }
        let units: (inout JSONFieldReader, JSON, String) -> GapUnit? = { r, j, p in r.enumeration(j, at: p, as: GapUnit.self) }
        switch kind {
        case "exponential":
            guard let o = object(json, at: path, allowed: ["distribution", "mean", "unit"]) else { return nil }
            let mean = field(o, "mean", Self.number(.positiveUpTo(1e6)))
            let unit = field(o, "unit", default: GapUnit.days, units)
            guard let mean, let unit else { return nil }
            return .exponential(mean: mean, unit: unit)
        case "weibull":
            guard let o = object(json, at: path, allowed: ["distribution", "shape", "scale", "unit"]) else { return nil }
            let shape = field(o, "shape", Self.number(.within(0.05...50)))
            let scale = field(o, "scale", Self.number(.positiveUpTo(1e6)))
            let unit = field(o, "unit", default: GapUnit.days, units)
            guard let shape, let scale, let unit else { return nil }
            return .weibull(shape: shape, scale: scale, unit: unit)
        case "lognormal":
            guard let o = object(json, at: path, allowed: ["distribution", "mu", "median", "sigma", "unit"]) else {
                return nil
            }
            if o["mu"] != nil && o["median"] != nil {
                fail(path, "give either mu or median, not both")
                return nil
            }
            let mu: Double?
            if o["median"] != nil {
                mu = field(o, "median", Self.number(.within(1e-20...1e6))).map { log($0) }
            } else {
                mu = field(o, "mu", Self.number(.within(-50...50)))
            }
            let sigma = field(o, "sigma", Self.number(.positiveUpTo(10)))
            let unit = field(o, "unit", default: GapUnit.days, units)
            guard let mu, let sigma, let unit else { return nil }
            return .lognormal(mu: mu, sigma: sigma, unit: unit)
        case "bgnbd":
            guard let o = object(json, at: path, allowed: ["distribution", "r", "alpha", "a", "b", "unit"]) else {
                return nil
            }
            let r = field(o, "r", Self.number(.positiveUpTo(1e6)))
            let alpha = field(o, "alpha", Self.number(.positiveUpTo(1e6)))
            let a = field(o, "a", Self.number(.positiveUpTo(1e6)))
            let b = field(o, "b", Self.number(.positiveUpTo(1e6)))
            let unit = field(o, "unit", default: GapUnit.days, units)
            guard let r, let alpha, let a, let b, let unit else { return nil }
            return .bgnbd(r: r, alpha: alpha, a: a, b: b, unit: unit)
        case "empirical":
            if members.contains(where: { $0.key == "data" }) {
                guard let o = object(json, at: path, allowed: ["distribution", "data", "format", "observationEnd"]) else {
                    return nil
                }
                return recordedSource(o).map { .recordedGaps($0) }
            }
            guard let o = object(json, at: path, allowed: ["distribution", "values", "weights", "unit"]) else {
                return nil
            }
            let values = field(o, "values") { r, j, p in
                r.list(j, at: p, nonEmpty: true) { r, j, p in r.number(j, at: p, .positiveUpTo(1e6)) }
            }
            let weights = optionalField(o, "weights") { r, j, p in
                r.list(j, at: p, nonEmpty: true) { r, j, p in r.number(j, at: p, .within(0...1e6)) }
            }
            let unit = field(o, "unit", default: GapUnit.days, units)
            guard let values, let weights, let unit else { return nil }
            return .empirical(values: values, weights: weights, unit: unit)
        case "replay":
            guard let o = object(json, at: path, allowed: ["distribution", "data", "format", "observationEnd"]) else {
                return nil
            }
            return recordedSource(o).map { .replay($0) }
        default:
            fail(JSONFieldReader.join(path, "distribution"),
                 "unknown distribution \"\(kind)\"; expected one of \"exponential\", \"weibull\", \"lognormal\", \"bgnbd\", \"empirical\", \"replay\"")
            return nil
        }
    }

    mutating func response(_ json: JSON, at path: String) -> ResponseModel? {
        guard let o = object(json, at: path, allowed: [
            "baseResponse", "messageWeights", "fatigue", "quietHours", "quietFactor", "dormantFactor",
            "responseDelayMinutes", "optOutPerDelivery", "attributionWindowHours",
        ]) else { return nil }
        let d = ResponseModel.defaults
        let base = field(o, "baseResponse", default: d.baseResponse, Self.number(.probability))
        let weights = field(o, "messageWeights", default: d.messageWeights) { r, j, p -> [String: Double]? in
            guard case let .object(members) = j else {
                r.fail(p, "expected an object mapping message text to weight, got \(j.typeName)")
                return nil
            }
            var out: [String: Double] = [:]
            var ok = true
            for (k, v) in members {
                if let w = r.number(v, at: "\(p)[\(JSONFieldReader.quote(k))]", .within(0...1e6)) { out[k] = w } else { ok = false }
            }
            return ok ? out : nil
        }
        let fatigue = field(o, "fatigue", default: d.fatigue, Self.number(.probability))
        let quiet = field(o, "quietHours", default: d.quietHours) { r, j, p -> QuietHours?? in
            if case .null = j { return .some(nil) }
            guard let q = r.object(j, at: p, allowed: ["start", "end"]) else { return nil }
            let start = r.field(q, "start", Self.integer(.within(0...23)))
            let end = r.field(q, "end", Self.integer(.within(0...23)))
            guard let start, let end else { return nil }
            return .some(QuietHours(start: start, end: end))
        }
        let quietFactor = field(o, "quietFactor", default: d.quietFactor, Self.number(.within(0...1e6)))
        let dormantFactor = field(o, "dormantFactor", default: d.dormantFactor, Self.number(.within(0...1e6)))
        let delay = field(o, "responseDelayMinutes", default: d.responseDelayMinutes, Self.number(.positiveUpTo(1e6)))
        let optOut = field(o, "optOutPerDelivery", default: d.optOutPerDelivery, Self.number(.probability))
        let window = field(o, "attributionWindowHours", default: d.attributionWindowHours, Self.number(.positiveUpTo(1e6)))
        guard let base, let weights, let fatigue, let quiet, let quietFactor, let dormantFactor, let delay, let optOut,
            let window
        else { return nil }
        return ResponseModel(
            baseResponse: base, messageWeights: weights, fatigue: fatigue, quietHours: quiet, quietFactor: quietFactor,
            dormantFactor: dormantFactor, responseDelayMinutes: delay, optOutPerDelivery: optOut,
            attributionWindowHours: window)
    }

    static func quote(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    mutating func configuration(_ json: JSON, at path: String) -> ConfigurationSpec? {
        guard let o = object(json, at: path, allowed: ["label", "mode", "reminders", "cronRules"]) else { return nil }
        let label = field(o, "label", Self.string)
        let mode = field(o, "mode", default: EngineMode.documented) { r, j, p in r.enumeration(j, at: p, as: EngineMode.self) }
        let reminders = field(o, "reminders", default: []) { r, j, p in
            r.list(j, at: p) { r, j, p in r.reminder(j, at: p) }
        }
        let rules = field(o, "cronRules", default: []) { r, j, p in r.list(j, at: p, Self.string) }
        guard let label, let mode, let reminders, let rules else {
            // Still check the rules in the mode given, so one run of `validate` reports them too.
            if let rules {
                issues += ConfigurationSpec(label: "", mode: mode ?? .documented, reminders: [], cronRules: rules)
                    .issues(at: path, listed: true)
            }
            return nil
        }
        return ConfigurationSpec(label: label, mode: mode, reminders: reminders, cronRules: rules)
    }

    mutating func reminder(_ json: JSON, at path: String) -> ReminderSpec? {
        guard let o = object(json, at: path, allowed: [
            "messages", "timePeriods", "unit", "randomMessage", "circularTimePeriod", "appDomain",
        ]) else { return nil }
        let messages = field(o, "messages") { r, j, p in r.list(j, at: p, nonEmpty: true, Self.string) }
        let periods = field(o, "timePeriods") { r, j, p in r.list(j, at: p, nonEmpty: true, Self.integer(.positive)) }
        let unit = field(o, "unit", default: PeriodUnit.days) { r, j, p in r.enumeration(j, at: p, as: PeriodUnit.self) }
        let random = field(o, "randomMessage", default: false, Self.bool)
        let circular = field(o, "circularTimePeriod", default: false, Self.bool)
        let domain = field(o, "appDomain", default: ReminderConfiguration.defaultAppDomain, Self.string)
        guard let messages, let periods, let unit, let random, let circular, let domain else { return nil }
        return ReminderSpec(messages: messages, timePeriods: periods, unit: unit, randomMessage: random,
                            circularTimePeriod: circular, appDomain: domain)
    }

    mutating func grid(_ json: JSON, at path: String) -> GridSpec? {
        guard let o = object(json, at: path, allowed: [
            "labelPrefix", "messages", "timePeriods", "unit", "randomMessage", "circularTimePeriod", "mode", "cronRules",
        ]) else { return nil }
        let prefix = field(o, "labelPrefix", default: "", Self.string)
        let messages = field(o, "messages") { r, j, p in r.list(j, at: p, nonEmpty: true, Self.string) }
        let periods = field(o, "timePeriods") { r, j, p in
            r.list(j, at: p, nonEmpty: true) { r, j, p in r.list(j, at: p, nonEmpty: true, Self.integer(.positive)) }
        }
        let unit = field(o, "unit", default: PeriodUnit.days) { r, j, p in r.enumeration(j, at: p, as: PeriodUnit.self) }
        let random = field(o, "randomMessage", default: [false]) { r, j, p in r.list(j, at: p, nonEmpty: true, Self.bool) }
        let circular = field(o, "circularTimePeriod", default: [false]) { r, j, p in
            r.list(j, at: p, nonEmpty: true, Self.bool)
        }
        let modes = field(o, "mode", default: [EngineMode.documented]) { r, j, p in
            r.list(j, at: p, nonEmpty: true) { r, j, p in r.enumeration(j, at: p, as: EngineMode.self) }
        }
        let rules = field(o, "cronRules", default: []) { r, j, p in r.list(j, at: p, Self.string) }
        guard let prefix, let messages, let periods, let unit, let random, let circular, let modes, let rules else {
            return nil
        }
        return (GridSpec(labelPrefix: prefix, messages: messages, timePeriods: periods, unit: unit,
                              randomMessage: random, circularTimePeriod: circular, mode: modes, cronRules: rules))
    }
}
