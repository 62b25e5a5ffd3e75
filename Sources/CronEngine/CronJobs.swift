/// The Crontab-IOS `CronTabCenter` API for an app: rules with blocks, run at each launch.
///
/// The app persists `counters` between launches; the blocks run synchronously, in registration order.
public struct CronJobs {
    public private(set) var counters: LaunchCounters
    private var rules: [CronRule] = []
    private var blocks: [(matched: (() -> Void)?, otherwise: (() -> Void)?)] = []
    public let mode: CronMode

    public init(mode: CronMode = .documented, counters: LaunchCounters = LaunchCounters()) {
        self.mode = mode
        self.counters = counters
    }

    /// Registers a rule; in documented mode a malformed rule is refused here. In original mode a rule
    /// registered without a block runs its else-block at every launch, as the pod does.
    public mutating func add(
        _ rule: String, block: (() -> Void)? = nil, elseBlock: (() -> Void)? = nil
    ) throws(CronRuleError) {
        rules.append(try CronRule(parsing: rule, mode: mode))
        blocks.append((block, elseBlock))
    }

    /// Counts a cold launch on the given local day and runs each rule's block or else-block.
    public mutating func launch(onDay day: Int) {
        counters.recordLaunch(onDay: day)
        for (rule, block) in zip(rules, blocks) {
            // The pod decides `shouldExecute` only for a rule that has a block: without one, its
            // else-block runs at every launch.
            let runs = mode == .original && block.matched == nil ? false : rule.matches(counters)
            (runs ? block.matched : block.otherwise)?()
        }
    }
}
