import Foundation
import Rendering
import ReminderSimTestSupport
import Reporting
import Simulation
import Storage
import XCTest

/// A report folder's CSV files and its `report.md` show the same numbers: both are rendered from the
/// run's results as loaded, whichever release stored the run.
final class ReportAgreementTests: FolderTestCase {
    override var folderPrefix: String { "agree" }

    func savedRun() throws -> (store: RunStore, id: Int64) {
        var s = Scenario.builtInDefault
        s.users = 600
        s.horizonDays = 35
        let results = RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: 2)))
        let store = try RunStore(path: folder.appendingPathComponent("runs.sqlite").path)
        let id = try store.save(RunRecord(results: results, toolVersion: "test", createdAt: "2026-01-01T00:00:00Z",
                                          wallSeconds: 1, threads: 2))
        return (store, id)
    }

    /// `config_metrics.csv` by label: column name → field.
    func metrics(in report: URL) throws -> [String: [String: String]] {
        let records = try CSVTable.parse(String(contentsOf: report.appendingPathComponent("config_metrics.csv"), encoding: .utf8))
        let header = try XCTUnwrap(records.first)
        var byLabel: [String: [String: String]] = [:]
        for record in records.dropFirst() {
            let row = Dictionary(uniqueKeysWithValues: zip(header, record))
            byLabel[row["label"] ?? ""] = row
        }
        return byLabel
    }

    /// The cells of the report's ranking table, by configuration label.
    func ranking(in report: URL) throws -> [String: [String]] {
        let text = try String(contentsOf: report.appendingPathComponent("report.md"), encoding: .utf8)
        let section = try XCTUnwrap(text.components(separatedBy: "## Configurations against the holdout").dropFirst().first)
        var rows: [String: [String]] = [:]
        for line in section.split(separator: "\n").prefix(while: { !$0.hasPrefix("## ") }) where line.hasPrefix("| ") {
            // Markdown escapes the brackets of an interval.
            let cells = line.dropFirst(2).dropLast(2).components(separatedBy: " | ")
                .map { $0.replacingOccurrences(of: "\\[", with: "[").replacingOccurrences(of: "\\]", with: "]") }
            // A label marked as breaking a constraint of the rule is the label without the mark.
            let label = cells.count > 1 && cells[1].hasSuffix("\u{00A0}‡") ? String(cells[1].dropLast(2)) : cells.count > 1 ? cells[1] : ""
            if cells.count == 10, Int(cells[0]) != nil { rows[label] = cells }
        }
        return rows
    }

    /// A value and its bounds from the CSV, formatted as the report formats them; n/a when one is empty.
    func formatted(_ row: [String: String], _ name: String, _ format: String, scale: Double) -> String {
        let values = [name, name + "_low", name + "_high"].compactMap { row[$0].flatMap(Double.init) }
        guard values.count == 3 else { return "n/a" }
        return String(format: format, values[0] * scale, values[1] * scale, values[2] * scale)
    }

    /// Each configuration's opens lift per user, trigger rate and opt-out rate, with their intervals.
    func assertAgreement(_ report: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let csv = try metrics(in: report), table = try ranking(in: report)
        XCTAssertFalse(table.isEmpty, "no ranking table in report.md", file: file, line: line)
        for (label, cells) in table {
            let row = try XCTUnwrap(csv[label], "config_metrics.csv has no \(label)", file: file, line: line)
            XCTAssertEqual(cells[3], formatted(row, "opens_lift_per_user", "%+.3f [%.3f, %.3f]", scale: 1), label, file: file, line: line)
            XCTAssertEqual(cells[4], formatted(row, "trigger_rate", "%.1f%% [%.1f, %.1f]", scale: 100), label, file: file, line: line)
            // The opt-out rate with two decimals, as the terminal shows it beside a limit.
            XCTAssertEqual(cells[6], formatted(row, "opt_out_rate", "%.2f%% [%.2f, %.2f]", scale: 100), label, file: file, line: line)
        }
    }

    func testAReportsCSVAndMarkdownAgree() throws {
        let (store, id) = try savedRun()
        let report = folder.appendingPathComponent("report")
        try ReportWriter.write(run: id, store: store, to: report.path)
        try assertAgreement(report)
        // The live test's simulated difference against the holdout is the paired opens lift, the very number
        // (joined as text, so an exact match), not the difference of two means that differs in the last bits.
        let live = try CSVTable.parse(String(contentsOf: report.appendingPathComponent("live_test.csv"), encoding: .utf8))
        let header = try XCTUnwrap(live.first)
        let arm = try XCTUnwrap(live.dropFirst().first { $0[header.firstIndex(of: "is_recommendation")!] == "1" })
        let label = arm[header.firstIndex(of: "label")!]
        XCTAssertEqual(arm[header.firstIndex(of: "difference")!], try XCTUnwrap(try metrics(in: report)[label]?["opens_lift_per_user"]))
    }

    /// The segments' counts add up to their configuration's (so that groups can be added up again from
    /// the CSV files), each segment's rates are its counts' ratios, and the interval of notifications
    /// delivered per extra open is the one the decision measures.
    func testSegmentCountsAddUpAndTheirRatesFollowFromThem() throws {
        let (store, id) = try savedRun()
        let report = folder.appendingPathComponent("segments")
        try ReportWriter.write(run: id, store: store, to: report.path)
        let configurations = try metrics(in: report)
        let records = try CSVTable.parse(String(contentsOf: report.appendingPathComponent("segment_metrics.csv"), encoding: .utf8))
        let header = try XCTUnwrap(records.first)
        let rows = records.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
        XCTAssertEqual(Set(rows.map { $0["segment"] ?? "" }), ["daily", "weekly", "fading"])
        let counts = ["users", "opens", "delivered", "opt_outs", "scheduled", "censored", "triggered", "responded",
                      "retained_d7", "eligible_d7", "retained_d30", "eligible_d30"]
        for (label, configuration) in configurations {
            let segments = rows.filter { $0["label"] == label }
            XCTAssertEqual(segments.count, 3, label)
            for name in counts {
                let total = segments.map { Int($0[name] ?? "") ?? -1 }.reduce(0, +)
                XCTAssertEqual(total, Int(configuration[name] ?? ""), "\(label): \(name)")
            }
            for row in segments {
                func n(_ name: String) -> Double { Double(row[name] ?? "") ?? .nan }
                if n("scheduled") > n("censored") {
                    XCTAssertEqual(n("trigger_rate"), n("triggered") / (n("scheduled") - n("censored")), accuracy: 1e-12, label)
                }
                if n("delivered") > 0 { XCTAssertEqual(n("response_rate"), n("responded") / n("delivered"), accuracy: 1e-12, label) }
                if n("eligible_d7") > 0 { XCTAssertEqual(n("retention_d7"), n("retained_d7") / n("eligible_d7"), accuracy: 1e-12, label) }
            }
        }
        // The report's segment table shows each opt-out rate as the ranking does, with two decimals.
        let markdown = try String(contentsOf: report.appendingPathComponent("report.md"), encoding: .utf8)
            .replacingOccurrences(of: "\\[", with: "[").replacingOccurrences(of: "\\]", with: "]")
        for row in rows where row["label"] != "holdout" {
            let cell = formatted(row, "opt_out_rate", "%.2f%% [%.2f, %.2f]", scale: 100)
            XCTAssertTrue(markdown.contains("| \(row["label"] ?? "") | \(row["segment"] ?? "") |") && markdown.contains(" | \(cell) | "),
                          "\(row["label"] ?? "") / \(row["segment"] ?? ""): \(cell)")
        }
        let results = try store.load(id).results
        var bounded = 0
        for c in results.all.dropFirst() {
            let row = try XCTUnwrap(configurations[c.label])
            let e = c.estimate(.deliveredPerExtraOpen)
            XCTAssertEqual(row["delivered_per_incremental_open_low"].flatMap(Double.init), e?.low, c.label)
            XCTAssertEqual(row["delivered_per_incremental_open_high"].flatMap(Double.init), e.flatMap { $0.high.isFinite ? $0.high : nil },
                           c.label)
            if let e, e.high.isFinite {
                bounded += 1
                XCTAssertLessThanOrEqual(e.low, e.value, c.label)
                XCTAssertLessThanOrEqual(e.value, e.high, c.label)
            }
        }
        XCTAssertGreaterThan(bounded, 0, "no configuration with a bounded interval to check")
        XCTAssertEqual(configurations["holdout"]?["delivered_per_incremental_open_low"], "")
    }

    /// `period_stats.period_days` puts periods of hours and of days on one axis; every paired difference
    /// names its unit.
    func testPeriodsInDaysAndTheUnitsOfDifferences() throws {
        var s = Scenario.builtInDefault
        s.users = 300
        s.horizonDays = 35
        s.configurations[0].reminders[0].unit = .hours
        s.configurations[0].reminders[0].timePeriods = [36, 60]
        let results = RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: 2)))
        let facts = RunRecord(results: results, toolVersion: "test", createdAt: "2026-01-01T00:00:00Z", wallSeconds: 1, threads: 2).facts
        let periods = ResultTables.periodStats.erased
        let valueAt = try XCTUnwrap(periods.columns.firstIndex { $0.name == "period_value" })
        let daysAt = try XCTUnwrap(periods.columns.firstIndex { $0.name == "period_days" })
        let unitAt = try XCTUnwrap(periods.columns.firstIndex { $0.name == "period_unit" })
        var seen: Set<String> = []
        for row in periods.rows(facts) {
            guard case let .integer(value) = row[valueAt], case let .real(days) = row[daysAt], case let .text(unit) = row[unitAt] else {
                return XCTFail("\(row)")
            }
            XCTAssertEqual(days, Double(value) / (unit == "hours" ? 24 : 1), "\(row)")
            seen.insert(unit)
        }
        XCTAssertEqual(seen, ["hours", "days"])
        let pairs = ResultTables.pairwiseStats.erased
        let measureAt = try XCTUnwrap(pairs.columns.firstIndex { $0.name == "measure" })
        let pairUnitAt = try XCTUnwrap(pairs.columns.firstIndex { $0.name == "unit" })
        var units: [String: String] = [:]
        for row in pairs.rows(facts) {
            guard case let .text(measure) = row[measureAt], case let .text(unit) = row[pairUnitAt] else { return XCTFail("\(row)") }
            XCTAssertEqual(units.updateValue(unit, forKey: measure) ?? unit, unit, measure)
        }
        XCTAssertEqual(units.count, PairMeasure.allCases.count)
        XCTAssertEqual(units["opens_per_user"], "opens per user")
        XCTAssertEqual(units["retention_d7"], "fraction")
        XCTAssertEqual(units["delivered_per_user"], "notifications per user")
    }

    /// A run stored before the sums over users were kept has rows as migration 3 left them: no sums,
    /// Wilson intervals, and the measures added since NULL. Re-rendered, its CSV files show what its
    /// report shows, the measures added since included.
    func testARunStoredByAnOlderReleaseReRendersWithCSVThatAgrees() throws {
        let (store, id) = try savedRun()
        try store.database.execute("""
            DELETE FROM user_sums;
            DELETE FROM pairwise_stats;
            DELETE FROM segment_metrics;
            UPDATE config_metrics SET opt_out_rate_low = NULL, opt_out_rate_high = NULL, delivered_per_user = NULL,
                delivered_per_user_low = NULL, delivered_per_user_high = NULL, opt_outs_per_delivered = NULL,
                opt_outs_per_delivered_low = NULL, opt_outs_per_delivered_high = NULL, attributed_per_delivered = NULL,
                attributed_per_delivered_low = NULL, attributed_per_delivered_high = NULL, rate_interval = 'wilson';
            """)
        let report = folder.appendingPathComponent("old")
        try ReportWriter.write(run: id, store: store, to: report.path)
        try assertAgreement(report)
        let csv = try metrics(in: report)
        // The measures added since are there, computed from the counts.
        XCTAssertFalse(try XCTUnwrap(csv["holdout"]?["opt_out_rate_low"]).isEmpty)
        XCTAssertTrue(csv.values.allSatisfy { $0["rate_interval"] == "wilson" })
        // The report says which intervals it shows: Wilson's, not clustered ones.
        let markdown = try String(contentsOf: report.appendingPathComponent("report.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("rates over notifications (trigger, response) are Wilson score intervals, not clustered by user"))
        XCTAssertFalse(markdown.contains("delta method on per-user totals"))
        let current = folder.appendingPathComponent("current")
        try ReportWriter.write(run: try savedRun().id, store: store, to: current.path)
        XCTAssertTrue(try String(contentsOf: current.appendingPathComponent("report.md"), encoding: .utf8)
            .contains("are clustered by user (delta method on per-user totals)"))
    }

    /// A column has one type everywhere: a REAL column's cells read back as real numbers in CSV (as
    /// the database holds them, `7.0` and not `7`), an INTEGER column's as whole numbers.
    func testEveryCSVColumnHasTheDatabasesType() throws {
        let (store, id) = try savedRun()
        let report = folder.appendingPathComponent("types")
        try ReportWriter.write(run: id, store: store, to: report.path)
        for table in ResultTables.all {
            let records = try CSVTable.parse(String(contentsOf: report.appendingPathComponent("\(table.name).csv"), encoding: .utf8))
            let header = try XCTUnwrap(records.first)
            for column in table.columns where column.exported {
                let k = try XCTUnwrap(header.firstIndex(of: column.name), "\(table.name).\(column.name)")
                let cells = records.dropFirst().map { $0[k] }.filter { !$0.isEmpty }
                switch column.type {
                case .real:
                    XCTAssertTrue(cells.allSatisfy { $0.contains(".") && Double($0) != nil }, "\(table.name).\(column.name): \(cells.prefix(3))")
                case .integer:
                    XCTAssertTrue(cells.allSatisfy { Int64($0) != nil }, "\(table.name).\(column.name): \(cells.prefix(3))")
                case .text: break
                }
            }
        }
    }

    /// The report's ranking table heads its measure columns with the measures' titles, the same
    /// words the decision text uses, and `config_metrics.csv` holds the measures under their names.
    func testTheRankingTableNamesMeasuresAsTheirDescriptionsDo() throws {
        let (store, id) = try savedRun()
        let report = folder.appendingPathComponent("names")
        try ReportWriter.write(run: id, store: store, to: report.path)
        let text = try String(contentsOf: report.appendingPathComponent("report.md"), encoding: .utf8)
        let section = try XCTUnwrap(text.components(separatedBy: "## Configurations against the holdout").dropFirst().first)
        let headerLine = try XCTUnwrap(section.split(separator: "\n").first { $0.hasPrefix("| \\#") })
        let cells = headerLine.dropFirst(2).dropLast(2).components(separatedBy: " | ")
        let measures: [Measure] = [.opensLiftPerUser, .triggerRate, .responseRate, .optOutRate, .liftD7, .liftD30, .deliveredPerExtraOpen]
        XCTAssertEqual(Array(cells.dropFirst(3)), measures.map(\.title))
        let header = try XCTUnwrap(try CSVTable.parse(String(contentsOf: report.appendingPathComponent("config_metrics.csv"),
                                                              encoding: .utf8)).first)
        for m in measures { XCTAssertTrue(header.contains(m.name), m.name) }
        for m in PairMeasure.allCases { XCTAssertEqual(m.rawValue, m.measure.name) }
        for m in DecisionMeasure.allCases { XCTAssertEqual(m.title, m.measure.title) }
    }
}
