import Simulation

/// A past live test for `calibrate`: the default population over ten days with the 2-day and
/// 1/2/4-day circular reminders (no cron rules), and the results file of a test simulated from it.
enum CalibrationFixture {
    static func experiment(baseResponse: Double) -> Scenario {
        var s = Scenario.builtInDefault
        // Every user reaches day 7 inside the run, as the results file's retained_d7 counts them.
        s.horizonDays = 14
        s.population.installSpreadDays = 3
        s.configurations = s.configurations.filter { ["2d", "1/2/4d circular"].contains($0.label) }
            .map { var c = $0; c.cronRules = []; return c }
        s.grid = nil
        s.response.baseResponse = baseResponse
        return s
    }

    /// The results file of `truth` simulated: one row per arm, with retention on day 7.
    static func results(of truth: Scenario) throws -> String {
        let model = try CompiledModel(truth)
        let tallies = model.run(options: RunOptions(threads: 2)).tallies
        var csv = "arm,users,delivered,opens,opt_outs,retained_d7\n"
        for (i, t) in tallies.enumerated() {
            csv += "\(model.configurations[i].spec.label),\(t[.users]),\(t[.delivered]),\(t[.opens]),\(t[.optOuts]),\(t[.retainedD7])\n"
        }
        return csv
    }
}
