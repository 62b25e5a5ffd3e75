/// What a cron rule's block asks the system to show, beside what the app itself does there.
public enum CronPrompt: String, CaseIterable, Codable, Sendable {
    /// The App Store review prompt (`SKStoreReviewController.requestReview`, SwiftUI's
    /// `RequestReviewAction`). Apple documents that the system shows it at most three times per app
    /// in 365 days however often the app asks; the run applies that cap (see `ReviewPromptLog`).
    case storeReview
}

/// One of a configuration's cron rules: its Crontab-IOS text and, when its block asks for a system
/// prompt, which one. A scenario writes an unmarked rule as its text, a marked one as
/// `{"rule": "1 */7", "prompt": "storeReview"}`.
public struct CronRuleSpec: Encodable, Hashable, Sendable, ExpressibleByStringLiteral {
    public var rule: String
    public var prompt: CronPrompt?

    public init(_ rule: String, prompt: CronPrompt? = nil) {
        (self.rule, self.prompt) = (rule, prompt)
    }

    public init(stringLiteral rule: String) {
        self.init(rule)
    }

    enum CodingKeys: String, CodingKey { case rule, prompt }

    /// An unmarked rule is written as its text, as scenarios wrote every rule before prompts.
    public func encode(to encoder: any Encoder) throws {
        guard let prompt else {
            var c = encoder.singleValueContainer()
            try c.encode(rule)
            return
        }
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(rule, forKey: .rule)
        try c.encode(prompt, forKey: .prompt)
    }
}

extension Array where Element == CronRuleSpec {
    /// The rules' texts, in order, as the cron engine reads them.
    public var texts: [String] { map(\.rule) }

    /// The rules marked with `prompt`, as bits (rule r is bit r; at most 64 rules).
    public func mask(of prompt: CronPrompt) -> UInt64 {
        var mask: UInt64 = 0
        for (r, spec) in enumerated() where r < 64 && spec.prompt == prompt { mask |= 1 << UInt64(r) }
        return mask
    }
}
