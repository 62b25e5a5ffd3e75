/// Maps user id bytes to dense indices in first-seen order, without building a String per row.
struct UserTable {
    // Large imports are bound by cache misses on per-user data, so ids of up to 8 bytes are packed whole
    // into the slot key and their lookups touch one slot and nothing else; longer ids store their FNV-1a
    // hash and are confirmed against the id bytes. Open addressing, linear probing, load ≤ 1/2.

    private struct Slot {
        var key: UInt64
        /// 0 when empty; else (index + 1) in the low 48 bits and the id length, capped, above.
        var entry: UInt64
    }

    private var slots = [Slot](repeating: Slot(key: 0, entry: 0), count: 1 << 12)
    private var shift = 64 - 12
    private var bytes: [UInt8] = []
    private var offsets: [Int] = [0]
    /// The previous lookup: logs often hold runs of one user.
    private var recent: (key: UInt64, count: Int, index: Int) = (0, -1, 0)

    var count: Int { offsets.count - 1 }

    @inline(__always)
    private static func key(_ id: UnsafeBufferPointer<UInt8>) -> UInt64 {
        if id.count <= 8 {
            var packed: UInt64 = 0
            for byte in id.reversed() { packed = packed << 8 | UInt64(byte) }
            return packed
        }
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in id { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return h
    }

    @inline(__always)
    private static func lengthTag(_ count: Int) -> UInt64 { UInt64(min(count, 0xFFFF)) << 48 }

    @inline(__always)
    private func home(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))  // Fibonacci hashing
    }

    @inline(__always)
    func matches(_ index: Int, _ id: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = offsets[index], end = offsets[index + 1]
        guard end - start == id.count else { return false }
        return bytes.withUnsafeBufferPointer { all in
            id.indices.allSatisfy { all[start + $0] == id[$0] }
        }
    }

    /// The index of `id`, adding it when unseen.
    mutating func index(of id: UnsafeBufferPointer<UInt8>) -> (index: Int, isNew: Bool) {
        let key = Self.key(id)
        if key == recent.key, id.count == recent.count, id.count <= 8 || matches(recent.index, id) {
            return (recent.index, false)
        }
        let length = Self.lengthTag(id.count)
        let mask = slots.count - 1
        var slot = home(key)
        while true {
            let candidate = slots[slot]
            if candidate.entry == 0 { break }
            if candidate.key == key, candidate.entry & 0xFFFF_0000_0000_0000 == length {
                let index = Int(truncatingIfNeeded: candidate.entry & 0xFFFF_FFFF_FFFF) - 1
                if id.count <= 8 || matches(index, id) {
                    recent = (key, id.count, index)
                    return (index, false)
                }
            }
            slot = (slot + 1) & mask
        }
        let index = count
        bytes.append(contentsOf: id)
        offsets.append(bytes.count)
        slots[slot] = Slot(key: key, entry: length | UInt64(index + 1))
        recent = (key, id.count, index)
        if 2 * count > slots.count { grow() }
        return (index, true)
    }

    private mutating func grow() {
        let old = slots
        slots = [Slot](repeating: Slot(key: 0, entry: 0), count: old.count * 2)
        shift -= 1
        let mask = slots.count - 1
        for item in old where item.entry != 0 {
            var slot = home(item.key)
            while slots[slot].entry != 0 { slot = (slot + 1) & mask }
            slots[slot] = item
        }
    }

    func id(_ index: Int) -> String {
        String(decoding: bytes[offsets[index]..<offsets[index + 1]], as: UTF8.self)
    }
}
