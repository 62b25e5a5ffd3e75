/// Which Crontab-IOS behaviour the rules follow.
public enum CronMode: String, Codable, Sendable, CaseIterable {
    /// The README's grammar; a malformed rule is a configuration error.
    case documented
    /// The released pod's parser (`class/CronTabCenter.m` at tag 1.0): two-field rules only, the
    /// `*/N` divisor bugs included.
    case original
}

/// Rules registered in order, parsed once; evaluated together at each launch.
public struct CronTable: Sendable {
    /// The rule texts as registered.
    public let ruleTexts: [String]
    /// The same rules in compact form.
    public let rules: [CronRule]
    public let mode: CronMode

    /// Parses every rule. In documented mode the first malformed rule is thrown, with its index.
    public init(rules texts: [String], mode: CronMode = .documented) throws(CronTableError) {
        var parsed: [CronRule] = []
        parsed.reserveCapacity(texts.count)
        for (index, text) in texts.enumerated() {
            do {
                parsed.append(try CronRule(parsing: text, mode: mode))
            } catch {
                throw CronTableError(index: index, error: error)
            }
        }
        ruleTexts = texts
        rules = parsed
        self.mode = mode
    }

    /// Counts a launch on `day` and reports, rule by rule in registration order, whether its block
    /// (`true`) or its else-block (`false`) runs.
    @inlinable
    public func launch(onDay day: Int, counters: inout LaunchCounters, _ body: (_ rule: Int, _ matched: Bool) -> Void) {
        counters.recordLaunch(onDay: day)
        for index in rules.indices {
            body(index, rules[index].matches(counters))
        }
    }
}

/// A malformed rule, with its position in the table.
public struct CronTableError: Error, Equatable, Sendable, CustomStringConvertible {
    public let index: Int
    public let error: CronRuleError

    public var description: String { "rule \(index): \(error.description)" }
}
