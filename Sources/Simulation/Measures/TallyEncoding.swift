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

    /// A tally read back from `encodedCounts()`, or from the shorter counts of earlier builds (see
    /// `earlierForms`), whose missing counters are then 0; nil when the bytes fit none.
    public init?(layout: TallyLayout, encodedCounts bytes: [UInt8]) {
        let values = Self.decode(bytes)
        self.init(layout: layout)
        if bytes.count == layout.count * 8 {
            counts = values
            return
        }
        guard let form = Self.earlierForms.first(where: { $0.count(layout) * 8 == bytes.count }) else { return nil }
        fill(from: values, form)
    }

    /// How earlier builds stored a tally: the same sections in the same order, with fewer counters
    /// and fewer counters per message and period.
    struct EarlierForm {
        let counters: Int
        let slotCounters: Int
        /// Whether it had the deliveries by local hour (it never had the review prompts, the last section).
        let hours: Bool

        /// The sections after the messages and periods, as this form stored them.
        func rest(_ l: TallyLayout) -> Int { (hours ? l.promptOffset : l.hourOffset) - l.dailyOffset }
        func count(_ l: TallyLayout) -> Int { counters + (l.messageSlots + l.periodSlots) * slotCounters + rest(l) }
    }

    /// Before delivery policies; before platforms and review prompts; with platforms, before review prompts.
    static let earlierForms = [
        EarlierForm(counters: Counter.deferred.rawValue, slotCounters: SlotCounter.capped.rawValue, hours: false),
        EarlierForm(counters: Counter.dropped.rawValue, slotCounters: SlotCounter.dropped.rawValue, hours: true),
        EarlierForm(counters: Counter.allCases.count, slotCounters: SlotCounter.allCases.count, hours: true),
    ]

    private mutating func fill(from old: [Int64], _ form: EarlierForm) {
        let l = layout
        for i in 0..<form.counters { counts[i] = old[i] }
        let oldStride = form.slotCounters
        for slot in 0..<(l.messageSlots + l.periodSlots) {
            for c in 0..<oldStride {
                counts[l.messageOffset + slot * SlotCounter.allCases.count + c] = old[form.counters + slot * oldStride + c]
            }
        }
        // Days, rules, first runs, the retention curve and the hours kept their order and size; the
        // review prompts' section, last, stays 0.
        let oldRest = form.counters + (l.messageSlots + l.periodSlots) * oldStride
        for i in 0..<form.rest(l) { counts[l.dailyOffset + i] = old[oldRest + i] }
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
