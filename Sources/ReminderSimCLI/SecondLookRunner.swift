import Console
import Foundation
import Reporting
import Simulation

/// Works out the second looks at a run's decision: the recommendation re-checked against the
/// runner-up on other users, and the decision under K draws of the response model (or, when the
/// scenario gives no uncertainty and no draws are asked for, the quick sensitivity runs); and the
/// simulated live test behind the plan with CUPED. Every run
/// here is deterministic, so a stored run's report recomputes the same figures.
struct SecondLookRunner {
    let results: RunResults
    let recorded: RecordedLogs
    let threads: Int
    /// Draws of the response model; 0 for the sensitivity runs instead.
    let draws: Int
    /// The scenario's file, nil for the built-in one, to name it in errors.
    let path: String?
    /// How errors name the scenario when it is not a file's: a stored run's (`stored(_:)`); nil for
    /// the built-in scenario.
    var source: String?

    /// A stored run's scenario, as errors name it.
    static func stored(_ runID: Int64, _ scenario: Scenario) -> String {
        "run \(runID)'s scenario \"\(TerminalText.printable(scenario.name))\""
    }

    /// `--model-draws`'s value, or its default, `UncertainDecision.defaultDraws`, when the scenario
    /// gives an uncertainty; 0 otherwise, whatever was asked: a model without one has nothing to
    /// draw, and its draws would be the same run K times (`warnIfNothingToDraw` says so).
    static func draws(_ asked: Int?, scenario: Scenario) -> Int {
        scenario.response.isUncertain ? asked ?? UncertainDecision.defaultDraws : 0
    }

    /// Warns on stderr when `--model-draws` asks for draws of a response model without uncertainty.
    static func warnIfNothingToDraw(_ asked: Int?, scenario: Scenario, context: CommandContext,
                                    instead: String = "the sensitivity runs are made instead") {
        guard let asked, asked > 0, !scenario.response.isUncertain else { return }
        context.stderr.writeLine("remindersim: warning: --model-draws: the scenario gives its response without "
            + "uncertainty (no range and no `response.uncertainty`), so there is nothing to draw; \(instead)")
    }

    func compute(progress: ((String) -> Void)? = nil) throws -> DecisionSecondLook {
        let scenario = results.scenario
        let decision = results.decision
        let prePeriod = results.prePeriodSimulation(recorded: recorded, threads: threads)
        var recheck: DecisionRecheck?
        if let (s, r, u) = DecisionRecheck.scenario(for: scenario, decision: decision) {
            progress?(DecisionSecondLook.recheck)
            recheck = DecisionRecheck(try simulate(s, keepsDetail: false, look: DecisionSecondLook.lookName(DecisionSecondLook.recheck) + " (seed \(s.seed))"),
                                      recommended: r, runnerUp: u, in: scenario)
        }
        if draws > 0 {
            var runs: [[ConfigurationResult]] = []
            for k in 0..<draws {
                progress?("model draw \(k + 1) of \(draws)")
                var s = scenario
                s.response = scenario.response.draw(k, seed: scenario.seed)
                runs.append(try simulate(s, keepsDetail: false, look: "model draw \(k + 1) of \(draws)").all)
            }
            let uncertain = UncertainDecision(rule: scenario.effectiveDecision, baseline: results.baselineIndex, draws: runs)
            return DecisionSecondLook(recheck: recheck, uncertain: uncertain, sensitivity: [], prePeriod: prePeriod)
        }
        guard decision.recommended != nil else {
            return DecisionSecondLook(recheck: recheck, uncertain: nil, sensitivity: [], prePeriod: prePeriod)
        }
        // The five best configurations by the objective, the five best that meet every constraint (the
        // recommendation first) and the baseline, as `tune` re-runs its finalists.
        let keep = Array(Set(decision.ranked.prefix(5) + decision.admissible.prefix(5) + [decision.baseline].filter { $0 > 0 }))
            .sorted()
        // Each change is read against the same configurations on the same users with the response unchanged.
        var sensitivity: [(name: String, recommended: String?)] = []
        let models = [(DecisionSecondLook.unchanged, scenario.response)] + DecisionSecondLook.sensitivityModels(scenario.response)
        for (name, response) in models {
            progress?(name == DecisionSecondLook.unchanged ? "sensitivity control" : name)
            var s = scenario.keeping(keep)
            s.users = min(s.users, DecisionRecheck.maximumUsers)
            let weights = s.response.messageWeights
            s.response = response
            s.response.messageWeights = weights
            let r = try simulate(s, keepsDetail: false, look: DecisionSecondLook.lookName(name))
            sensitivity.append((name, r.decision.recommended.map { r.all[$0].label }))
        }
        return DecisionSecondLook(recheck: recheck, uncertain: nil, sensitivity: Array(sensitivity.dropFirst()),
                                  sensitivityUnchanged: sensitivity[0].recommended, prePeriod: prePeriod)
    }

    /// The results of `scenario` simulated whole, on its own users; without `keepsDetail`, only what
    /// the decision reads (see `RunOptions.keepsDetail`): the second looks read nothing else. A user
    /// past the session limit in `look` is an error naming it: the look cannot be made.
    func simulate(_ scenario: Scenario, keepsDetail: Bool, look: String) throws -> RunResults {
        try Self.simulate(scenario, recorded: recorded, threads: threads, path: path, keepsDetail: keepsDetail,
                          look: look, source: source)
    }

    /// The results of `scenario` simulated whole, on its own users; errors name `path` (or `source`)
    /// and, for a second look, the `look`.
    static func simulate(_ scenario: Scenario, recorded: RecordedLogs, threads: Int, path: String?,
                         keepsDetail: Bool = true, look: String? = nil, source: String? = nil) throws -> RunResults {
        let model: CompiledModel
        do {
            model = try CompiledModel(scenario, recorded: recorded)
        } catch let error as ScenarioError {
            throw ScenarioLoading.invalid(ScenarioError(source: ScenarioLoading.displayName(path) ?? source, issues: error.issues))
        }
        var options = RunOptions(threads: threads, users: 0..<scenario.users, pairs: .decision)
        options.keepsDetail = keepsDetail
        let tallies = model.run(options: options)
        if let breach = tallies.sessionLimitBreach {
            let name = ScenarioLoading.displayName(path) ?? source ?? "the built-in scenario"
            throw CommandError.dataError("\(name): "
                + (look.map { "the decision's second look cannot be made: in \($0), " } ?? "") + model.explain(breach))
        }
        return RunResults(scenario: scenario, tallies: tallies)
    }
}

/// `--model-draws K`, shared by run and tune.
struct ModelDrawsArgument: ArgumentValue {
    /// The most draws asked for: each is a whole simulation.
    static let limit = UncertainDecision.maximumDraws
    let draws: Int

    init(argument: String) throws(ArgumentValueError) {
        guard let k = Int(argument), (0...Self.limit).contains(k) else {
            throw ArgumentValueError(expected: "a whole number from 0 to \(Self.limit)")
        }
        draws = k
    }

    static let spec = ArgumentSpec.option("--model-draws", valueName: "K", help: """
        Simulate the configurations under K draws of the response parameters (the same users at every \
        draw) and report, per configuration, the probability that it is the best feasible one, the \
        probability that it meets each constraint, and the expected loss of shipping it. Default: \
        \(UncertainDecision.defaultDraws) when the scenario gives a parameter a range or carries \
        response.uncertainty, 0 otherwise (the quick check then re-runs the best five with the base \
        response halved and doubled and with opt-outs doubled); a scenario without either has nothing \
        to draw, and K is then ignored, with a warning.
        """)
}
