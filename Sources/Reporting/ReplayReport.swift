import Foundation
import Simulation

/// What a report says about a run whose population replays recorded users: how many independent
/// users its intervals rest on, and that they are clustered by recorded user.
public enum ReplayReport {
    /// One sentence for the report, the summary and `--json`; nil for a run that replays nobody.
    public static func sentence(_ results: RunResults) -> String? {
        guard results.replaysRecordedUsers else { return nil }
        guard let r = results.replaySummary else {
            return "Segments replay recorded users, but this run has no totals per recorded user (it was stored before they "
                + "were kept, or its recorded users times pairs of configurations were too many to keep): its intervals treat "
                + "the virtual users as independent and are too narrow where virtual users outnumber the recorded users they "
                + "replay."
        }
        let everyone = r.replayingUsers == r.users
        var text = (everyone ? "All \(Text.group(r.users))" : "\(Text.group(r.replayingUsers)) of the \(Text.group(r.users))")
            + " virtual users replay \(Text.group(r.recordedUsersReplayed)) recorded users, and those who replay the same "
            + "one share its visits: intervals are clustered by recorded user"
            + (everyone ? "" : " (the users of other segments count one each)")
            + ", \(Text.group(r.clusters)) independent units."
        if let d = r.designEffect, let effective = r.effectiveUsers {
            text += " For \(results.all[r.configuration].label)'s \(r.objective.title) the design effect (clustered over "
                + "independent-user variance) is \(String(format: "%.2f", d)): the run is worth about "
                + "\(Text.group(effective)) independent users."
        }
        return text
    }

    /// The same as `--json` gives it.
    public struct JSONValue: Encodable {
        let intervals: String
        let users: Int64?
        let replayingUsers: Int64?
        let recordedUsersReplayed: Int64?
        let independentUnits: Int64?
        let designEffect: DesignEffectJSON?
        let effectiveUsers: Int64?
        let summary: String

        struct DesignEffectJSON: Encodable {
            let measure: String
            let configuration: String
            let value: Double
        }

        /// Nil for a run that replays nobody.
        init?(_ results: RunResults) {
            guard let summary = ReplayReport.sentence(results) else { return nil }
            self.summary = summary
            let r = results.replaySummary
            intervals = r == nil ? "independent virtual users" : "clustered by recorded user"
            users = r?.users
            replayingUsers = r?.replayingUsers
            recordedUsersReplayed = r?.recordedUsersReplayed
            independentUnits = r?.clusters
            designEffect = r.flatMap { r in
                r.designEffect.map {
                    DesignEffectJSON(measure: r.objective.rawValue, configuration: results.all[r.configuration].label, value: $0)
                }
            }
            effectiveUsers = r?.effectiveUsers
        }
    }
}
