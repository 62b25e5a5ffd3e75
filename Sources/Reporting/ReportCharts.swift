import Storage

/// The report's charts as SVG text, by kind.
enum ReportCharts {
    static func render(_ run: StoredRun) -> [(ChartKind, String)] { [] }
}
