import RecordedData
import Foundation
import GapFamilies
import CronEngine
import ReminderEngine

extension Scenario {
    /// Reads and checks a scenario file's text. Every problem found is reported, each with its
    /// JSON path; nothing is defaulted silently except the documented defaults.
    public static func decode(_ text: String, source: String? = nil) throws(ScenarioError) -> Scenario {
        try decode(text, source: source, relaxed: false)
    }

    /// A scenario stored with a run: decoded as `decode` does, but without the limits a new run must
    /// keep (see `JSONFieldReader.relaxed`), which a run saved before them may exceed.
    public static func decodeStored(_ text: String, source: String? = nil) throws(ScenarioError) -> Scenario {
        try decode(text, source: source, relaxed: true)
    }

    private static func decode(_ text: String, source: String?, relaxed: Bool) throws(ScenarioError) -> Scenario {
        let json: JSON
        do {
            json = try JSON.parse(text)
        } catch {
            throw ScenarioError(source: source, issues: [ScenarioIssue(path: "", reason: "not valid JSON: \(error)")])
        }
        var reader = JSONFieldReader()
        reader.relaxed = relaxed
        // Fields are checked as they are read, and the rules over several fields on whatever could be read,
        // so that one pass reports every problem.
        let (scenario, parts) = reader.scenario(json)
        let issues = reader.issues + parts.issues() + parts.tuneIssues()
        guard let scenario, issues.isEmpty else { throw ScenarioError(source: source, issues: issues) }
        return scenario
    }

    /// The most configurations (listed and generated) one scenario may compare, besides the holdout:
    /// each is simulated for every user and stored with its own tables.
    public static let maximumConfigurations = 1_000
    /// The most rows of daily counts a run may store and report: configurations and the holdout, times
    /// its days (about 1.5 KB of memory each while stored and reported).
    public static let maximumDailyRows = 400_000
    /// The most segments a population may have: each is counted apart under every configuration.
    public static let maximumSegments = 1_000
    /// The most rows of counts per segment and per platform a run may store and report: the segments
    /// and platforms, times the configurations and the holdout (a few kilobytes of memory each while
    /// simulated, stored and reported).
    public static let maximumBreakdownRows = 100_000

    /// What the configurations count as: the listed ones, then the grid's; a list longer than the
    /// limit is named first, as the part of the file that made the count.
    static func configurationCountIssue(listed: Int, generated: Int) -> ScenarioIssue? {
        let limit = "a scenario may compare at most \(TextLimit.grouped(maximumConfigurations))"
        let made = generated == Int.max ? "too many" : TextLimit.grouped(generated)
        if listed > maximumConfigurations {
            let grid = generated > 0 ? " (and the grid makes \(made) more)" : ""
            return ScenarioIssue(path: "configurations", reason: "lists \(TextLimit.grouped(listed)) configurations\(grid); \(limit)")
        }
        guard generated > maximumConfigurations - listed else { return nil }
        let total = generated == Int.max ? "too many" : TextLimit.grouped(listed + generated)
        let with = listed > 0 ? ", which with the \(TextLimit.grouped(listed)) listed in configurations makes \(total)" : ""
        return ScenarioIssue(path: "grid", reason: "expands to \(made) configurations\(with); \(limit)")
    }

    static let blank = "must not be only spaces"

    /// True for text that is not empty but shows nothing: spaces, tabs, line breaks.
    static func isBlank(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isWhitespace }
    }
}

extension ConfigurationSpec {
    /// The simulation tracks which of a configuration's notifications fired in two 64-bit masks.
    public static let maximumReminders = 128
    /// The simulation looks up which cron rules match at a launch as one 64-bit mask.
    public static let maximumCronRules = 64
    /// The most messages, and the most periods, one reminder may list: each is counted on its own
    /// for every configuration, in memory and in stored rows.
    public static let maximumMessagesPerReminder = 64
    public static let maximumPeriodsPerReminder = 64
    /// The most messages and periods all configurations together may list (a grid's combinations
    /// each count theirs): what the run keeps per user grows with it.
    public static let maximumSlots = 100_000

    /// How many messages and periods the reminders list, each counted for itself.
    var slots: Int { reminders.reduce(0) { $0 + $1.messages.count + $1.timePeriods.count } }

    /// Problems of one configuration on its own: engine settings, domains, cron rules in its mode.
    /// `listed` is false for a grid's configurations, whose problems are reported at `grid`.
    func issues(at p: String, listed: Bool, relaxed: Bool = false) -> [ScenarioIssue] {
        var issues: [ScenarioIssue] = []
        if reminders.count > Self.maximumReminders {
            issues.append(ScenarioIssue(
                path: listed ? "\(p).\(sequence == nil ? "reminders" : "sequence.afterDays")" : p,
                reason: "at most \(Self.maximumReminders) reminders per configuration, got \(reminders.count)"))
        }
        if cronRules.count > Self.maximumCronRules {
            issues.append(ScenarioIssue(
                path: listed ? "\(p).cronRules" : p,
                reason: "at most \(Self.maximumCronRules) cron rules per configuration, got \(cronRules.count)"))
        }
        if mode.isOriginal && reminders.count > 1 {
            issues.append(ScenarioIssue(
                path: listed ? "\(p).reminders" : p,
                reason: "\(mode.rawValue) mode allows one reminder, got \(reminders.count): the released ACPReminder "
                    + "is a singleton whose stored state does not depend on appDomain"))
        }
        if wiring == .readme && !mode.isOriginal {
            issues.append(ScenarioIssue(
                path: "\(p).wiring",
                reason: "\"readme\" reproduces the released code's wiring and needs mode \"original\" or "
                    + "\"original-1.0.0\"; documented mode is always \"early\""))
        }
        var domains: Set<String> = []
        for (j, r) in reminders.enumerated() {
            let rp = listed ? "\(p).reminders[\(j)]" : p
            if !relaxed && r.messages.count > Self.maximumMessagesPerReminder {
                issues.append(ScenarioIssue(
                    path: listed ? "\(rp).messages" : "grid.messages",
                    reason: "at most \(Self.maximumMessagesPerReminder) messages per reminder, got \(r.messages.count)"))
                continue
            }
            if !relaxed && r.timePeriods.count > Self.maximumPeriodsPerReminder {
                issues.append(ScenarioIssue(
                    path: listed ? "\(rp).timePeriods" : "grid.timePeriods",
                    reason: "at most \(Self.maximumPeriodsPerReminder) periods per reminder, got \(r.timePeriods.count)"))
                continue
            }
            do {
                _ = try ReminderConfiguration(
                    messages: r.messages, timePeriods: r.timePeriods, unit: r.unit, appDomain: r.appDomain, mode: mode)
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
                    path: "\(rp).appDomain", reason: "\(ScenarioIssue.quote(r.appDomain)) is used by another reminder of this configuration"))
            }
        }
        for (j, spec) in cronRules.enumerated() {
            do {
                _ = try CronRule(parsing: spec.rule, mode: cronMode)
            } catch {
                // A marked rule's text is its object's `rule`.
                let path = "\(p).cronRules[\(j)]" + (spec.prompt == nil ? "" : ".rule")
                issues.append(ScenarioIssue(path: path, reason: "\(error.reason) (rule \(ScenarioIssue.quote(spec.rule)))"))
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

    mutating func scenario(_ json: JSON) -> (Scenario?, ScenarioParts) {
        guard let o = object(json, at: "") else { return (nil, ScenarioParts()) }
        defer { self.finish(o) }
        // Editors' schema reference: allowed, and not used.
        _ = o["$schema"]
        var parts = ScenarioParts()
        parts.relaxed = relaxed
        parts.name = field(o, "name", Self.name)
        let description = optionalField(o, "description", Self.description)
        let seed = field(o, "seed", default: 1) { r, j, p -> UInt64? in
            guard let x = r.integer(j, at: p, .nonNegative) else { return nil }
            return UInt64(x)
        }
        parts.users = field(o, "users", default: 10_000, Self.integer(.positive))
        parts.horizonDays = field(o, "horizonDays", default: 90, Self.integer(.positive))
        parts.startDate = field(o, "startDate", default: "2026-01-05", Self.string)
        parts.population = field(o, "population") { r, j, p in r.population(j, at: p) }
        let response = field(o, "response", default: (model: ResponseModel.defaults, complete: true)) { r, j, p in r.response(j, at: p) }
        parts.response = response?.model
        let listed = field(o, "configurations", default: []) { r, j, p in
            r.elements(j, at: p) { r, j, p in r.configuration(j, at: p) }
        }
        parts.configurations = listed?.map { $0?.spec }
        parts.labels = listed?.map { $0?.label }
        parts.grid = optionalField(o, "grid") { r, j, p in r.grid(j, at: p) }
        parts.baseline = optionalField(o, "baseline", Self.name)
        let decision = optionalField(o, "decision") { r, j, p in r.decisionRule(j, at: p) }
        parts.decision = decision
        parts.tune = optionalField(o, "tune") { r, j, p in r.tuneSpec(j, at: p) }
        let liveTest = optionalField(o, "liveTest") { r, j, p in r.liveTestSettings(j, at: p) }
        guard let name = parts.name, let description, let seed, let users = parts.users,
              let horizon = parts.horizonDays, let start = parts.startDate, let population = parts.population?.whole,
              let response, response.complete, let configurations = Self.whole(parts.configurations),
              let grid = parts.grid, let baseline = parts.baseline, let decision, let tune = parts.tune, let liveTest
        else { return (nil, parts) }
        var scenario = Scenario(
            name: name, description: description, seed: seed, users: users, horizonDays: horizon, startDate: start,
            population: population, response: response.model, configurations: configurations, grid: grid,
            baseline: baseline, decision: decision, tune: tune)
        scenario.liveTest = liveTest
        return (scenario, parts)
    }

    mutating func population(_ json: JSON, at path: String) -> PopulationParts? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let offsets = field(o, "utcOffsets", default: [UTCOffsetShare(hours: 0, weight: 1)]) { r, j, p in
            r.list(j, at: p, nonEmpty: true) { r, j, p in r.offsetShare(j, at: p) }
        }
        let spread = field(o, "installSpreadDays", default: Population.defaultInstallSpreadDays, Self.number(.within(0...3650)))
        let segments = field(o, "segments") { r, j, p in
            r.elements(j, at: p, nonEmpty: true) { r, j, p in r.segment(j, at: p) }
        }
        let platforms = optionalField(o, "platforms") { r, j, p in r.platforms(j, at: p) }
        let pattern = optionalField(o, "returnPattern") { r, j, p in r.returnPattern(j, at: p) }
        return PopulationParts(utcOffsets: offsets, installSpreadDays: spread, segments: segments, platforms: platforms,
                               returnPattern: pattern)
    }

    mutating func segment(_ json: JSON, at path: String) -> Segment? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let name = field(o, "name", Self.name)
        let weight = field(o, "weight", default: 1, Self.number(.within(0...1e6)))
        let returns = field(o, "returns") { r, j, p in r.returnProcess(j, at: p) }
        let dropout = field(o, "dropoutPerSession", default: Segment.defaultDropoutPerSession, Self.number(.probability))
        let session = field(o, "sessionLength", default: SessionLength()) { r, j, p -> SessionLength? in
            guard let s = r.object(j, at: p) else { return nil }
            defer { r.finish(s) }
            let median = r.field(s, "medianMinutes", default: SessionLength.defaultMedianMinutes, Self.number(.positiveUpTo(1e6)))
            let sigma = r.field(s, "sigma", default: SessionLength.defaultSigma, Self.number(.positiveUpTo(5)))
            guard let median, let sigma else { return nil }
            return SessionLength(medianMinutes: median, sigma: sigma)
        }
        let cold = field(o, "coldLaunchAfterMinutes", default: Segment.defaultColdLaunchAfterMinutes,
                         Self.number(.within(0...1e6)))
        guard let name, let weight, let returns, let dropout, let session, let cold else {
            // The bounds that involve only what could be read are still checked.
            issues += Scenario.boundIssues(session: session, returns: returns, at: path)
            return nil
        }
        return Segment(name: name, weight: weight, returns: returns, dropoutPerSession: dropout,
                       sessionLength: session, coldLaunchAfterMinutes: cold)
    }

    mutating func returnProcess(_ json: JSON, at path: String) -> ReturnProcess? {
        let expected = "expected one of " + ReturnKind.all.map { "\"\($0.name)\"" }.joined(separator: ", ")
        guard let o = object(json, at: path) else { return nil }
        guard let kindJSON = o["distribution"] else {
            fail(o.path("distribution"), "required field is missing; \(expected)")
            return nil
        }
        guard let name = string(kindJSON, at: o.path("distribution")) else { return nil }
        guard let kind = ReturnKind(name: name) else {
            fail(o.path("distribution"), "unknown distribution \(ScenarioIssue.quote(name)); \(expected)")
            return nil
        }
        defer { self.finish(o) }
        let units: (inout JSONFieldReader, JSON, String) -> GapUnit? = { r, j, p in r.enumeration(j, at: p, as: GapUnit.self) }
        let readUnit = { (r: inout JSONFieldReader) in r.field(o, "unit", default: GapUnit.days, units) }
        switch kind {
        case let .parametric(family):
            let values = family.parameters.map { parameter($0, of: o, at: path) }
            let unit = readUnit(&self)
            let read = values.compactMap { $0 }
            guard read.count == values.count, let unit else { return nil }
            return .parametric(family, values: read, unit: unit)
        case .empirical where o["data"] != nil:
            return recordedSource(o).map { .recordedGaps($0) }
        case .empirical:
            let values = field(o, "values") { r, j, p in
                r.list(j, at: p, nonEmpty: true) { r, j, p in r.number(j, at: p, .positiveUpTo(1e6)) }
            }
            let weights = optionalField(o, "weights") { r, j, p in
                r.list(j, at: p, nonEmpty: true) { r, j, p in r.number(j, at: p, .within(0...1e6)) }
            }
            let unit = readUnit(&self)
            guard let values, let weights, let unit else { return nil }
            return .empirical(values: values, weights: weights, unit: unit)
        case .replay:
            return recordedSource(o).map { .replay($0) }
        }
    }

    /// One parameter of a parametric family, read from its field or from the field that may stand in
    /// for it (lognormal's `median` for `mu`), never both.
    mutating func parameter(_ parameter: GapParameter, of o: ObjectFields, at path: String) -> Double? {
        guard let alternative = parameter.alternative else {
            return field(o, parameter.name, Self.number(parameter.bounds.check))
        }
        if o[parameter.name] != nil && o[alternative.name] != nil {
            fail(path, "give either \(parameter.name) or \(alternative.name), not both")
            return nil
        }
        if o[alternative.name] != nil {
            return field(o, alternative.name, Self.number(alternative.bounds.check)).map(alternative.parameter)
        }
        return field(o, parameter.name, Self.number(parameter.bounds.check))
    }

    /// The response model, and whether every field could be read: one that could not stands in with its
    /// default, which no rule over several fields refuses, so that those rules still check the others.
    mutating func response(_ json: JSON, at path: String) -> (model: ResponseModel, complete: Bool)? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let d = ResponseModel.defaults
        var ranges: [UncertainParameter: ParameterRange] = [:]
        let base = uncertainField(o, .baseResponse, default: d.baseResponse, .probability, into: &ranges)
        let weights = field(o, "messageWeights", default: d.messageWeights) { r, j, p in
            r.dictionary(j, at: p, mapping: "message text to weight") { r, k, v in
                let at = "\(p)[\(JSONFieldReader.quote(k))]"
                if !r.relaxed, let reason = TextLimit.message.refusal(k) {
                    r.fail(at, "a message of " + reason)
                    return nil
                }
                return r.number(v, at: at, .within(0...1e6)).map { (k, $0) }
            }
        }
        let fatigue = uncertainField(o, .fatigue, default: d.fatigue, .probability, into: &ranges)
        let quiet = field(o, "quietHours", default: d.quietHours) { r, j, p -> QuietHours?? in
            if case .null = j { return .some(nil) }
            guard let q = r.object(j, at: p) else { return nil }
            defer { r.finish(q) }
            let start = r.field(q, "start", Self.integer(.within(0...23)))
            let end = r.field(q, "end", Self.integer(.within(0...23)))
            guard let start, let end else { return nil }
            return .some(QuietHours(start: start, end: end))
        }
        let quietFactor = uncertainField(o, .quietFactor, default: d.quietFactor, .within(0...1e6), into: &ranges)
        let dormantFactor = uncertainField(o, .dormantFactor, default: d.dormantFactor, .within(0...1e6), into: &ranges)
        let delay = uncertainField(o, .responseDelayMinutes, default: d.responseDelayMinutes, .positiveUpTo(1e6), into: &ranges)
        let optOut = uncertainField(o, .optOutPerDelivery, default: d.optOutPerDelivery, .probability, into: &ranges)
        let joint = optionalField(o, "uncertainty") { r, j, p in r.jointUncertainty(j, at: p, ranged: ranges) }
        let window = field(o, "attributionWindowHours", default: d.attributionWindowHours, Self.number(.positiveUpTo(1e6)))
        let complete = base != nil && weights != nil && fatigue != nil && quiet != nil && quietFactor != nil
            && dormantFactor != nil && delay != nil && optOut != nil && window != nil && joint != nil
        var model = ResponseModel(
            baseResponse: base ?? d.baseResponse, messageWeights: weights ?? d.messageWeights, fatigue: fatigue ?? d.fatigue,
            quietHours: quiet ?? d.quietHours, quietFactor: quietFactor ?? d.quietFactor,
            dormantFactor: dormantFactor ?? d.dormantFactor, responseDelayMinutes: delay ?? d.responseDelayMinutes,
            optOutPerDelivery: optOut ?? d.optOutPerDelivery, attributionWindowHours: window ?? d.attributionWindowHours)
        let uncertainty = ResponseUncertainty(ranges: ranges, joint: joint ?? nil)
        model.uncertainty = uncertainty.isEmpty ? nil : uncertainty
        return (model, complete)
    }

    /// A response parameter given as a number, or as `{"value", "low", "high"}`: a value with its 95%
    /// interval on the parameter's scale (log-odds for a chance, log for a factor or the delay), which
    /// goes into `ranges`.
    mutating func uncertainField(
        _ o: ObjectFields, _ p: UncertainParameter, default value: Double, _ check: NumberCheck,
        into ranges: inout [UncertainParameter: ParameterRange]
    ) -> Double? {
        field(o, p.rawValue, default: value) { r, j, path in
            guard case .object = j else { return r.number(j, at: path, check) }
            guard let b = r.object(j, at: path) else { return nil }
            let v = r.field(b, "value", Self.number(check))
            let low = r.field(b, "low", Self.number(check))
            let high = r.field(b, "high", Self.number(check))
            r.finish(b)
            guard let v, let low, let high else { return nil }
            guard low <= v, v <= high else {
                r.fail(path, "needs low ≤ value ≤ high, got low \(low), value \(v), high \(high)")
                return nil
            }
            guard p.scale.forward(low) != nil, p.scale.forward(high) != nil else {
                let open = p.scale == .logOdds ? "strictly between 0 and 1" : "above 0"
                r.fail(path, "a range is read on the \(p.scale == .logOdds ? "log-odds" : "log") scale: low and high must be \(open)")
                return nil
            }
            ranges[p] = ParameterRange(value: v, low: low, high: high)
            return v
        }
    }

    /// `response.uncertainty`: a joint normal of some parameters' log-odds, as `calibrate` writes it.
    mutating func jointUncertainty(_ json: JSON, at path: String, ranged: [UncertainParameter: ParameterRange]) -> JointUncertainty? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let scale = field(o, "scale", default: UncertaintyScale.logOdds.rawValue, Self.string)
        let names = field(o, "parameters") { r, j, p in
            r.array(j, at: p).flatMap { items in
                let read = items.enumerated().map { k, item in r.enumeration(item, at: "\(p)[\(k)]", as: UncertainParameter.self) }
                return read.contains { $0 == nil } ? nil : read.compactMap { $0 }
            }
        }
        let mean = field(o, "mean") { r, j, p in r.numbers(j, at: p) }
        let covariance = field(o, "covariance") { r, j, p in
            r.array(j, at: p).flatMap { rows in
                let read = rows.enumerated().map { k, row in r.numbers(row, at: "\(p)[\(k)]") }
                return read.contains { $0 == nil } ? nil : read.compactMap { $0 }
            }
        }
        guard let scale, let names, let mean, let covariance else { return nil }
        if scale != UncertaintyScale.logOdds.rawValue {
            fail(JSONFieldReader.join(path, "scale"), "must be \"logOdds\": the covariance is of the parameters' log-odds")
            return nil
        }
        let n = names.count
        if n == 0 { fail(JSONFieldReader.join(path, "parameters"), "names no parameter"); return nil }
        if Set(names).count != n { fail(JSONFieldReader.join(path, "parameters"), "names a parameter twice"); return nil }
        if let twice = names.first(where: { ranged[$0] != nil }) {
            fail(JSONFieldReader.join(path, "parameters"), "\(twice.rawValue) is also given a range: give it one uncertainty")
            return nil
        }
        if let factor = names.first(where: { $0 == .responseDelayMinutes }) {
            fail(JSONFieldReader.join(path, "parameters"), "\(factor.rawValue) has no log-odds: give it a range instead")
            return nil
        }
        guard mean.count == n, covariance.count == n, covariance.allSatisfy({ $0.count == n }) else {
            fail(path, "mean needs \(n) numbers and covariance \(n) rows of \(n), one per parameter")
            return nil
        }
        let joint = JointUncertainty(parameters: names, mean: mean, covariance: covariance)
        guard joint.cholesky != nil else {
            fail(JSONFieldReader.join(path, "covariance"), "must be symmetric and positive semi-definite")
            return nil
        }
        return joint
    }

    /// An array of numbers.
    mutating func numbers(_ json: JSON, at path: String) -> [Double]? {
        guard let items = array(json, at: path) else { return nil }
        let read = items.enumerated().map { k, item in number(item, at: "\(path)[\(k)]") }
        return read.contains { $0 == nil } ? nil : read.compactMap { $0 }
    }

    static func quote(_ s: String) -> String {
        "\"" + Excerpt.shortened(s).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// A listed configuration, and its label even when the rest cannot be read, for the rules on labels.
    mutating func configuration(_ json: JSON, at path: String) -> (label: String?, spec: ConfigurationSpec?)? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let label = field(o, "label", Self.name)
        let mode = field(o, "mode", default: EngineMode.documented) { r, j, p in r.enumeration(j, at: p, as: EngineMode.self) }
        let wiring = optionalField(o, "wiring") { r, j, p in r.enumeration(j, at: p, as: ReminderWiring.self) }
        let reminders = field(o, "reminders", default: []) { r, j, p in
            r.list(j, at: p) { r, j, p in r.reminder(j, at: p) }
        }
        let sequence = optionalField(o, "sequence") { r, j, p in r.sequence(j, at: p) }
        let rules = field(o, "cronRules", default: []) { r, j, p in r.list(j, at: p, Self.cronRule) }
        let delivery = field(o, "delivery", default: DeliveryPolicy()) { r, j, p in r.delivery(j, at: p) }
        var conflict = false
        if case .some(.some) = sequence, let reminders, !reminders.isEmpty {
            fail(o.path("sequence"), "a configuration has either reminders or a sequence, not both")
            conflict = true
        }
        if case .some(.some) = sequence, let mode, mode.isOriginal {
            fail(o.path("sequence"), "a sequence stacks several reminders, which only documented mode can run "
                 + "(the released library is a singleton)")
            conflict = true
        }
        guard !conflict, let label, let mode, let wiring, let reminders, let sequence, let rules, let delivery else {
            // Still check what could be read, so that one run of `validate` reports it too: the cron rules
            // (in the mode given, else the default), and the reminders when their mode is known.
            var partial = ConfigurationSpec(label: "", mode: mode ?? .documented, reminders: [], cronRules: rules ?? [])
            if let mode, !conflict {
                partial.wiring = wiring ?? nil
                if case let .some(.some(s)) = sequence {
                    partial = ConfigurationSpec(label: "", sequence: s, cronRules: rules ?? [])
                } else if let reminders {
                    partial.reminders = reminders
                }
                partial.mode = mode
            }
            issues += partial.issues(at: path, listed: true, relaxed: relaxed)
            return (label, nil)
        }
        var spec = sequence.map { ConfigurationSpec(label: label, sequence: $0, cronRules: rules) }
            ?? ConfigurationSpec(label: label, mode: mode, wiring: wiring, reminders: reminders, cronRules: rules)
        spec.delivery = delivery
        return (label, spec)
    }

    /// One cron rule: its text, or `{"rule": TEXT, "prompt": NAME}` for a rule whose block asks for a
    /// system prompt (`CronPrompt`).
    static func cronRule(_ r: inout JSONFieldReader, _ j: JSON, _ p: String) -> CronRuleSpec? {
        switch j {
        case .string: return name(&r, j, p).map { CronRuleSpec($0) }
        case .object: break
        default:
            r.fail(p, "expected a rule's text, or an object such as {\"rule\": \"1 */7\", \"prompt\": \"storeReview\"} "
                   + "for a rule that asks for a system prompt, got \(j.typeName)")
            return nil
        }
        guard let o = r.object(j, at: p) else { return nil }
        defer { r.finish(o) }
        let rule = r.field(o, "rule", Self.name)
        let prompt = r.field(o, "prompt") { r, j, p in r.enumeration(j, at: p, as: CronPrompt.self) }
        guard let rule, let prompt else { return nil }
        return CronRuleSpec(rule, prompt: prompt)
    }

    mutating func delivery(_ json: JSON, at path: String) -> DeliveryPolicy? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let quiet = optionalField(o, "quietHours") { r, j, p in r.timeSpan(j, at: p) }
        let window = optionalField(o, "sendWindow") { r, j, p -> DeliveryPolicy.SendWindow? in
            if case .string("usualHour") = j { return .usualHour }
            if case let .string(text) = j {
                r.fail(p, "expected \"usualHour\" or an object {\"start\": \"HH:MM\", \"end\": \"HH:MM\"}, got \(ScenarioIssue.quote(text))")
                return nil
            }
            return r.timeSpan(j, at: p).map { .span($0) }
        }
        let cap = optionalField(o, "frequencyCap") { r, j, p -> DeliveryPolicy.FrequencyCap? in
            guard let c = r.object(j, at: p) else { return nil }
            defer { r.finish(c) }
            let max = r.field(c, "max", Self.integer(.within(1...Double(DeliveryPolicy.FrequencyCap.largestMax))))
            let days = r.field(c, "perDays", Self.number(.positiveUpTo(365)))
            guard let max, let days else { return nil }
            return DeliveryPolicy.FrequencyCap(max: max, perDays: days)
        }
        guard let quiet, let window, let cap else { return nil }
        return DeliveryPolicy(quietHours: quiet, sendWindow: window, frequencyCap: cap)
    }

    /// `{"start": "HH:MM", "end": "HH:MM"}`, local clock times; the span wraps past midnight when end < start.
    mutating func timeSpan(_ json: JSON, at path: String) -> LocalTimeSpan? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let read = { (r: inout JSONFieldReader, key: String) -> Int? in
            r.field(o, key) { r, j, p -> Int? in
                guard let text = r.string(j, at: p) else { return nil }
                guard let minute = LocalTimeSpan.minute(text) else {
                    r.fail(p, "expected a local time HH:MM, 00:00 to 23:59, got \(ScenarioIssue.quote(text))")
                    return nil
                }
                return minute
            }
        }
        let start = read(&self, "start"), end = read(&self, "end")
        guard let start, let end else { return nil }
        guard start != end else {
            fail(path, "start and end must differ (got \(LocalTimeSpan.text(start)) for both)")
            return nil
        }
        return LocalTimeSpan(startMinute: start, endMinute: end)
    }

    mutating func sequence(_ json: JSON, at path: String) -> SequenceSpec? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let days = field(o, "afterDays") { r, j, p in r.list(j, at: p, nonEmpty: true, Self.integer(.positive)) }
        let messages = field(o, "messages") { r, j, p in r.list(j, at: p, nonEmpty: true, Self.message) }
        guard let days, let messages else { return nil }
        let sequence = SequenceSpec(afterDays: days, messages: messages)
        let problems = sequence.problems()
        for problem in problems { fail(o.path(problem.field), problem.reason) }
        return problems.isEmpty ? sequence : nil
    }

    mutating func reminder(_ json: JSON, at path: String) -> ReminderSpec? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let messages = field(o, "messages") { r, j, p in r.list(j, at: p, nonEmpty: true, Self.message) }
        let periods = field(o, "timePeriods") { r, j, p in r.list(j, at: p, nonEmpty: true, Self.integer(.positive)) }
        let unit = field(o, "unit", default: PeriodUnit.days) { r, j, p in r.enumeration(j, at: p, as: PeriodUnit.self) }
        let random = field(o, "randomMessage", default: false, Self.bool)
        let circular = field(o, "circularTimePeriod", default: false, Self.bool)
        let domain = field(o, "appDomain", default: ReminderConfiguration.defaultAppDomain, Self.name)
        guard let messages, let periods, let unit, let random, let circular, let domain else { return nil }
        return ReminderSpec(messages: messages, timePeriods: periods, unit: unit, randomMessage: random,
                            circularTimePeriod: circular, appDomain: domain)
    }

    mutating func grid(_ json: JSON, at path: String) -> GridSpec? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let prefix = field(o, "labelPrefix", default: "", Self.name)
        let messages = field(o, "messages") { r, j, p in r.list(j, at: p, nonEmpty: true, Self.message) }
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
        let rules = field(o, "cronRules", default: []) { r, j, p in r.list(j, at: p, Self.cronRule) }
        guard let prefix, let messages, let periods, let unit, let random, let circular, let modes, let rules else {
            return nil
        }
        return (GridSpec(labelPrefix: prefix, messages: messages, timePeriods: periods, unit: unit,
                              randomMessage: random, circularTimePeriod: circular, mode: modes, cronRules: rules))
    }
}
