import Rendering
import Simulation

/// The data behind the report's retention and daily-active-users charts as CSV files: each
/// configuration's difference from the holdout by day, with the paired interval the charts draw as
/// bands. Like the decision's files they are worked out from the run's results, not read from a
/// table; a run stored without sums over users (schema version 1 or 2) has no paired intervals, and
/// the files then hold their header only.
public enum CurveDifferenceCSV {
    public static func files(_ results: RunResults, runID: Int64) -> [CSVFile] {
        [CSVFile(name: "retention_difference.csv", table: retention(results, runID: runID)),
         CSVFile(name: "daily_active_difference.csv", table: dailyActive(results, runID: runID))]
    }

    static let retentionHeader = [
        "run_id", "config_index", "label", "day_since_install", "eligible", "difference", "difference_low", "difference_high",
    ]

    /// Per configuration but the holdout and day since install 1 to 30: retention minus the holdout's
    /// among the users whose day ends inside the horizon (a fraction; paired).
    static func retention(_ results: RunResults, runID: Int64) -> CSVTable {
        var rows: [[CSVField]] = []
        for c in results.all where !c.isHoldout {
            for k in 1...retentionCurveDays {
                guard let e = results.retentionDifference(c.index, day: k) else { continue }
                rows.append([.integer(runID), .integer(Int64(c.index)), .text(c.label), .integer(Int64(k)),
                             .integer(c.tally.retention(day: k).eligible), .decimal(e.value), .decimal(e.low), .decimal(e.high)])
            }
        }
        return CSVTable(header: retentionHeader, rows: rows)
    }

    static let dailyHeader = ["run_id", "config_index", "label", "day", "date", "difference", "difference_low", "difference_high"]

    /// Per configuration but the holdout and run day: users active that day minus the holdout's (users; paired).
    static func dailyActive(_ results: RunResults, runID: Int64) -> CSVTable {
        let start = CalendarDate(iso: results.scenario.startDate)
        var rows: [[CSVField]] = []
        for c in results.all where !c.isHoldout {
            for d in 0..<c.tally.layout.days {
                guard let e = results.dailyActiveDifference(c.index, day: d) else { continue }
                rows.append([.integer(runID), .integer(Int64(c.index)), .text(c.label), .integer(Int64(d)),
                             start.map { .text($0.adding(days: d).description) } ?? .null,
                             .decimal(e.value), .decimal(e.low), .decimal(e.high)])
            }
        }
        return CSVTable(header: dailyHeader, rows: rows)
    }
}
