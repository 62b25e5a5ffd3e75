/// Adds a replaying virtual user's per-user quantities to the totals of the recorded user it
/// replays (`RecordedUserSums`), by reading the run's sums over users before and after the user:
/// the difference of each entry is the user's own term. Users of segments that do not replay are
/// not looked at, so a run without replay does no more work than before.
///
/// One recorder per worker; its storage is plain memory allocated once. Free it with `deallocate()`.
final class RecordedUserRecorder {
    let layout: RecordedUserSumsLayout
    /// The sums' entries read per user, per segment: for each configuration the 13 entries of
    /// `ClusterColumn`'s order, then for each pair `pairEntries`' 10.
    private let entries: UnsafeMutablePointer<Int>
    private let perSegment: Int
    /// The entries' values before the current user.
    private let before: UnsafeMutablePointer<Int64>
    /// The current user's quantities, one row's columns.
    private let values: UnsafeMutablePointer<Int64>
    /// Rows, then the own-square sums: `layout`'s storage.
    let totals: UnsafeMutablePointer<Int64>
    private let columns: UnsafeMutablePointer<Int>
    /// Whether to add the own-square sums: only needed when some users do not replay (see `ReplayClustering`).
    private let keepsOwnSquares: Bool

    /// A pair's sums entries read: the differences and the counters they come from.
    private static let pairEntries: [PairCounter] = [
        .opensDiff, .deliveredDiff, .optOutOnlyA, .optOutOnlyB, .eligibleD7, .retainedD7OnlyA, .retainedD7OnlyB,
        .eligibleD30, .retainedD30OnlyA, .retainedD30OnlyB,
    ]

    init(layout: RecordedUserSumsLayout, sums l: UserSumsLayout, keepsOwnSquares: Bool) {
        self.layout = layout
        self.keepsOwnSquares = keepsOwnSquares
        let k = l.configurations
        perSegment = k * RecordedUserSumsLayout.configurationWidth + l.pairList.count * Self.pairEntries.count
        entries = .allocate(capacity: max(1, l.segments * perSegment))
        var at = 0
        for s in 0..<l.segments {
            for c in 0..<k {
                for r in ClusteredRatio.allCases {
                    entries[at] = l.ratio(c, r)
                    entries[at + 1] = l.ratio(c, r) + 1
                    at += 2
                }
                for counter in [SegmentCounter.retainedD7, .eligibleD7, .retainedD30, .eligibleD30, .optOuts] {
                    entries[at] = l.segment(c, s) + counter.rawValue
                    at += 1
                }
            }
            for p in l.pairList.indices {
                for counter in Self.pairEntries {
                    entries[at] = l.pair(at: p) + counter.rawValue
                    at += 1
                }
            }
        }
        before = .allocate(capacity: max(1, perSegment))
        before.initialize(repeating: 0, count: max(1, perSegment))
        values = .allocate(capacity: layout.width)
        values.initialize(repeating: 0, count: layout.width)
        totals = .allocate(capacity: max(1, layout.count))
        totals.initialize(repeating: 0, count: max(1, layout.count))
        columns = .allocate(capacity: max(1, 2 * layout.quantities))
        for (q, c) in layout.columns.enumerated() {
            columns[2 * q] = c.x
            columns[2 * q + 1] = c.y
        }
    }

    func deallocate() {
        entries.deallocate()
        before.deallocate()
        values.deallocate()
        totals.deallocate()
        columns.deallocate()
    }

    /// Call before the user of segment `segment` is simulated, with the sums' storage.
    func begin(segment: Int, sums: UnsafeMutablePointer<Int64>) {
        let e = entries + segment &* perSegment
        for j in 0..<perSegment { before[j] = sums[e[j]] }
    }

    /// Call once the user's terms are in the sums: adds them to row `row`'s totals and their
    /// squares and products to the own-square sums.
    func end(segment: Int, row: Int, sums: UnsafeMutablePointer<Int64>) {
        let e = entries + segment &* perSegment
        func d(_ j: Int) -> Int64 { sums[e[j]] &- before[j] }
        values[0] = 1
        let k = layout.configurations, width = RecordedUserSumsLayout.configurationWidth
        for j in 0..<(k * width) { values[1 &+ j] = d(j) }
        var from = k * width, to = 1 &+ k * width
        for _ in 0..<layout.pairList.count {
            values[to] = d(from)
            values[to &+ 1] = d(from &+ 1)
            values[to &+ 2] = d(from &+ 2) &- d(from &+ 3)
            values[to &+ 3] = d(from &+ 5) &- d(from &+ 6)
            values[to &+ 4] = d(from &+ 4)
            values[to &+ 5] = d(from &+ 8) &- d(from &+ 9)
            values[to &+ 6] = d(from &+ 7)
            from &+= Self.pairEntries.count
            to &+= RecordedUserSumsLayout.pairWidth
        }
        let r = totals + row &* layout.width
        for j in 0..<layout.width { r[j] &+= values[j] }
        guard keepsOwnSquares else { return }
        let own = totals + layout.ownOffset
        for q in 0..<layout.quantities {
            let x = values[columns[2 &* q]], y = values[columns[2 &* q &+ 1]]
            own[3 &* q] &+= x &* x
            own[3 &* q &+ 1] &+= y &* y
            own[3 &* q &+ 2] &+= x &* y
        }
    }

    /// The totals added so far.
    func sums() -> RecordedUserSums {
        var out = RecordedUserSums(layout: layout)
        for i in 0..<layout.count { out.counts[i] = totals[i] }
        return out
    }
}
