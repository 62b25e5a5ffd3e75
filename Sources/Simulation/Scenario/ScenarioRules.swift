import CronEngine
import Foundation

/// The parts of a scenario that could be read, for the rules that involve several of them. A list
/// holds nil for each element that could not be read, so that the rules still check the others.
struct ScenarioParts {
    /// As `JSONFieldReader.relaxed`: a stored scenario is not held to the limits on new runs.
    var relaxed = false
    /// Whether the scenario is read to make a decision, whose measures must then be measurable.
    var decides = true
    var name: String?
    var users: Int?
    var horizonDays: Int?
    var startDate: String?
    var population: PopulationParts?
    var response: ResponseModel?
    /// The listed configurations.
    var configurations: [ConfigurationSpec?]?
    /// The listed configurations' labels, read even where the rest of a configuration could not be.
    var labels: [String?]?
    /// `.some(nil)`: read, and there is no grid.
    var grid: GridSpec??
    /// `.some(nil)`: read, and the baseline is the holdout.
    var baseline: String??
    /// `.some(nil)`: read, and there is no decision block (the default rule).
    var decision: DecisionRule??
    /// `.some(nil)`: read, and there is no tune block.
    var tune: TuneSpec??

    init() {}

    init(_ s: Scenario) {
        name = s.name
        users = s.users
        horizonDays = s.horizonDays
        startDate = s.startDate
        population = PopulationParts(s.population)
        response = s.response
        configurations = s.configurations
        labels = s.configurations.map(\.label)
        grid = .some(s.grid)
        baseline = .some(s.baseline)
        decision = .some(s.decision)
        tune = .some(s.tune)
    }

    /// Every rule whose inputs are there; a rule whose input could not be read is left to that input's own issue.
    func issues() -> [ScenarioIssue] {
        var issues: [ScenarioIssue] = []
        func fail(_ p: String, _ r: String) { issues.append(ScenarioIssue(path: p, reason: r)) }
        if let name, name.isEmpty { fail("name", "must not be empty") }
        if let name, Scenario.isBlank(name) { fail("name", Scenario.blank) }
        if !relaxed, let name, let reason = TextLimit.name.refusal(name) { fail("name", reason) }
        if let users, users < 1 { fail("users", "must be ≥ 1, got \(users)") }
        if let users, users > Scenario.maximumUsers {
            fail("users", "must be at most \(Scenario.maximumUsers) (2^50, the most a run database can hold), got \(users)")
        }
        if let horizonDays, horizonDays < 1 || horizonDays > Scenario.maximumHorizonDays {
            fail("horizonDays", "must be between 1 and \(Scenario.maximumHorizonDays), got \(horizonDays)")
        }
        if let startDate {
            if let start = CalendarDate(iso: startDate) {
                // Every date a run writes (its days, a user's local times a day either side) stays in 0001–9999.
                let last = CalendarDate(year: 9999, month: 12, day: 31)!
                if let horizonDays, (1...Scenario.maximumHorizonDays).contains(horizonDays),
                   start.daysSinceEpoch + horizonDays + 1 > last.daysSinceEpoch {
                    let latest = CalendarDate(daysSinceEpoch: last.daysSinceEpoch - horizonDays - 1)
                    fail("startDate", "\(startDate) and \(horizonDays) days run past 9999-12-31, the last date the tool writes; "
                        + "start by \(latest)")
                }
            } else {
                fail("startDate", "must be a date YYYY-MM-DD, got \(ScenarioIssue.quote(startDate))")
            }
        }
        if let population {
            issues += Scenario.boundIssues(segments: population.segments ?? [])
            issues += Self.issues(of: population, relaxed: relaxed)
            if let horizonDays, let spread = population.installSpreadDays, spread > Double(horizonDays) {
                fail("population.installSpreadDays", Self.spreadBeyondHorizon(spread, horizonDays))
            }
        }
        if let response { issues += Scenario.boundIssues(response: response) }
        if let configurations { issues += configurationIssues(configurations) }
        if let q = response?.quietHours, q.start == q.end {
            fail("response.quietHours", "start and end must differ (got \(q.start) for both)")
        }
        if !relaxed && decides, let horizonDays { issues += retentionDayIssues(horizonDays) }
        if !relaxed, let horizonDays, let listed = configurations, case let .some(grid) = grid {
            let count = listed.count + (grid?.combinationCount ?? 0)
            // Past the count limit, that limit is the problem; the rows are one per configuration and day.
            if count <= Scenario.maximumConfigurations, (count + 1) * horizonDays > Scenario.maximumDailyRows {
                fail("horizonDays", "\(TextLimit.grouped(count)) configurations and the holdout over \(horizonDays) days (horizonDays) make "
                    + "\(TextLimit.grouped((count + 1) * horizonDays)) daily rows for the run's tables and report, whose memory "
                    + "grows with them; at most \(TextLimit.grouped(Scenario.maximumDailyRows)): shorten the run or compare fewer "
                    + "configurations at once")
            }
        }
        if !relaxed, let segments = population?.segments {
            if segments.count > Scenario.maximumSegments {
                fail("population.segments", "at most \(TextLimit.grouped(Scenario.maximumSegments)) segments, got "
                    + "\(TextLimit.grouped(segments.count)): each is counted apart under every configuration")
            } else if let listed = configurations, case let .some(grid) = grid {
                let count = listed.count + (grid?.combinationCount ?? 0)
                let platforms: Int
                if case let .some(.some(list)) = population?.platforms { platforms = list.count } else { platforms = 0 }
                let rows = (segments.count + platforms) * (count + 1)
                if count <= Scenario.maximumConfigurations, rows > Scenario.maximumBreakdownRows {
                    fail("population.segments", "\(TextLimit.grouped(segments.count)) segments"
                        + (platforms > 0 ? " and \(TextLimit.grouped(platforms)) platforms" : "")
                        + " under \(TextLimit.grouped(count)) configurations and the holdout make \(TextLimit.grouped(rows)) rows of "
                        + "counts per segment and platform, whose memory grows with them; at most "
                        + "\(TextLimit.grouped(Scenario.maximumBreakdownRows)): merge segments or compare fewer configurations at once")
                }
            }
        }
        return issues
    }

    /// A decision or tune rule that reads retention on a day the run never reaches: no user could be
    /// counted, and the call would rest on nothing.
    func retentionDayIssues(_ horizonDays: Int) -> [ScenarioIssue] {
        var rules: [(String, DecisionRule)] = []
        if case let .some(.some(d)) = decision { rules.append(("decision", d)) }
        if case let .some(.some(t)) = tune { rules.append(("tune", t.rule)) }
        return rules.flatMap { path, rule in
            ([(rule.objective, "\(path).objective")] + rule.orderedConstraints.map { ($0.measure, "\(path).constraints.\($0.measure.rawValue)") })
                .compactMap { measure, at -> ScenarioIssue? in
                    guard let k = measure.retentionDay, horizonDays <= k else { return nil }
                    return ScenarioIssue(path: at, reason: "\(measure.rawValue) reads each user's day \(k) after the install, which a run "
                        + "of \(TextLimit.days(horizonDays)) (horizonDays) never reaches, so no user could be counted: lengthen the run to at "
                        + "least \(k + 1) days or choose another measure")
                }
        }
    }

    /// The configurations' count, their own problems, their labels, and what names them: the baseline
    /// and the message weights, checked when every configuration could be read.
    private func configurationIssues(_ listed: [ConfigurationSpec?]) -> [ScenarioIssue] {
        var issues: [ScenarioIssue] = []
        func fail(_ p: String, _ r: String) { issues.append(ScenarioIssue(path: p, reason: r)) }
        // Counted before anything expands the grid: a grid of millions would exhaust memory first.
        // An unreadable grid counts as none; its own issue refuses the scenario.
        let gridSpec = grid ?? nil
        let countIssue = Scenario.configurationCountIssue(listed: listed.count, generated: gridSpec?.combinationCount ?? 0)
        if let countIssue { issues.append(countIssue) }
        // So are the messages and periods, which the grid copies into every combination.
        let sizeIssues = relaxed ? [] : Self.sizeIssues(listed: listed, grid: gridSpec)
        issues += sizeIssues
        let generated = countIssue == nil && sizeIssues.isEmpty ? (gridSpec?.expanded() ?? []) : []
        let all = listed + generated.map { Optional($0) }
        let labels = (labels ?? listed.map { $0?.label }) + generated.map { Optional($0.label) }
        // Whether every configuration and label is known, so that a rule about all of them can be checked.
        let allKnown = grid != nil && countIssue == nil && sizeIssues.isEmpty
        if allKnown && all.isEmpty { fail("configurations", "at least one configuration (or a grid) is required") }
        var labelCheck = LabelCheck(listed: listed.count, relaxed: relaxed)
        var gridIssues: [ScenarioIssue] = []
        for (i, c) in all.enumerated() {
            if let label = labels[i] { issues += labelCheck.issues(label, at: i) }
            guard let c else { continue }
            if i < listed.count {
                issues += c.issues(at: "configurations[\(i)]", listed: true, relaxed: relaxed)
            } else {
                // Every combination of a grid shares its settings: each problem is reported once.
                for issue in c.issues(at: "grid", listed: false, relaxed: relaxed) where !gridIssues.contains(issue) { gridIssues.append(issue) }
            }
        }
        issues += gridIssues
        let known = allKnown ? JSONFieldReader.whole(labels) : nil
        if let known, let baseline, let label = baseline, label.lowercased() != "holdout", !known.contains(label) {
            fail("baseline", "\(ScenarioIssue.quote(label)) is the label of no configuration (nor \"holdout\")")
        }
        if allKnown, let specs = JSONFieldReader.whole(all), let response {
            let allMessages = Set(specs.flatMap { $0.reminders.flatMap(\.messages) })
            for key in response.messageWeights.keys.sorted() where !allMessages.contains(key) {
                fail("response.messageWeights[\(JSONFieldReader.quote(key))]", "matches no message of any configuration")
            }
        }
        return issues
    }

    /// A grid whose reminder lists too many messages or periods, and configurations that list too many
    /// in all, counted without expanding the grid.
    private static func sizeIssues(listed: [ConfigurationSpec?], grid: GridSpec?) -> [ScenarioIssue] {
        var issues: [ScenarioIssue] = []
        if let grid, grid.messages.count > ConfigurationSpec.maximumMessagesPerReminder {
            issues.append(ScenarioIssue(path: "grid.messages", reason: "at most \(ConfigurationSpec.maximumMessagesPerReminder) "
                                        + "messages per reminder, got \(grid.messages.count)"))
        }
        for (k, periods) in (grid?.timePeriods ?? []).enumerated() where periods.count > ConfigurationSpec.maximumPeriodsPerReminder {
            issues.append(ScenarioIssue(path: "grid.timePeriods[\(k)]", reason: "at most \(ConfigurationSpec.maximumPeriodsPerReminder) "
                                        + "periods per reminder, got \(periods.count)"))
        }
        let listedSlots = listed.reduce(0) { $0 + ($1?.slots ?? 0) }
        let gridSlots = grid?.slots ?? 0
        if issues.isEmpty, gridSlots > ConfigurationSpec.maximumSlots - listedSlots {
            let total = gridSlots == Int.max ? "too many" : TextLimit.grouped(listedSlots + gridSlots)
            issues.append(ScenarioIssue(
                path: gridSlots > 0 ? "grid" : "configurations",
                reason: "the configurations list \(total) messages and periods in all"
                    + (gridSlots > 0 ? " (the grid's combinations each list their own)" : "")
                    + "; at most \(TextLimit.grouped(ConfigurationSpec.maximumSlots))"))
        }
        return issues
    }

    /// The problems of the `tune` block with the rest of the scenario, when every configuration could be read.
    func tuneIssues() -> [ScenarioIssue] {
        guard case let .some(.some(tune)) = tune, let listed = JSONFieldReader.whole(configurations),
              let grid, case let .some(baseline) = baseline,
              Scenario.configurationCountIssue(listed: listed.count, generated: grid?.combinationCount ?? 0) == nil
        else { return [] }
        return Scenario.tuneIssues(tune, configurations: listed + (grid?.expanded() ?? []), baseline: baseline)
    }

    static func spreadBeyondHorizon(_ spread: Double, _ horizon: Int) -> String {
        "installs are spread over \(spread == spread.rounded() ? String(Int(spread)) : String(spread)) days but the run "
            + "lasts \(horizon) (horizonDays): users would install after it ends; shorten the spread (population.installSpreadDays, or --install-spread on the "
            + "command line) or lengthen the run"
    }

    static func issues(of population: PopulationParts, relaxed: Bool) -> [ScenarioIssue] {
        var issues: [ScenarioIssue] = []
        func fail(_ p: String, _ r: String) { issues.append(ScenarioIssue(path: p, reason: r)) }
        if let offsets = population.utcOffsets, !(offsets.map(\.weight).reduce(0, +) > 0) {
            fail("population.utcOffsets", "weights must add up to a positive number")
        }
        for (i, share) in (population.utcOffsets ?? []).enumerated() {
            if !relaxed, let zone = share.zone, let reason = TimeZoneDatabase.refusal(zone) { fail("population.utcOffsets[\(i)].zone", reason) }
        }
        if case let .some(.some(pattern)) = population.returnPattern {
            issues += returnPatternIssues(pattern)
        }
        if let segments = JSONFieldReader.whole(population.segments), !(segments.map(\.weight).reduce(0, +) > 0) {
            fail("population.segments", "weights must add up to a positive number")
        }
        if case let .some(.some(platforms)) = population.platforms {
            issues += platformIssues(platforms, segments: population.segments, relaxed: relaxed)
        }
        var segmentNames: [String: Int] = [:]
        for (i, segment) in (population.segments ?? []).enumerated() {
            guard let segment else { continue }
            if case let .empirical(values, weights?, _) = segment.returns {
                let p = "population.segments[\(i)].returns.weights"
                if weights.count != values.count {
                    fail(p, "must have one weight per value (\(values.count)), got \(weights.count)")
                } else if !(weights.reduce(0, +) > 0) {
                    fail(p, "must add up to a positive number")
                }
            }
            if segment.name.isEmpty {
                fail("population.segments[\(i)].name", "must not be empty")
            } else if Scenario.isBlank(segment.name) {
                fail("population.segments[\(i)].name", Scenario.blank)
            } else if !relaxed, let reason = TextLimit.name.refusal(segment.name) {
                fail("population.segments[\(i)].name", reason)
            } else if let first = segmentNames[segment.name] {
                fail("population.segments[\(i)].name", "\(ScenarioIssue.quote(segment.name)) is already the name of population.segments[\(first)]")
            } else {
                segmentNames[segment.name] = i
            }
        }
        return issues
    }
}

/// The rules on configuration labels, checked in order: the first `listed` labels were written one by
/// one, the rest come from the grid.
struct LabelCheck {
    let listed: Int
    /// The labels seen so far, and where.
    private var seen: [String: String] = [:]
    /// The labels seen so far by how they read (`lookalike`), with the label and where.
    private var read: [String: (label: String, at: String)] = [:]
    private var gridTooLong = false

    /// As `JSONFieldReader.relaxed`: no length limit for a stored scenario's labels.
    let relaxed: Bool

    init(listed: Int, relaxed: Bool = false) { (self.listed, self.relaxed) = (listed, relaxed) }

    /// The problems of the label of configuration `i`.
    mutating func issues(_ label: String, at i: Int) -> [ScenarioIssue] {
        var issues: [ScenarioIssue] = []
        func fail(_ p: String, _ r: String) { issues.append(ScenarioIssue(path: p, reason: r)) }
        let isListed = i < listed
        let p = isListed ? "configurations[\(i)]" : "grid"
        if !relaxed, let reason = TextLimit.name.refusal(label) {
            // A grid's labels are made from its prefix and choices: one issue says they are too long.
            if isListed {
                fail("\(p).label", reason)
            } else if !gridTooLong {
                fail("grid", "makes a label of \(reason) (shorten labelPrefix or the periods)")
                gridTooLong = true
            }
            return issues
        }
        if label.isEmpty { fail("\(p).label", "must not be empty") }
        if Scenario.isBlank(label) { fail("\(p).label", Scenario.blank) }
        let reads = Self.lookalike(label)
        if !relaxed && !label.isEmpty && !Scenario.isBlank(label) && reads.isEmpty {
            fail("\(p).label", "\(ScenarioIssue.quote(label)) shows nothing: it is made only of invisible characters")
        }
        if label == "holdout" {
            fail("\(p).label", "\"holdout\" is reserved for the holdout")
        } else if label.lowercased() == "holdout" {
            fail("\(p).label", "\(ScenarioIssue.quote(label)) reads as \"holdout\", which is reserved for the holdout (it differs "
                + "only in case)")
        } else if !relaxed && reads.lowercased() == "holdout" {
            fail("\(p).label", "\(ScenarioIssue.quote(label)) reads as \"holdout\", which is reserved for the holdout (it differs only in "
                + "case, invisible characters, letter widths or spaces at its ends)")
        }
        if !relaxed, let first = label.unicodeScalars.first, let last = label.unicodeScalars.last,
           first.properties.isWhitespace || last.properties.isWhitespace {
            fail("\(p).label", "\(ScenarioIssue.quote(label)) starts or ends with a space, which reports do not show")
        }
        if let first = seen[label] {
            // A grid's labels are made, not written: the duplicate is a repeated choice in the grid.
            fail(isListed ? "\(p).label" : "grid", "\(ScenarioIssue.quote(label)) is already the label of \(first)")
        } else {
            seen[label] = p
            if !relaxed, !reads.isEmpty, let other = read[reads] {
                fail(isListed ? "\(p).label" : "grid", "\(ScenarioIssue.quote(label)) reads as \(ScenarioIssue.quote(other.label)), "
                    + "the label of \(other.at) (they differ only in invisible characters, letter widths or spaces at their ends): reports could "
                    + "not tell them apart")
            } else if !reads.isEmpty && reads.lowercased() != "holdout" {
                read[reads] = (label, p)
            }
        }
        return issues
    }

    /// How a label reads: in its compatibility form (full-width letters as plain ones, NFKC), without its
    /// invisible characters (format and control characters, and those Unicode says to ignore when they
    /// cannot be shown: joiners, variation selectors) and the spaces at its ends.
    static func lookalike(_ label: String) -> String {
        let visible = String.UnicodeScalarView(label.precomposedStringWithCompatibilityMapping.unicodeScalars.filter { scalar in
            scalar.properties.generalCategory != .format && scalar.properties.generalCategory != .control
                && !scalar.properties.isDefaultIgnorableCodePoint
        })
        return String(visible).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension ScenarioParts {
    /// A pattern built in code, held to what a scenario file may give.
    static func returnPatternIssues(_ pattern: ReturnPattern) -> [ScenarioIssue] {
        var issues: [ScenarioIssue] = []
        for (key, values, count, unit) in [("weekdays", pattern.weekdays, 7, "weekday"), ("hours", pattern.hours, 24, "hour")] {
            let p = "population.returnPattern.\(key)"
            if values.count != count {
                issues.append(ScenarioIssue(path: p, reason: "expected \(count) factors, got \(values.count)"))
            } else if !values.allSatisfy({ $0 >= 0 && $0 <= 1e6 }) {
                issues.append(ScenarioIssue(path: p, reason: "factors must lie within 0...1e6"))
            } else if !values.contains(where: { $0 > 0 }) {
                issues.append(ScenarioIssue(path: p, reason: "at least one \(unit) must have a positive factor"))
            }
        }
        if issues.isEmpty, !pattern.weeklyHourFactors.allSatisfy({ $0.isFinite }) {
            issues.append(ScenarioIssue(path: "population.returnPattern",
                                        reason: "the weekday and hour factors multiply to numbers too small to scale; use factors near 1"))
        }
        return issues
    }
}

/// The parts of a population that could be read; `segments` holds nil for each that could not.
struct PopulationParts {
    var utcOffsets: [UTCOffsetShare]?
    var installSpreadDays: Double?
    var segments: [Segment?]?
    /// `.some(nil)`: read, and there are no platforms.
    var platforms: [PlatformSpec]??
    /// `.some(nil)`: read, and returns follow no pattern.
    var returnPattern: ReturnPattern??

    init(utcOffsets: [UTCOffsetShare]?, installSpreadDays: Double?, segments: [Segment?]?,
         platforms: [PlatformSpec]?? = .some(nil), returnPattern: ReturnPattern?? = .some(nil)) {
        (self.utcOffsets, self.installSpreadDays, self.segments) = (utcOffsets, installSpreadDays, segments)
        (self.platforms, self.returnPattern) = (platforms, returnPattern)
    }

    init(_ p: Population) {
        self.init(utcOffsets: p.utcOffsets, installSpreadDays: p.installSpreadDays, segments: p.segments,
                  platforms: .some(p.platforms), returnPattern: .some(p.returnPattern))
    }

    /// The population, when every part of it could be read.
    var whole: Population? {
        guard let utcOffsets, let installSpreadDays, let segments = JSONFieldReader.whole(segments),
              case let .some(platforms) = platforms, case let .some(returnPattern) = returnPattern else { return nil }
        return Population(utcOffsets: utcOffsets, installSpreadDays: installSpreadDays, segments: segments,
                          platforms: platforms, returnPattern: returnPattern)
    }
}

extension Scenario {
    /// Checks of the rules that involve several fields, and of every field's range, on a scenario
    /// built in code (a decoded scenario has passed them already). `relaxed`: a stored scenario, not held
    /// to the limits on new runs; `decides`: for a command that makes a decision (not `trace`), which
    /// checks that the rule's measures can be measured.
    public func semanticIssues(relaxed: Bool = false, decides: Bool = true) -> [ScenarioIssue] {
        var parts = ScenarioParts(self)
        (parts.relaxed, parts.decides) = (relaxed, decides)
        return parts.issues()
    }
}

extension Scenario {
    /// What is allowed but most likely not meant: the scenario runs, and these are shown with it.
    public func warnings() -> [ScenarioIssue] {
        var warnings: [ScenarioIssue] = []
        // The point decision runs the response's values, the draws its uncertainty's mean: far apart,
        // they are two models, and the run's two calls would disagree for that alone.
        if let joint = response.uncertainty?.joint {
            for (i, parameter) in joint.parameters.enumerated() where i < joint.mean.count && i < joint.covariance.count
                && i < joint.covariance[i].count {
                let value = parameter.value(in: response)
                guard let point = UncertaintyScale.logOdds.forward(value), joint.mean[i].isFinite else { continue }
                let sd = max(joint.covariance[i][i], 0).squareRoot(), gap = abs(joint.mean[i] - point)
                guard gap > max(3 * sd, 1e-6) else { continue }
                let mean = UncertaintyScale.logOdds.back(joint.mean[i])
                warnings.append(ScenarioIssue(
                    path: "response.uncertainty.mean[\(i)]",
                    reason: "\(parameter.rawValue)'s mean (\(String(format: "%.4g", mean)) on its own scale) lies "
                        + (sd > 0 ? String(format: "%.3g standard deviations", gap / sd) : "away")
                        + " from its value \(String(format: "%.4g", value)) (response.\(parameter.rawValue)): the point "
                        + "decision runs the value and the draws the mean, two different models; set one from the other "
                        + "(calibrate writes them alike)"))
            }
        }
        for (i, c) in configurations.enumerated() where c.sequence == nil && !c.reminders.isEmpty {
            // A notification is scheduled at a close, so it fires its delay after a moment of the run.
            let shortest = c.delaysUsedSeconds.min() ?? 0
            guard shortest >= Double(horizonDays) * 86_400 else { continue }
            let days = shortest / 86_400
            let shown = days == days.rounded() ? TextLimit.days(Int(days)) : String(format: "%.1f days", days)
            warnings.append(ScenarioIssue(
                path: "configurations[\(i)].reminders",
                reason: "its shortest delay, \(shown), is no shorter than the run's \(TextLimit.days(horizonDays)) (horizonDays): no "
                    + "notification can fire, and the configuration measures the same as the holdout"))
        }
        for (i, c) in configurations.enumerated() {
            // A fixed send window wholly inside quiet hours: every notification moved into it is moved out
            // again, to the quiet hours' end, so the window changes nothing.
            if case let .span(window)? = c.delivery.sendWindow, let quiet = c.delivery.quietHours, quiet.covers(window) {
                warnings.append(ScenarioIssue(
                    path: "configurations[\(i)].delivery.sendWindow",
                    reason: "the window \(window) lies wholly inside the quiet hours \(quiet): every notification moved into it "
                        + "moves on to \(LocalTimeSpan.text(quiet.endMinute)), so the window changes nothing"))
            }
            for (j, spec) in c.cronRules.enumerated() {
                // The released parser reads what it cannot parse as 0: only a documented rule asks for it as written.
                guard c.cronMode == .documented, let rule = try? CronRule(parsing: spec.rule, mode: .documented),
                      rule.asksForCountZero else { continue }
                warnings.append(ScenarioIssue(
                    path: "configurations[\(i)].cronRules[\(j)]" + (spec.prompt == nil ? "" : ".rule"),
                    reason: "\(ScenarioIssue.quote(spec.rule)) asks for a count of 0, which no launch has (launches and days "
                        + "count from 1): it never matches, and its else-block runs at every launch"))
            }
        }
        // A permission prompt on a rule that asks for a count of 0 is never shown: its users never allow
        // notifications, and every notification is suppressed or, with provisional authorisation, delivered quietly.
        for (k, platform) in (population.platforms ?? []).enumerated() {
            guard case let .rule(text)? = platform.permission?.ask, let rule = try? CronRule(parsing: text, mode: .documented),
                  rule.asksForCountZero else { continue }
            warnings.append(ScenarioIssue(
                path: "population.platforms[\(k)].permission.ask",
                reason: "\(ScenarioIssue.quote(text)) asks for a count of 0, which no launch has (launches and days count from "
                    + "1): the prompt is never shown, so no user allows notifications"))
        }
        // The live test compares the recommendation with the baseline: with the holdout as the baseline and no
        // holdout in the test, there is nothing to compare it with.
        if liveTest?.holdoutShare == 0, baseline == nil || baseline?.lowercased() == "holdout" {
            warnings.append(ScenarioIssue(
                path: "liveTest.holdoutShare",
                reason: "0 leaves the live test no arm to compare the recommendation with: the baseline is the holdout (the "
                    + "default when \"baseline\" names no configuration), so a run's plan can size no test; name the "
                    + "configuration the app ships today as \"baseline\", or give the holdout a share (a tune plans against "
                    + "tune.baseline)"))
        }
        // A tune's space reaching past the horizon: its candidates that wait that long before their first
        // notification measure as the holdout, and the race spends its users on them.
        if let space = tune?.space {
            let horizon = Double(horizonDays) * 86_400
            // The shortest period, in the space's unit, that is no shorter than the run.
            let first = Int((horizon / space.unit.seconds).rounded(.up))
            if let periods = space.periods, periods.max >= first {
                let unit = space.unit.rawValue
                warnings.append(ScenarioIssue(
                    path: "tune.space.periods",
                    reason: periods.min >= first
                        ? "every period of the space (\(periods.min) to \(periods.max) \(unit)) is no shorter than the run's "
                            + "\(TextLimit.days(horizonDays)) (horizonDays): no candidate's notification can fire"
                        : "periods of \(max(first, periods.min)) \(unit) and more (up to \(periods.max)) are no shorter than the run's "
                            + "\(TextLimit.days(horizonDays)) (horizonDays): a candidate whose first period is one of them cannot "
                            + "fire, and measures as the holdout"))
            }
            if let mix = space.mix, mix.periods.max >= first {
                warnings.append(ScenarioIssue(
                    path: "tune.space.mix.periods",
                    reason: "a mix's reminder of \(max(first, mix.periods.min)) \(space.unit.rawValue) or more (up to \(mix.periods.max)) "
                        + "is no shorter than the run's \(TextLimit.days(horizonDays)) (horizonDays): it cannot fire, and the mix "
                        + "measures as its sequence alone"))
            }
            if let sequences = space.sequences, sequences.afterDays.max >= horizonDays {
                warnings.append(ScenarioIssue(
                    path: "tune.space.sequences.afterDays",
                    reason: "steps \(max(horizonDays, sequences.afterDays.min)) days and more after the last session (up to "
                        + "\(sequences.afterDays.max)) cannot fire in a run of \(TextLimit.days(horizonDays)) (horizonDays): they "
                        + "are never delivered"))
            }
        }
        for (i, c) in configurations.enumerated() {
            guard let sequence = c.sequence else { continue }
            for (k, days) in sequence.afterDays.enumerated() where days >= horizonDays {
                warnings.append(ScenarioIssue(
                    path: "configurations[\(i)].sequence.afterDays[\(k)]",
                    reason: "a step \(days) days after the last session cannot fire in a run of \(TextLimit.days(horizonDays)) "
                        + "(horizonDays): it is never delivered"))
            }
        }
        return warnings
    }
}
