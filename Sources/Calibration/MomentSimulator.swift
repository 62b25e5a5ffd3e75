import Foundation
import RecordedData
import Simulation

/// Simulates the arms of a past experiment and reduces them to per-user moments in a fixed order.
struct MomentSimulator {
    enum Kind: String {
        case delivered, opens, optOuts = "opt_outs", retainedD7 = "retained_d7", retainedD30 = "retained_d30", attributed
    }

    /// The scenario cut down to the arms of the results, with the calibration's users and seed.
    let scenario: Scenario
    /// The recorded logs the scenario names, read once for every trial point.
    let recorded: RecordedLogs
    let options: Calibration.Options
    /// The results' arms' configurations (the holdout has none of its own and is not listed).
    let configurations: [ConfigurationSpec]
    /// Per moment: index of its arm in the model (0 is the holdout), its kind, label and observed value.
    let arm: [Int]
    let kind: [Kind]
    let armLabel: [String]
    var momentName: [String] { kind.map(\.rawValue) }
    let observed: [Double]
    let observedUsers: [Double]

    init(scenario: Scenario, recorded: RecordedLogs, results: ExperimentResults, options: Calibration.Options) throws {
        let all = scenario.expandedConfigurations
        var used: [ConfigurationSpec] = []
        for a in results.arms where a.label != "holdout" {
            guard let c = all.first(where: { $0.label == a.label }) else {
                func quote(_ label: String) -> String { Excerpt.quoted(label, limit: Excerpt.messageLimit, mark: "\"") }
                let labels = (["holdout"] + all.prefix(20).map(\.label)).map(quote).joined(separator: ", ")
                    + (all.count > 20 ? ", …" : "")
                throw CalibrationError(.mismatch, "arm \(quote(a.label)) is not a configuration of the scenario "
                    + "(its arms: \(labels))", line: a.line)
            }
            used.append(c)
        }
        var s = scenario
        s.configurations = used
        s.grid = nil
        // Results without the baseline's arm are compared with the holdout.
        if let baseline = s.baseline, !used.contains(where: { $0.label == baseline }) { s.baseline = nil }
        s.users = options.users
        if let seed = options.seed { s.seed = seed }
        self.scenario = s
        self.recorded = recorded
        self.options = options
        configurations = used

        var arm: [Int] = [], kind: [Kind] = [], labels: [String] = [], observed: [Double] = [], users: [Double] = []
        for a in results.arms {
            let index = a.label == "holdout" ? 0 : 1 + used.firstIndex { $0.label == a.label }!
            if index == 0, a.delivered > 0 || a.optOuts > 0 || (a.attributed ?? 0) > 0 {
                throw CalibrationError(.mismatch, "the holdout reports notifications (delivered, opt-outs or "
                    + "attributed opens), but a holdout sends none", line: a.line)
            }
            var values: [(Kind, Int)] = [(.delivered, a.delivered), (.opens, a.opens), (.optOuts, a.optOuts)]
            if let v = a.retainedD7 { values.append((.retainedD7, v)) }
            if let v = a.retainedD30 { values.append((.retainedD30, v)) }
            if let v = a.attributed { values.append((.attributed, v)) }
            for (k, v) in values {
                arm.append(index)
                kind.append(k)
                labels.append(a.label)
                observed.append(Double(v) / Double(a.users))
                users.append(Double(a.users))
            }
        }
        if results.arms.contains(where: { $0.retainedD30 != nil }), scenario.horizonDays < 31 {
            throw CalibrationError(.mismatch, "retained_d30 needs a scenario of at least 31 days, this one has \(scenario.horizonDays)")
        }
        if results.arms.contains(where: { $0.retainedD7 != nil }), scenario.horizonDays < 8 {
            throw CalibrationError(.mismatch, "retained_d7 needs a scenario of at least 8 days, this one has \(scenario.horizonDays)")
        }
        self.arm = arm
        self.kind = kind
        armLabel = labels
        self.observed = observed
        observedUsers = users
    }

    /// Moments whose per-user variance is not zero: a moment that cannot vary (a holdout's deliveries) says nothing.
    func usable(perUserVariance: [Double]) -> [Int] {
        perUserVariance.indices.filter { perUserVariance[$0] > 0 }
    }

    private func model(_ response: ResponseModel) throws -> CompiledModel {
        var s = scenario
        s.response = response
        return try CompiledModel(s, recorded: recorded)
    }

    /// The first `users` of the calibration's users, or all of them.
    private func count(_ users: Int?) -> Int { min(users ?? options.users, options.users) }

    /// The moments of the first `users` simulated users (all of them by default): the same users, with the
    /// same random streams, at every trial point and whatever the count.
    func moments(_ response: ResponseModel, users: Int? = nil) throws -> [Double] {
        let m = try model(response)
        let n = count(users)
        return reduce(m.run(options: runOptions(0..<n)).tallies)
    }

    /// A run that keeps the tallies' configuration counters only: the moments read nothing else.
    private func runOptions(_ users: Range<Int>) -> RunOptions {
        var o = RunOptions(threads: options.threads, users: users, keepsSums: false)
        o.keepsDetail = false
        return o
    }

    /// The moments of each of `options.batches` consecutive batches of the first `users` users (all of them
    /// by default), with the batch sizes.
    func batchMoments(_ response: ResponseModel, users: Int? = nil) throws -> [(users: Int, moments: [Double])] {
        let m = try model(response)
        let n = count(users)
        let count = min(options.batches, n)
        // The same users in every arm: the holdout's tally counts who reaches each day.
        var users: Int64 = 0, reachD7: Int64 = 0, reachD30: Int64 = 0
        let batches = (0..<count).map { b in
            let range = (b * n / count)..<((b + 1) * n / count)
            let tallies = m.run(options: runOptions(range)).tallies
            users += tallies[0][.users]
            reachD7 += tallies[0][.eligibleD7]
            reachD30 += tallies[0][.eligibleD30]
            return (range.count, reduce(tallies))
        }
        // A results file counts the retained among every user of an arm; the simulation counts them among the
        // users whose day lies inside the run. The two agree only when every user reaches that day.
        for (k, day, reached) in [(Kind.retainedD7, 7, reachD7), (.retainedD30, 30, reachD30)]
        where kind.contains(k) && reached < users {
            throw CalibrationError(.mismatch, "retained_d\(day) counts the retained among all of an arm's users, but only "
                + "\(reached) of the \(users) simulated users reach day \(day) inside the scenario's \(scenario.horizonDays) days "
                + "(installs spread over \(String(format: "%g", scenario.population.installSpreadDays)) days), so the shares would "
                + "not compare: spread the installs over fewer days (population.installSpreadDays) or lengthen the run (horizonDays)")
        }
        return batches
    }

    private func reduce(_ tallies: [Tally]) -> [Double] {
        arm.indices.map { i in
            let t = tallies[arm[i]]
            let users = Double(max(t[.users], 1))
            switch kind[i] {
            case .delivered: return Double(t[.delivered]) / users
            case .opens: return Double(t[.opens]) / users
            case .optOuts: return Double(t[.optOuts]) / users
            case .attributed: return Double(t[.attributed]) / users
            case .retainedD7: return Double(t[.retainedD7]) / Double(max(t[.eligibleD7], 1))
            case .retainedD30: return Double(t[.retainedD30]) / Double(max(t[.eligibleD30], 1))
            }
        }
    }
}
