import XCTest
import Randomness

final class StreamTests: XCTestCase {
    func testStreamSeedMatchesReference() {
        // Python reference (see GeneratorTests) of h = mix(seed + γ); h = mix(h ^ user); h = mix(h ^ purpose).
        XCTAssertEqual(Xoshiro256.streamSeed(seed: 42, user: 7, purpose: 3), 0x9C11_060D_4A9C_6D50)
        var generator = Xoshiro256(seed: 42, user: 7, purpose: .response)
        XCTAssertEqual(generator.next(), 0x5E93_AFC4_5D67_8450)
        XCTAssertEqual(generator.next(), 0xB7EF_09B0_2ED6_7925)
        XCTAssertEqual(generator.next(), 0xD019_DBF8_2CE0_5323)
        var zero = Xoshiro256(seed: 0, user: 0, purpose: 0)
        XCTAssertEqual(zero.next(), 0x7CE1_AE40_1EF2_D62B)
    }

    func testEnumAndRawPurposeAgree() {
        for purpose in StreamPurpose.allCases {
            XCTAssertEqual(
                Xoshiro256(seed: 3, user: 11, purpose: purpose),
                Xoshiro256(seed: 3, user: 11, purpose: purpose.rawValue))
        }
    }

    func testSameKeyGivesSameSequence() {
        var first = Xoshiro256(seed: 1234, user: 99, purpose: .organic)
        var second = Xoshiro256(seed: 1234, user: 99, purpose: .organic)
        for _ in 0..<1000 {
            XCTAssertEqual(first.next(), second.next())
        }
    }

    /// 3 seeds × 2000 users × 8 purposes = 48,000 keys. For unrelated 64-bit values a repeated first
    /// output has probability ≈ 48,000²/2^65 ≈ 6e−11, so any repeat means the derivation is broken.
    func testDifferentKeysGiveDifferentFirstOutputs() {
        var seen = Set<UInt64>()
        var keys = 0
        for seed: UInt64 in [0, 1, 42] {
            for user: UInt64 in 0..<2000 {
                for purpose: UInt64 in [0, 1, 2, 3, 4, 5, 6, 1000] {
                    var generator = Xoshiro256(seed: seed, user: user, purpose: purpose)
                    seen.insert(generator.next())
                    keys += 1
                }
            }
        }
        XCTAssertEqual(seen.count, keys)
    }

    /// For independent U, V uniform on [0, 1): E[UV] = 1/4 and Var[UV] = E[U²]E[V²] − 1/16 = 7/144,
    /// so the mean of n products lies within 5·√(7/144)/√n of 1/4.
    private func assertUncorrelated(
        _ pairs: Int, _ label: String, draw: (Int) -> (Double, Double),
        file: StaticString = #filePath, line: UInt = #line
    ) {
        var sum = 0.0
        for i in 0..<pairs {
            let (u, v) = draw(i)
            sum += u * v
        }
        let tolerance = StatisticalChecks.z * (7.0 / 144.0).squareRoot() / Double(pairs).squareRoot()
        XCTAssertEqual(sum / Double(pairs), 0.25, accuracy: tolerance, label, file: file, line: line)
    }

    func testAdjacentUserStreamsAreUncorrelated() {
        let n = 100_000
        // Along two neighbouring streams.
        var userA = Xoshiro256(seed: 42, user: 500, purpose: .traits)
        var userB = Xoshiro256(seed: 42, user: 501, purpose: .traits)
        assertUncorrelated(n, "users 500/501 along the stream") { _ in (userA.nextUnit(), userB.nextUnit()) }

        // Across users: the first draw of user u against the first draw of user u + 1.
        let firstDraws = (0...n).map { user -> Double in
            var generator = Xoshiro256(seed: 42, user: UInt64(user), purpose: .traits)
            return generator.nextUnit()
        }
        assertUncorrelated(n, "first draws of users u and u+1") { i in (firstDraws[i], firstDraws[i + 1]) }

        // Across purposes and across neighbouring run seeds for the same user.
        assertUncorrelated(n, "purposes 1 and 2") { user in
            var a = Xoshiro256(seed: 42, user: UInt64(user), purpose: .traits)
            var b = Xoshiro256(seed: 42, user: UInt64(user), purpose: .organic)
            return (a.nextUnit(), b.nextUnit())
        }
        assertUncorrelated(n, "run seeds 42 and 43") { user in
            var a = Xoshiro256(seed: 42, user: UInt64(user), purpose: .traits)
            var b = Xoshiro256(seed: 43, user: UInt64(user), purpose: .traits)
            return (a.nextUnit(), b.nextUnit())
        }
    }

    /// The first draws across consecutive users must themselves be uniform (KS), and the first
    /// outputs of neighbouring users should differ in about half of their 64 bits:
    /// popcount(x ⊕ y) ~ Binomial(64, 1/2), mean 32, variance 16.
    func testFirstDrawsAcrossUsersAreUniformAndAvalanche() {
        let n = 100_000
        var words = [UInt64]()
        words.reserveCapacity(n + 1)
        for user in 0...n {
            var generator = Xoshiro256(seed: 7, user: UInt64(user), purpose: .install)
            words.append(generator.next())
        }
        let units = words.prefix(n).map { Double($0 >> 11) * 0x1.0p-53 }
        let verdict = StatisticalChecks.evaluate(
            units, moments: TheoreticalMoments(raw: [1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5]),
            cdf: { min(max($0, 0), 1) })
        XCTAssertTrue(verdict.ksOK, "KS \(verdict.ks) >= \(verdict.ksCritical)")
        XCTAssertTrue(verdict.meanOK)
        XCTAssertTrue(verdict.varianceOK)

        var flipped = 0
        for i in 0..<n {
            flipped += (words[i] ^ words[i + 1]).nonzeroBitCount
        }
        let tolerance = StatisticalChecks.z * 4 / Double(n).squareRoot()
        XCTAssertEqual(Double(flipped) / Double(n), 32, accuracy: tolerance)
    }
}
