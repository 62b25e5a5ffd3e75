/// Where each count lives in a flat array of integer counts.
public protocol CountsLayout: Equatable, Sendable {
    /// How many counts the layout holds.
    var count: Int { get }
}

/// Integer counts in a layout's flat storage: a configuration's `Tally`, or the run's `UserSums`.
/// Integers add exactly in any order, which is what makes a run's results independent of the
/// thread count and of any split into shards.
public struct Counts<Layout: CountsLayout>: Equatable, Sendable {
    public let layout: Layout
    public var counts: [Int64]

    /// All zero.
    public init(layout: Layout) {
        self.layout = layout
        counts = Array(repeating: 0, count: layout.count)
    }

    /// Counts read back; nil when there are not as many as the layout holds.
    public init?(layout: Layout, counts: [Int64]) {
        guard counts.count == layout.count else { return nil }
        self.layout = layout
        self.counts = counts
    }

    /// Adds other counts of the same layout.
    public mutating func merge(_ other: Self) {
        precondition(layout == other.layout, "\(Self.self).merge: layouts differ")
        for i in counts.indices { counts[i] &+= other.counts[i] }
    }
}

/// 1 if `b`, else 0, without a branch: a count that goes up on an outcome as good as random is
/// added this way, so that the processor has no branch to mispredict.
@inline(__always) func one(_ b: Bool) -> Int64 {
    Int64(unsafeBitCast(b, to: UInt8.self))
}
