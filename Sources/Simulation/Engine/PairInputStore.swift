import Dispatch
import Synchronization

/// Every user's pair inputs (`PairTermInputs`) under every configuration of one run, kept so that
/// the sums of pairs with a configuration chosen after the run can be added up without simulating
/// the users again: a tune's racing batch that finds a new leader pairs the others with it this way.
///
/// The pair terms are integers summed over users, so pairs added from the store are the ones a
/// second run keeping them would give, count for count. A run fills the store only when it keeps
/// sums over users and does not replay recorded users (whose clustered sums the store cannot
/// rebuild); `adding` then refuses, and the caller runs again.
///
/// Memory grows with users × configurations, so a store is made only up to `maximumBytes`. Workers
/// write disjoint users; read it once the run is over.
public final class PairInputStore: @unchecked Sendable {
    /// One user's inputs under one configuration, packed in 8 bytes.
    struct Packed {
        var opens: Int32
        var delivered: UInt16
        /// `PairTermInputs.days`, with bit 4 for opted out and bit 7 for recorded.
        var flags: UInt8
    }

    public let users: Range<Int>
    public let configurations: Int
    private let storage: UnsafeMutablePointer<Packed>
    /// Set when a value does not fit the packing: the store cannot be used then.
    private let overflowed = Atomic<Bool>(false)

    /// The most memory a store may take: 64 MiB, about 8.4 million configuration-users.
    public static let maximumBytes = 64 << 20

    /// A store for `users` under `configurations` configurations (the holdout's included), or nil
    /// when it would take more than `maximumBytes`.
    public init?(users: Range<Int>, configurations: Int) {
        let (cells, overflow) = users.count.multipliedReportingOverflow(by: configurations)
        guard !overflow, cells > 0, cells <= Self.maximumBytes / MemoryLayout<Packed>.stride else { return nil }
        self.users = users
        self.configurations = configurations
        storage = .allocate(capacity: cells)
        storage.initialize(repeating: Packed(opens: 0, delivered: 0, flags: 0), count: cells)
    }

    deinit { storage.deallocate() }

    /// Keeps `user`'s inputs under every configuration, read from the recorder once it finished the user.
    func record(user: Int, configurations count: Int, recorder: UserSumsRecorder) {
        guard users.contains(user), count == configurations else {
            overflowed.store(true, ordering: .relaxed)
            return
        }
        let row = storage + (user - users.lowerBound) * configurations
        for i in 0..<configurations {
            let p = recorder.finishedPairInputs(i)
            guard let opens = Int32(exactly: p.opens), let delivered = UInt16(exactly: p.delivered) else {
                overflowed.store(true, ordering: .relaxed)
                return
            }
            row[i] = Packed(opens: opens, delivered: delivered, flags: p.days | (p.optedOut ? 16 : 0) | 128)
        }
    }

    static func inputs(_ p: Packed) -> PairTermInputs {
        PairTermInputs(opens: Int64(p.opens), delivered: Int64(p.delivered), optedOut: p.flags & 16 != 0, days: p.flags & 15)
    }

    /// Configuration i's inputs for the store's users, in user order; nil when one of them was not
    /// recorded or a value did not fit.
    func column(_ i: Int) -> [Packed]? {
        guard (0..<configurations).contains(i), !overflowed.load(ordering: .relaxed) else { return nil }
        let (n, stride) = (users.count, configurations)
        // Bit 7 (recorded) survives the and of every user's flags only if every user was recorded.
        var recorded: UInt8 = 128
        let out = [Packed](unsafeUninitializedCapacity: n) { buffer, count in
            var p = storage + i
            for u in 0..<n {
                let v = p.pointee
                recorded &= v.flags
                (buffer.baseAddress! + u).initialize(to: v)
                p += stride
            }
            count = n
        }
        return recorded & 128 != 0 ? out : nil
    }

    /// Per configuration, the moments over the store's users of its opens (or notifications
    /// delivered) minus configuration b's; nil when a user was not recorded, when a value did not
    /// fit, or for another measure (`differenceMoments(_:)`).
    public func differenceMoments(minus b: Int, of measure: PairMeasure) -> [CentralMoments]? {
        differenceMoments([(b, measure)])[0]
    }

    /// For each request (b, measure), per configuration, the moments over the store's users of its opens
    /// (or notifications delivered) minus configuration b's; nil for a request of another measure or
    /// reference, and for all when a user was not recorded or a value did not fit. One pass over the
    /// store per request, user by user with every configuration side by side: each difference is taken
    /// from the first user's (a shift near the values, so that nearly equal large counts lose no
    /// digits), its sum kept exactly and its squares and cubes as doubles, in user order, so the same
    /// store gives the same bits (`CentralMoments.init(count:shift:sum:squares:cubes:)`).
    public func differenceMoments(_ requests: [(minus: Int, of: PairMeasure)]) -> [[CentralMoments]?] {
        let (n, k) = (users.count, configurations)
        let valid = requests.map { (0..<k).contains($0.minus) && ($0.of == .opensPerUser || $0.of == .deliveredPerUser) }
        let none = [[CentralMoments]?](repeating: nil, count: requests.count)
        guard n > 0, valid.contains(true), !overflowed.load(ordering: .relaxed) else { return none }
        let wanted = requests.indices.filter { valid[$0] }
        let width = wanted.count * k
        // Plain memory, so that the loop over users does no bounds or uniqueness checks.
        let shifts = UnsafeMutablePointer<Int64>.allocate(capacity: width), sums = UnsafeMutablePointer<Int64>.allocate(capacity: width)
        let squares = UnsafeMutablePointer<Double>.allocate(capacity: width), cubes = UnsafeMutablePointer<Double>.allocate(capacity: width)
        defer { shifts.deallocate(); sums.deallocate(); squares.deallocate(); cubes.deallocate() }
        sums.initialize(repeating: 0, count: width)
        squares.initialize(repeating: 0, count: width)
        cubes.initialize(repeating: 0, count: width)
        var recorded: UInt8 = 128
        for u in 0..<n {
            for i in 0..<k { recorded &= storage[u * k + i].flags }
        }
        guard recorded & 128 != 0 else { return none }
        for (r, request) in wanted.enumerated() {
            let (b, o) = (requests[request].minus, r * k)
            if requests[request].of == .opensPerUser {
                Self.accumulate(OpensValue.self, storage, users: n, configurations: k, minus: b,
                                shifts + o, sums + o, squares + o, cubes + o)
            } else {
                Self.accumulate(DeliveredValue.self, storage, users: n, configurations: k, minus: b,
                                shifts + o, sums + o, squares + o, cubes + o)
            }
        }
        var out = none
        for (r, request) in wanted.enumerated() {
            out[request] = (r * k..<(r + 1) * k).map { j in
                CentralMoments(count: n, shift: shifts[j], sum: sums[j], squares: squares[j], cubes: cubes[j])
            }
        }
        return out
    }

    /// A value of a user's inputs, known to the compiler, so that each measure's loop is compiled apart.
    private protocol PackedValue { static func of(_ p: Packed) -> Int64 }
    private enum OpensValue: PackedValue { @inline(__always) static func of(_ p: Packed) -> Int64 { Int64(p.opens) } }
    private enum DeliveredValue: PackedValue { @inline(__always) static func of(_ p: Packed) -> Int64 { Int64(p.delivered) } }

    /// For every configuration, the sums over users of e = (its value − configuration b's) − shift, e², e³,
    /// the shift being the first user's difference; user by user, every configuration side by side.
    private static func accumulate<V: PackedValue>(
        _: V.Type, _ storage: UnsafeMutablePointer<Packed>, users n: Int, configurations k: Int, minus b: Int,
        _ shifts: UnsafeMutablePointer<Int64>, _ sums: UnsafeMutablePointer<Int64>,
        _ squares: UnsafeMutablePointer<Double>, _ cubes: UnsafeMutablePointer<Double>
    ) {
        for i in 0..<k { shifts[i] = V.of(storage[i]) &- V.of(storage[b]) }
        for u in 0..<n {
            let row = storage + u * k
            let reference = V.of(row[b])
            for i in 0..<k {
                let e = V.of(row[i]) &- reference &- shifts[i], x = Double(e)
                sums[i] &+= e
                squares[i] += x * x
                cubes[i] += x * x * x
            }
        }
    }

    /// Sets configuration i's inputs for the store's first `column.count` users, as if recorded:
    /// a run of the other users then completes the store.
    func fill(_ i: Int, from column: [Packed]) {
        guard (0..<configurations).contains(i), column.count <= users.count else {
            overflowed.store(true, ordering: .relaxed)
            return
        }
        for (u, p) in column.enumerated() { storage[u * configurations + i] = p }
    }

    /// Adds to `sums` every pair its layout holds over users whose inputs per configuration are
    /// `columns` (configuration by configuration, each in user order, all of one length), the users
    /// split over up to `threads` threads.
    static func addPairs(columns: [[Packed]], into sums: inout UserSums, threads: Int = 1) {
        let layout = sums.layout
        guard let n = columns.first?.count, columns.count == layout.configurations, columns.allSatisfy({ $0.count == n }) else {
            preconditionFailure("PairInputStore.addPairs: one column per configuration, of one length")
        }
        let pairs = layout.pairList
        let width = pairs.count * UserSumsLayout.pairWidth
        let k = columns.count
        let total = summed(users: n, width: width, threads: threads) { range, out in
            gathering(configurations: k, pairs: pairs, into: out) { add, row in
                for u in range {
                    for i in 0..<k { row[i] = inputs(columns[i][u]) }
                    add(row)
                }
                return true
            }
        }
        guard let total, width > 0 else { return }
        let start = layout.pair(at: 0)
        sums.counts.withUnsafeMutableBufferPointer { counts in
            for k in 0..<width { counts[start + k] &+= total[k] }
        }
    }

    /// Runs `body` with a function that gathers one user's inputs per configuration (`PairGather`),
    /// and a row for them; then adds `pairs`' counters of the users gathered to `out` (the first
    /// pair's counters, the others after it). Returns `body`'s answer.
    static func gathering(configurations k: Int, pairs: [ConfigurationPair], into out: UnsafeMutablePointer<Int64>,
                          _ body: ((UnsafeMutablePointer<PairTermInputs>) -> Void, UnsafeMutablePointer<PairTermInputs>) -> Bool)
        -> Bool {
        var gather = PairGather(configurations: k, pairs: pairs.count)
        let row = UnsafeMutablePointer<PairTermInputs>.allocate(capacity: max(k, 1))
        defer {
            gather.deallocate()
            row.deallocate()
        }
        let complete = body({ gather.add($0, pairs: pairs, into: out) }, row)
        gather.addPairs(into: out, pairs: pairs)
        return complete
    }

    /// The terms (users × counters) a part of `summed` must have for a thread of its own: a thread
    /// is worth starting for some hundred thousand. Set lower by tests.
    nonisolated(unsafe) static var termsPerThread = 100_000

    /// Sums over users 0..<n split into parts, run on up to `threads` threads when there is enough
    /// work for them, each part adding into its own zeroed `width` counters: their total, the same
    /// whatever the split (the terms are integers). Nil when a part's `body` returns false.
    static func summed(users n: Int, width: Int, threads: Int,
                       _ body: @escaping @Sendable (Range<Int>, UnsafeMutablePointer<Int64>) -> Bool) -> [Int64]? {
        let (work, overflow) = n.multipliedReportingOverflow(by: max(width, 1))
        let parts = max(1, min(threads, n, overflow ? threads : work / max(1, termsPerThread)))
        let results = Mutex<[[Int64]?]>([])
        DispatchQueue.concurrentPerform(iterations: parts) { p in
            let range = (n / parts) * p + min(p, n % parts)..<(n / parts) * (p + 1) + min(p + 1, n % parts)
            var part = [Int64](repeating: 0, count: max(width, 1))
            let complete = part.withUnsafeMutableBufferPointer { body(range, $0.baseAddress!) }
            results.withLock { $0.append(complete ? part : nil) }
        }
        var total = [Int64](repeating: 0, count: width)
        for part in results.withLock({ $0 }) {
            guard let part else { return nil }
            for k in 0..<width { total[k] &+= part[k] }
        }
        return total
    }

    /// `sums` (of this store's run) holding also every configuration's pair with `reference`: the
    /// same sums a run keeping those pairs would give. Nil when the store misses a user, when a value
    /// did not fit, or when the sums are not of this store's configurations.
    public func adding(reference: Int, to sums: UserSums, threads: Int = 1) -> UserSums? {
        let layout = sums.layout
        guard layout.configurations == configurations, (0..<configurations).contains(reference),
              !overflowed.load(ordering: .relaxed) else { return nil }
        guard case let .against(references) = layout.pairs else { return sums }  // every pair already
        if references.contains(reference) { return sums }
        let extraLayout = layout.holding(.against([reference]))
        let pairs = extraLayout.pairList
        let total = Self.summed(users: users.count, width: pairs.count * UserSumsLayout.pairWidth, threads: threads) {
            [self] range, out in
            Self.gathering(configurations: configurations, pairs: pairs, into: out) { add, inputs in
                for u in range {
                    let row = storage + u * configurations
                    for i in 0..<configurations {
                        guard row[i].flags & 128 != 0 else { return false }
                        inputs[i] = Self.inputs(row[i])
                    }
                    add(inputs)
                }
                return true
            }
        }
        guard let total else { return nil }
        var extra = UserSums(layout: extraLayout)
        let start = extraLayout.pair(at: 0)
        for k in total.indices { extra.counts[start + k] = total[k] }
        return sums.gathering(.against((references + [reference]).sorted()), from: [extra])
    }
}
