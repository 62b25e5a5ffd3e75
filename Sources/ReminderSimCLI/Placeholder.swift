import Foundation
import Simulation

/// The `remindersim` entry point.
public enum RemindersimCommand {
    public static let version = "0.1.0"

    public static func main(arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Int32 {
        if arguments.contains("--version") {
            print(version)
            return 0
        }
        if arguments.first == "run" {
            var s = Scenario.builtInDefault
            if arguments.count > 1, let u = Int(arguments[1]) { s.users = u }
            let threads = arguments.count > 2 ? Int(arguments[2])! : 2
            let model = try! CompiledModel(s)
            let start = Date()
            let r = model.run(options: RunOptions(threads: threads))
            let wall = Date().timeIntervalSince(start)
            for (i, t) in r.tallies.enumerated() {
                let m = ConfigurationMetrics(label: model.configurations[i].spec.label, tally: t, isHoldout: i == 0)
                print(m.label, "opens", m.opens, "sched", m.scheduled, "trig", m.triggerRate.rate ?? -1, "resp", m.responseRate.rate ?? -1, "lift", m.opensLiftPerUser?.value ?? 0, "d7", m.retentionD7.rate ?? -1, "d30", m.retentionD30.rate ?? -1, "optout", m.optOuts)
            }
            let opens = r.tallies.reduce(0) { $0 + $1[.opens] }
            print("wall", wall, "sessions", opens, "per core per s", Double(opens) / wall / Double(threads))
            return 0
        }
        print("USAGE: remindersim <command>")
        return arguments.isEmpty || arguments.contains("--help") ? 0 : 64
    }
}
