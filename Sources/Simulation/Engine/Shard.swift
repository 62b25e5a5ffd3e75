/// One share of a run's users, for running a big run as several processes or jobs.
///
/// Shard K of N (1-based) simulates users `⌊(K−1)·U/N⌋ ..< ⌊K·U/N⌋`. Each user's randomness
/// depends only on the seed and the user's index, so merging the shards' counts gives exactly
/// the counts of the whole run.
public struct Shard: Equatable, Sendable, CustomStringConvertible {
    /// 1-based.
    public let index: Int
    public let count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// Reads `K/N`.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let k = Int(parts[0]), let n = Int(parts[1])
        else { return nil }
        self.init(index: k, count: n)
    }

    /// The users of this shard out of `users`.
    public func users(of users: Int) -> Range<Int> {
        // Full-width products: k·U overflows 64 bits for very large runs split many ways.
        func bound(_ k: Int) -> Int { count.dividingFullWidth(k.multipliedFullWidth(by: users)).quotient }
        return bound(index - 1)..<bound(index)
    }

    public var description: String { "\(index)/\(count)" }
}
