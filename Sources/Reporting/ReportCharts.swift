import Rendering
import Simulation
import Storage

/// The report's charts as SVG text, by kind.
enum ReportCharts {
    static func render(_ results: RunResults) -> [(ChartKind, String)] {
        let all = results.all
        let tallies = all.map(\.tally)
        let specs = all.map(\.spec)
        let metrics = all.map(\.metrics)
        let configs = Array(all.indices.dropFirst())
        var charts: [(ChartKind, String)] = []

        charts.append((.triggerRate, IntervalBarChart(
            title: "Trigger rate per configuration", categoryAxisTitle: "Configuration",
            valueAxisTitle: "Trigger rate: fired before the user came back (% of scheduled)", valueFormat: .percent,
            bars: configs.map { i in
                let p = metrics[i].triggerRate
                let ci = p.wilson()
                return IntervalBar(label: specs[i].label, value: p.rate ?? 0, low: ci?.low, high: ci?.high)
            }).svg()))

        charts.append((.opensLift, IntervalBarChart(
            title: "Opens per user gained over the holdout", categoryAxisTitle: "Configuration",
            valueAxisTitle: "Extra opens per user (95% interval)", valueFormat: .number,
            bars: configs.map { i in
                let e = metrics[i].opensLiftPerUser
                return IntervalBar(label: specs[i].label, value: e?.value ?? 0, low: e?.low, high: e?.high)
            }, reference: ReferenceLine(label: "Holdout", value: 0)).svg()))

        let days = tallies[0].layout.days
        func dailySeries(_ i: Int) -> LineSeries {
            LineSeries(name: specs[i].label, points: (0..<days).map { (x: Double($0), y: Double(tallies[i].daily($0))) },
                       style: i == 0 ? .reference : .solid)
        }
        charts.append((.dailyActiveUsers, LineChart(
            title: "Daily active users", xAxisTitle: "Day of the run (UTC)", yAxisTitle: "Users with an open",
            series: configs.map(dailySeries) + [dailySeries(0)]).svg()))

        func retentionSeries(_ i: Int) -> LineSeries {
            let points: [(x: Double, y: Double)] = (1...retentionCurveDays).compactMap { k in
                let r = tallies[i].retention(day: k)
                guard r.eligible > 0 else { return nil }
                return (x: Double(k), y: Double(r.retained) / Double(r.eligible))
            }
            return LineSeries(name: specs[i].label, points: points, style: i == 0 ? .reference : .solid, marker: true)
        }
        charts.append((.retention, LineChart(
            title: "Retention by day since install", xAxisTitle: "Days since install (local days)",
            yAxisTitle: "Users with an open that day", yFormat: .percent,
            series: configs.map(retentionSeries) + [retentionSeries(0)]).svg()))

        // One group per (reminder, period position, delay really used), for the periods that were used;
        // reminders are named only when some configuration has several.
        let periodRows = configs.map { all[$0].periods }
        let severalReminders = configs.contains { specs[$0].reminders.count > 1 }
        var keys: [String] = []
        func key(_ row: SlotMetrics) -> String {
            (severalReminders ? "reminder \(row.reminder + 1), " : "") + "period \(row.index + 1): \(row.name)"
        }
        for rows in periodRows {
            for row in rows where row.triggerRate.rate != nil && !keys.contains(key(row)) { keys.append(key(row)) }
        }
        charts.append((.triggerByPeriod, GroupedBarChart(
            title: "Trigger rate by period", groupAxisTitle: "Period (in the order the reminder uses them)",
            valueAxisTitle: "Trigger rate (% of scheduled)",
            groups: keys,
            series: zip(configs, periodRows).map { i, rows in
                BarSeries(name: specs[i].label, values: keys.map { k in
                    guard let row = rows.first(where: { key($0) == k }), let rate = row.triggerRate.rate else { return nil }
                    let ci = row.triggerRate.wilson()
                    return BarValue(rate, low: ci?.low, high: ci?.high)
                })
            }).svg()))
        if results.configurations.contains(where: { $0.metrics.delivered > 0 }) {
            charts.append((.deliveriesByHour, DeliveryReport.chart(results)))
        }
        return charts
    }
}
