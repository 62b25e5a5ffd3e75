/// The Kaplan–Meier product-limit estimate of the survival function of gaps (Kaplan & Meier 1958).
public struct KaplanMeier: Sendable {
    /// The estimate just after one distinct event time.
    public struct Step: Sendable, Equatable {
        public let time: Double
        /// n_i: observations with duration ≥ `time`, including those censored at `time`.
        public let atRisk: Int
        /// d_i: uncensored observations at `time`.
        public let events: Int
        /// S(time).
        public let survival: Double
        /// Greenwood's estimate of Var S(time); 0 once S reaches 0.
        public let variance: Double
    }

    /// One per distinct uncensored time, ascending; S is flat between steps.
    public let steps: [Step]
    public let observations: Int
    public let censoredCount: Int

    /// Non-finite or negative durations are ignored. At equal times, events are counted before
    /// censorings, so an observation censored at t is still at risk at t.
    public init(_ gaps: [CensoredGap]) {
        let data = gaps.filter { $0.duration.isFinite && $0.duration >= 0 }
            .sorted { $0.duration < $1.duration }
        observations = data.count
        censoredCount = data.reduce(0) { $0 + ($1.censored ? 1 : 0) }
        var steps: [Step] = []
        var atRisk = data.count
        var survival = 1.0
        var greenwoodSum = 0.0
        var i = 0
        while i < data.count {
            let time = data[i].duration
            var events = 0, leaving = 0
            while i < data.count, data[i].duration == time {
                if !data[i].censored { events += 1 }
                leaving += 1
                i += 1
            }
            if events > 0 {
                survival *= 1 - Double(events) / Double(atRisk)
                if events < atRisk {
                    greenwoodSum += Double(events) / (Double(atRisk) * Double(atRisk - events))
                }
                let variance = survival > 0 ? survival * survival * greenwoodSum : 0
                steps.append(Step(time: time, atRisk: atRisk, events: events, survival: survival, variance: variance))
            }
            atRisk -= leaving
        }
        self.steps = steps
    }

    /// S(t) = P(gap > t); 1 before the first event time.
    public func survival(at t: Double) -> Double {
        lastStep(atOrBefore: t).map { steps[$0].survival } ?? 1
    }

    /// Greenwood's variance of S(t); 0 before the first event time.
    public func variance(at t: Double) -> Double {
        lastStep(atOrBefore: t).map { steps[$0].variance } ?? 0
    }

    /// The lowest value of S, reached at the last event time: the share of gaps that never ended in the data.
    public var plateau: Double { steps.last?.survival ?? 1 }

    /// The inverse CDF for resampling: the smallest event time t with 1 − S(t) ≥ u, for u in [0, 1].
    ///
    /// `nil` means "no organic return": u falls in the mass 1 − S(t_max) … 1 that the estimate leaves
    /// undistributed because the longest gaps were censored, so a draw there is a dropout. `nil` for every
    /// u when no gap was ever observed to end.
    public func quantile(u: Double) -> Double? {
        guard let last = steps.last, u <= 1 - last.survival else { return nil }
        var low = 0, high = steps.count - 1
        while low < high {
            let mid = (low + high) / 2
            if 1 - steps[mid].survival >= u { high = mid } else { low = mid + 1 }
        }
        return steps[low].time
    }

    private func lastStep(atOrBefore t: Double) -> Int? {
        var low = 0, high = steps.count
        while low < high {
            let mid = (low + high) / 2
            if steps[mid].time <= t { low = mid + 1 } else { high = mid }
        }
        return low > 0 ? low - 1 : nil
    }
}
