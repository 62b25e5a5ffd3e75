/// The parts of a scenario that could be read, for the rules that involve several of them.
struct ScenarioParts {
    var name: String?
    var users: Int?
    var horizonDays: Int?
    var startDate: String?
    var population: Population?
    var response: ResponseModel?
    var configurations: [ConfigurationSpec]?
    /// `.some(nil)`: read, and there is no grid.
    var grid: GridSpec??
    /// `.some(nil)`: read, and the baseline is the holdout.
    var baseline: String??

    init() {}

    init(_ s: Scenario) {
        name = s.name
        users = s.users
        horizonDays = s.horizonDays
        startDate = s.startDate
        population = s.population
        response = s.response
        configurations = s.configurations
        grid = .some(s.grid)
        baseline = .some(s.baseline)
    }

    /// Every rule whose inputs are there; a rule whose input could not be read is left to that input's own issue.
    func issues() -> [ScenarioIssue] {
        var issues: [ScenarioIssue] = []
        func fail(_ p: String, _ r: String) { issues.append(ScenarioIssue(path: p, reason: r)) }
        if let name, name.isEmpty { fail("name", "must not be empty") }
        if let name, Scenario.isBlank(name) { fail("name", Scenario.blank) }
        if let users, users < 1 { fail("users", "must be ≥ 1, got \(users)") }
        if let horizonDays, horizonDays < 1 || horizonDays > 3_650 {
            fail("horizonDays", "must be between 1 and 3650, got \(horizonDays)")
        }
        if let startDate, CalendarDate(iso: startDate) == nil {
            fail("startDate", "must be a date YYYY-MM-DD, got \(ScenarioIssue.quote(startDate))")
        }
        if let population, let response { issues += Scenario.boundIssues(population: population, response: response) }
        if let population {
            issues += Self.issues(of: population)
            if let horizonDays, population.installSpreadDays > Double(horizonDays) {
                fail("population.installSpreadDays", Self.spreadBeyondHorizon(population.installSpreadDays, horizonDays))
            }
        }
        // Checked before anything expands the grid: a grid of millions would exhaust memory first.
        if let configurations, let grid, (grid?.combinationCount ?? 0) > Scenario.maximumConfigurations - configurations.count {
            let size = grid?.combinationCount ?? 0
            fail("grid", "expands to \(size == Int.max ? "too many" : String(size)) configurations; with the "
                 + "\(configurations.count) listed, a scenario may compare at most \(Scenario.maximumConfigurations)")
        } else if let configurations, let grid {
            let all = configurations + (grid?.expanded() ?? [])
            issues += Self.issues(of: all, listed: configurations.count)
            if let baseline, let label = baseline, label.lowercased() != "holdout", !all.contains(where: { $0.label == label }) {
                fail("baseline", "\(ScenarioIssue.quote(label)) is the label of no configuration (nor \"holdout\")")
            }
            if let response {
                let allMessages = Set(all.flatMap { $0.reminders.flatMap(\.messages) })
                for key in response.messageWeights.keys.sorted() where !allMessages.contains(key) {
                    fail("response.messageWeights[\(JSONFieldReader.quote(key))]", "matches no message of any configuration")
                }
            }
        }
        if let q = response?.quietHours, q.start == q.end {
            fail("response.quietHours", "start and end must differ (got \(q.start) for both)")
        }
        return issues
    }

    static func spreadBeyondHorizon(_ spread: Double, _ horizon: Int) -> String {
        "installs are spread over \(spread == spread.rounded() ? String(Int(spread)) : String(spread)) days but the run "
            + "lasts \(horizon) (horizonDays): users would install after it ends; shorten the spread or lengthen the run"
    }

    static func issues(of population: Population) -> [ScenarioIssue] {
        var issues: [ScenarioIssue] = []
        func fail(_ p: String, _ r: String) { issues.append(ScenarioIssue(path: p, reason: r)) }
        if !(population.utcOffsets.map(\.weight).reduce(0, +) > 0) {
            fail("population.utcOffsets", "weights must add up to a positive number")
        }
        if !(population.segments.map(\.weight).reduce(0, +) > 0) {
            fail("population.segments", "weights must add up to a positive number")
        }
        var segmentNames: [String: Int] = [:]
        for (i, segment) in population.segments.enumerated() {
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
            } else if let first = segmentNames[segment.name] {
                fail("population.segments[\(i)].name", "\(ScenarioIssue.quote(segment.name)) is already the name of population.segments[\(first)]")
            } else {
                segmentNames[segment.name] = i
            }
        }
        return issues
    }

    /// The configurations' own problems and their labels; the first `listed` were written one by one,
    /// the rest come from the grid.
    static func issues(of all: [ConfigurationSpec], listed: Int) -> [ScenarioIssue] {
        var issues: [ScenarioIssue] = []
        func fail(_ p: String, _ r: String) { issues.append(ScenarioIssue(path: p, reason: r)) }
        if all.isEmpty { fail("configurations", "at least one configuration (or a grid) is required") }
        var seen: [String: String] = [:]
        var gridIssues: [ScenarioIssue] = []
        for (i, c) in all.enumerated() {
            let isListed = i < listed
            let p = isListed ? "configurations[\(i)]" : "grid"
            if c.label.isEmpty { fail("\(p).label", "must not be empty") }
            if Scenario.isBlank(c.label) { fail("\(p).label", Scenario.blank) }
            if c.label.lowercased() == "holdout" { fail("\(p).label", "\"holdout\" is reserved for the holdout") }
            if let first = seen[c.label] {
                // A grid's labels are made, not written: the duplicate is a repeated choice in the grid.
                fail(isListed ? "\(p).label" : "grid", "\(ScenarioIssue.quote(c.label)) is already the label of \(first)")
            } else {
                seen[c.label] = p
            }
            if isListed {
                issues += c.issues(at: p, listed: true)
            } else {
                // Every combination of a grid shares its settings: each problem is reported once.
                for issue in c.issues(at: p, listed: false) where !gridIssues.contains(issue) { gridIssues.append(issue) }
            }
        }
        return issues + gridIssues
    }
}

extension Scenario {
    /// Checks of the rules that involve several fields, and of every field's range, on a scenario
    /// built in code (a decoded scenario has passed them already).
    public func semanticIssues() -> [ScenarioIssue] { ScenarioParts(self).issues() }
}
