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

        charts += tradeOffCharts(results)

        charts.append((.triggerRate, IntervalBarChart(
            title: "Trigger rate per configuration", categoryAxisTitle: "Configuration",
            valueAxisTitle: "Trigger rate (% of notifications not censored; 95% interval clustered by user)",
            valueFormat: .percent,
            bars: configs.map { i in
                let p = metrics[i].triggerRate
                let ci = p.interval
                return IntervalBar(label: specs[i].label, value: p.rate ?? 0, low: ci?.low, high: ci?.high)
            }).svg()))

        charts.append((.opensLift, IntervalBarChart(
            title: "Opens per user gained over the holdout", categoryAxisTitle: "Configuration",
            valueAxisTitle: "Extra opens per user over the run (95% interval)", valueFormat: .number,
            bars: configs.map { i in
                let e = metrics[i].opensLiftPerUser
                return IntervalBar(label: specs[i].label, value: e?.value ?? 0, low: e?.low, high: e?.high)
            }, reference: ReferenceLine(label: "Holdout", value: 0)).svg()))

        let days = tallies[0].layout.days
        let paired = results.tallies.sums != nil
        func dailySeries(_ i: Int) -> LineSeries {
            guard paired else {
                return LineSeries(name: specs[i].label, points: (0..<days).map {
                    (x: Double($0), y: Double(tallies[i].daily($0) - tallies[0].daily($0)))
                })
            }
            let estimates = (0..<days).map { results.dailyActiveDifference(i, day: $0) }
            return LineSeries(
                name: specs[i].label, points: estimates.enumerated().map { (x: Double($0), y: $1?.value ?? .nan) },
                band: estimates.enumerated().compactMap { d, e in e.map { (x: Double(d), low: $0.low, high: $0.high) } })
        }
        charts.append((.dailyActiveUsers, LineChart(
            title: "Daily active users minus the holdout's (bands: 95% paired intervals)",
            xAxisTitle: "Day of the run (days from the start date, UTC)",
            yAxisTitle: "Extra daily active users (users)",
            series: configs.map(dailySeries), yIncludesZero: true).svg()))

        func retentionSeries(_ i: Int) -> LineSeries {
            let estimates: [(Int, Estimate)] = (1...retentionCurveDays).compactMap { k in
                if paired { return results.retentionDifference(i, day: k).map { (k, $0) } }
                let r = tallies[i].retention(day: k), h = tallies[0].retention(day: k)
                guard r.eligible > 0 else { return nil }
                let v = Double(r.retained - h.retained) / Double(r.eligible)
                return (k, Estimate(value: v, low: v, high: v))
            }
            return LineSeries(name: specs[i].label, points: estimates.map { (x: Double($0.0), y: $0.1.value) }, marker: true,
                              band: paired ? estimates.map { (x: Double($0.0), low: $0.1.low, high: $0.1.high) } : [])
        }
        charts.append((.retention, LineChart(
            title: "Retention minus the holdout's, by day since install (bands: 95% paired intervals)",
            xAxisTitle: "Days since install (the user's local days)",
            yAxisTitle: "Retention difference (percentage points)", yFormat: .percent,
            series: configs.map(retentionSeries)).svg()))

        if let chart = periodChart(results) { charts.append((.byPeriod, chart)) }

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
            valueAxisTitle: "Trigger rate, % of notifications not censored (clustered 95% interval)",
            groups: keys,
            series: zip(configs, periodRows).map { i, rows in
                BarSeries(name: specs[i].label, values: keys.map { k in
                    guard let row = rows.first(where: { key($0) == k }), let rate = row.triggerRate.rate else { return nil }
                    let ci = row.triggerRate.interval
                    return BarValue(rate, low: ci?.low, high: ci?.high)
                })
            }).svg()))
        if results.configurations.contains(where: { $0.metrics.delivered > 0 }) {
            charts.append((.deliveriesByHour, DeliveryReport.chart(results)))
        }
        return charts
    }

    /// Opens lift against opt-out rate and against notifications delivered per user, with the
    /// Pareto front and the decision rule's limits.
    static func tradeOffCharts(_ results: RunResults) -> [(ChartKind, String)] {
        let configs = results.configurations
        let rule = results.decision.rule
        let recommended = results.decision.recommended
        var out: [(ChartKind, String)] = []
        for (kind, cost) in [(ChartKind.tradeOffOptOut, DecisionMeasure.optOutRate), (.tradeOffDelivered, .deliveredPerUser)] {
            let points = configs.map { c -> ScatterPoint in
                let y = c.estimate(.opensLiftPerUser), x = c.estimate(cost)
                return ScatterPoint(label: c.label, x: x?.value ?? .nan, y: y?.value ?? .nan,
                                    xInterval: x.map { ($0.low, $0.high) }, yInterval: y.map { ($0.low, $0.high) },
                                    highlighted: c.index == recommended)
            }
            var limits: [LimitLine] = []
            for (m, b) in rule.orderedConstraints {
                let axis: LimitLine.Axis? = m == cost ? .x : m == .opensLiftPerUser ? .y : nil
                guard let axis else { continue }
                if let v = b.max { limits.append(LimitLine(label: "limit: \(m.title) ≤ \(Text.measure(m, v))", axis: axis, value: v)) }
                if let v = b.min { limits.append(LimitLine(label: "limit: \(m.title) ≥ \(Text.measure(m, v))", axis: axis, value: v)) }
            }
            let front = ScatterChart.paretoFront(points.map { (x: $0.x, y: $0.y) })
            out.append((kind, ScatterChart(
                title: cost == .optOutRate ? "Trade-off: extra opens against users opting out"
                    : "Trade-off: extra opens against notifications delivered",
                xAxisTitle: cost == .optOutRate ? "Users who turned notifications off (% of users; 95% Wilson interval)"
                    : "Notifications delivered per user over the run (95% interval)",
                yAxisTitle: "Extra opens per user (95% interval)",
                xFormat: cost == .optOutRate ? .percent : .number, points: points, front: front,
                frontLabel: "Pareto front (no configuration has more opens at a lower cost)", limits: limits).svg()))
        }
        return out
    }

    /// Opens lift and opt-out rate over the period, for configurations with one reminder and one period.
    static func periodChart(_ results: RunResults) -> String? {
        var groups: [String: [(days: Double, c: ConfigurationResult)]] = [:]
        var order: [String] = []
        for c in results.configurations where c.spec.reminders.count == 1 && c.spec.reminders[0].timePeriods.count == 1 {
            let key = c.spec.mode.rawValue
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append((c.spec.delaysUsedSeconds[0] / 86_400, c))
        }
        let usable = order.filter { Set(groups[$0]!.map(\.days)).count >= 2 }
        guard !usable.isEmpty else { return nil }
        let several = usable.count > 1
        let series = usable.map { key -> LineSeries in
            let rows = groups[key]!.sorted { $0.days < $1.days }
            let estimates = rows.map { ($0.days, $0.c.metrics.opensLiftPerUser) }
            return LineSeries(
                name: "opens per user vs holdout" + (several ? " (\(key) mode)" : ""),
                points: estimates.map { (x: $0.0, y: $0.1?.value ?? .nan) }, marker: true,
                band: estimates.compactMap { d, e in e.map { (x: d, low: $0.low, high: $0.high) } })
        }
        return LineChart(
            title: "Extra opens by reminder period (one-period configurations)",
            xAxisTitle: "Reminder period (days)", yAxisTitle: "Extra opens per user (band: 95% interval)",
            series: series).svg()
    }
}
