/// The simulator's pseudorandom generator: xoshiro256++ (Blackman & Vigna, "Scrambled linear
/// pseudorandom number generators", ACM TOMS 2021; reference code 2018/2019).
///
/// State: four 64-bit words `s0...s3`, never all zero. Each call returns
/// `rotl(s0 &+ s3, 23) &+ s0` and then advances the linear engine:
///
///     t = s1 << 17
///     s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t; s3 = rotl(s3, 45)
///
/// The period is 2^256 − 1 and the output is 4-dimensionally equidistributed. The algorithm is
/// fixed: for a given seed the output sequence is the same on every platform and Swift version
/// (unlike `SystemRandomNumberGenerator` or the standard library's `random(in:)` helpers).
public struct Xoshiro256: RandomNumberGenerator, Sendable, Equatable {
    @usableFromInline internal var s0: UInt64
    @usableFromInline internal var s1: UInt64
    @usableFromInline internal var s2: UInt64
    @usableFromInline internal var s3: UInt64

    /// Seeds the state with the first four outputs of ``SplitMix64`` started at `seed`, as the
    /// xoshiro authors recommend.
    ///
    /// The state can never be all zero: the four SplitMix64 counters are distinct and its finaliser
    /// is a bijection, so at most one of the four words can be zero.
    public init(seed: UInt64) {
        var expander = SplitMix64(seed: seed)
        s0 = expander.next()
        s1 = expander.next()
        s2 = expander.next()
        s3 = expander.next()
    }

    /// Restores a generator from a previously saved ``state``.
    ///
    /// - Precondition: not all four words are zero (the all-zero state is a fixed point).
    public init(state: (UInt64, UInt64, UInt64, UInt64)) {
        precondition(
            state.0 | state.1 | state.2 | state.3 != 0,
            "Xoshiro256: the all-zero state is invalid"
        )
        (s0, s1, s2, s3) = state
    }

    /// The current state, for checkpointing; pass it to ``init(state:)`` to resume.
    public var state: (UInt64, UInt64, UInt64, UInt64) {
        (s0, s1, s2, s3)
    }

    @inlinable @inline(__always)
    public mutating func next() -> UInt64 {
        let result = Xoshiro256.rotateLeft(s0 &+ s3, by: 23) &+ s0
        let t = s1 &<< 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = Xoshiro256.rotateLeft(s3, by: 45)
        return result
    }

    @inlinable
    @inline(__always)
    internal static func rotateLeft(_ x: UInt64, by k: UInt64) -> UInt64 {
        (x &<< k) | (x &>> (64 &- k))
    }
}
