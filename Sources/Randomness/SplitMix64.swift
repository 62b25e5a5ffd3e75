/// SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014),
/// used to expand seeds into generator states and to hash stream keys.
///
/// Each step adds the golden-ratio increment `0x9E3779B97F4A7C15` to a 64-bit counter and returns
/// `mix(counter)`. It is fast and well distributed but has only 64 bits of state, so simulation draws
/// should come from ``Xoshiro256`` instead.
public struct SplitMix64: RandomNumberGenerator, Sendable, Equatable {
    /// The counter; the next output is `mix(state &+ 0x9E3779B97F4A7C15)`.
    public var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    @inlinable
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.mix(state)
    }

    /// The SplitMix64 output finaliser (Stafford's "Mix13" variant of the MurmurHash3 64-bit finaliser).
    ///
    /// It is a bijection on `UInt64` (xor-shifts and multiplications by odd constants are invertible),
    /// so distinct inputs always give distinct outputs, and every input bit affects every output bit
    /// with probability close to 1/2, which is why it is used to decorrelate neighbouring keys.
    @inlinable
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z &>> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z &>> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z &>> 31)
    }
}
