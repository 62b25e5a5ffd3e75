extension Tally {
    /// The counts as little-endian 64-bit integers, one after another: the stored form of a tally.
    public func encodedCounts() -> [UInt8] { Self.encode(counts) }

    /// Integers as little-endian 64-bit values, one after another.
    public static func encode(_ counts: [Int64]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: counts.count * 8)
        for (i, value) in counts.enumerated() {
            let bits = UInt64(bitPattern: value)
            for b in 0..<8 { bytes[i * 8 + b] = UInt8(truncatingIfNeeded: bits >> (8 * UInt64(b))) }
        }
        return bytes
    }

    /// A tally read back from `encodedCounts()`, or from the shorter counts of builds before review
    /// prompts or before delivery policies (which lack their counters, which are then 0); nil when the
    /// bytes fit none of them.
    public init?(layout: TallyLayout, encodedCounts bytes: [UInt8]) {
        let values = Self.decode(bytes)
        self.init(layout: layout)
        if bytes.count == layout.count * 8 {
            counts = values
        } else if bytes.count == layout.promptOffset * 8 {
            // Before review prompts: the same counts, without the last section.
            counts.replaceSubrange(0..<layout.promptOffset, with: values)
        } else if bytes.count == Self.countBeforePolicies(layout) * 8 {
            fillFromBeforePolicies(values)
        } else {
            return nil
        }
    }

    /// Counters, slot counters and the sections after them, as stored before delivery policies.
    static let countersBeforePolicies = Counter.deferred.rawValue
    static let slotCountersBeforePolicies = SlotCounter.capped.rawValue

    static func countBeforePolicies(_ l: TallyLayout) -> Int {
        countersBeforePolicies + (l.messageSlots + l.periodSlots) * slotCountersBeforePolicies
            + (l.hourOffset - l.dailyOffset)
    }

    private mutating func fillFromBeforePolicies(_ old: [Int64]) {
        let l = layout
        for i in 0..<Self.countersBeforePolicies { counts[i] = old[i] }
        let oldStride = Self.slotCountersBeforePolicies
        for slot in 0..<(l.messageSlots + l.periodSlots) {
            for c in 0..<oldStride {
                counts[l.messageOffset + slot * SlotCounter.allCases.count + c] = old[Self.countersBeforePolicies + slot * oldStride + c]
            }
        }
        // Days, rules, first runs and the retention curve kept their order and size.
        let oldRest = Self.countersBeforePolicies + (l.messageSlots + l.periodSlots) * oldStride
        for i in 0..<(l.hourOffset - l.dailyOffset) { counts[l.dailyOffset + i] = old[oldRest + i] }
    }
}

extension Tally {
    /// The integers `encode` wrote (a trailing partial value is ignored).
    public static func decode(_ bytes: [UInt8]) -> [Int64] {
        (0..<(bytes.count / 8)).map { i in
            var bits: UInt64 = 0
            for b in 0..<8 { bits |= UInt64(bytes[i * 8 + b]) << (8 * UInt64(b)) }
            return Int64(bitPattern: bits)
        }
    }
}
