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

    /// A tally read back from `encodedCounts()`; nil when the bytes do not fit the layout.
    public init?(layout: TallyLayout, encodedCounts bytes: [UInt8]) {
        guard bytes.count == layout.count * 8 else { return nil }
        self.init(layout: layout)
        counts = Self.decode(bytes)
    }

    /// The integers `encode` wrote (a trailing partial value is ignored).
    public static func decode(_ bytes: [UInt8]) -> [Int64] {
        (0..<(bytes.count / 8)).map { i in
            var bits: UInt64 = 0
            for b in 0..<8 { bits |= UInt64(bytes[i * 8 + b]) << (8 * UInt64(b)) }
            return Int64(bitPattern: bits)
        }
    }
}
