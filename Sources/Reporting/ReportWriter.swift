import FilePaths
import Foundation
import Simulation
import Storage

/// Renders a run into a folder: `report.md`, one CSV per table, the decision's CSV files, the charts and their data.
public enum ReportWriter {
    /// Writes the report of run `id` from `store` into `folder`; returns the files written. `csvSafe`
    /// puts a `'` before CSV text a spreadsheet would run as a formula.
    @discardableResult
    public static func write(run id: Int64, store: RunStore, to folder: String, csvSafe: Bool = false) throws -> [String] {
        try write(store.load(id), to: folder, csvSafe: csvSafe)
    }

    /// Writes the report of a run loaded (or just saved) into `folder`; returns the files written.
    /// Every file comes from the run's results in memory, so the CSV files and the report agree.
    @discardableResult
    public static func write(_ run: StoredRun, to folder: String, csvSafe: Bool = false,
                             secondLook: DecisionSecondLook? = nil) throws -> [String] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let tables = CSVExport.files(run) + DecisionCSV.files(run.results, runID: run.id, secondLook: secondLook)
            + CurveDifferenceCSV.files(run.results, runID: run.id)
        var files = try CSVExport.write(tables, to: folder, raw: !csvSafe)
        var charts: [ChartKind: String] = [:]
        var svgs: [String: String] = [:]
        for (kind, svg) in ReportCharts.render(run.results) {
            try ReportFiles.write(svg, to: Path.join(folder, kind.fileName))
            charts[kind] = kind.fileName
            svgs[kind.fileName] = svg
            files.append(kind.fileName)
        }
        let markdown = MarkdownReport.render(run, charts: charts, secondLook: secondLook)
        try ReportFiles.write(markdown, to: Path.join(folder, "report.md"))
        files.append("report.md")
        let html = HTMLReport.render(markdown: markdown, charts: svgs,
                                     title: "ReminderSim report: \(run.results.scenario.name)")
        try ReportFiles.write(html, to: Path.join(folder, "report.html"))
        files.append("report.html")
        return files
    }
}
