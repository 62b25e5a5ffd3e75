/// Well-known purposes for per-user random streams; each purpose gets its own independent stream so
/// that adding draws for one purpose never shifts the draws of another.
///
/// Callers may add purposes by passing any other raw `UInt64` to `Xoshiro256(seed:user:purpose:)`;
/// raw values 1...5 are taken by these cases.
public enum StreamPurpose: UInt64, Sendable, CaseIterable {
    case traits = 1
    case organic = 2
    case response = 3
    case message = 4
    case install = 5
}

extension Xoshiro256 {
    /// Hashes a (run seed, user index, purpose) key into a 64-bit seed.
    ///
    /// Each component is folded in with xor and then passed through the SplitMix64 finaliser:
    ///
    ///     h = mix(seed &+ 0x9E3779B97F4A7C15)
    ///     h = mix(h ^ user)
    ///     h = mix(h ^ purpose)
    ///
    /// For a fixed prefix every step is a bijection of the new component, so keys that differ in only
    /// the user (or only the purpose) never collide, and the avalanche of `mix` makes the seeds of
    /// neighbouring users or purposes look unrelated. The seed is then expanded by SplitMix64 as in
    /// ``init(seed:)``.
    @inlinable
    public static func streamSeed(seed: UInt64, user: UInt64, purpose: UInt64) -> UInt64 {
        var h = SplitMix64.mix(seed &+ 0x9E37_79B9_7F4A_7C15)
        h = SplitMix64.mix(h ^ user)
        h = SplitMix64.mix(h ^ purpose)
        return h
    }

    /// An independent stream for one (run seed, user index, purpose) key; see ``streamSeed(seed:user:purpose:)``.
    @inlinable
    public init(seed: UInt64, user: UInt64, purpose: UInt64) {
        self.init(seed: Xoshiro256.streamSeed(seed: seed, user: user, purpose: purpose))
    }

    /// An independent stream for one (run seed, user index, purpose) key; see ``streamSeed(seed:user:purpose:)``.
    @inlinable
    public init(seed: UInt64, user: UInt64, purpose: StreamPurpose) {
        self.init(seed: seed, user: user, purpose: purpose.rawValue)
    }
}
