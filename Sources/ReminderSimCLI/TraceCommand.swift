import Console
import Foundation
import Reporting
import ReminderEngine
import Simulation

/// `remindersim trace`: one virtual user's timeline, step by step.
struct TraceCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "trace",
        abstract: "Show one virtual user's full timeline under a configuration and under the holdout.",
        discussion: """
            Opens, closes, launches, cron rules, notifications scheduled, cancelled, fired and answered, and \
            the reminder engine's state after each step, in the user's local time. The trace walks the user's \
            timeline step by step through the engines, as 'run' does (a run may count the sessions where nothing \
            fires without calling the engine): the user's counts in a run are exactly the events shown here.
            """,
        arguments: ScenarioFileArgument.specs + [user, config] + ScenarioOverrides.specs)

    static let user = ArgumentSpec.option("--user", short: "u", valueName: "index", help: "The user's index, from 0.", required: true)
    static let config = ArgumentSpec.option(
        "--config", short: "c", valueName: "label", help: "The configuration to trace (default: the first one).")

    let path: String?
    let user: Int
    let label: String?
    let overrides: ScenarioOverrides

    init(arguments: ParsedArguments) throws {
        path = try ScenarioFileArgument(arguments).path
        user = try arguments.value(Self.user, expected: "a user index from 0 to \(Scenario.maximumUsers - 1)",
                                   where: { (0..<Scenario.maximumUsers).contains($0) })
        label = try arguments.optionalValue(Self.config)
        overrides = try ScenarioOverrides(arguments)
    }

    func run(context: CommandContext) throws {
        let scenario = try overrides.load(path)
        guard user < scenario.users else {
            throw UsageError("\(Self.user.name): the scenario has \(Text.users(Int64(scenario.users))) (0 to \(scenario.users - 1)), got \(user)")
        }
        // A trace makes no decision: a rule on a day the (shortened) run never reaches is no problem here.
        let model = try ScenarioLoading.compile(scenario, path: path, days: overrides.days, decides: false)
        ScenarioLoading.warn(scenario, path: path, context: context)
        let index: Int
        if let label {
            guard let i = model.configurations.indices.dropFirst().first(where: { model.configurations[$0].spec.label == label }) else {
                // The scenario's labels, the first few: a thousand of them would make a line no one reads.
                let all = model.configurations.dropFirst().map(\.spec.label)
                let shown = 20
                let labels = all.prefix(shown).map { "\"\(MessageText.oneLine($0))\"" }.joined(separator: ", ")
                    + (all.count > shown ? " and \(all.count - shown) more (see the scenario)" : "")
                throw UsageError("\(Self.config.name): no configuration \"\(MessageText.oneLine(label))\"; the scenario has \(labels)")
            }
            index = i
        } else {
            index = 1
        }
        let formatter = TraceText(model: model)
        context.stdout.write(formatter.header(model.trace(user: user, configuration: 0)))
        for i in [index, 0] {
            let trace = model.trace(user: user, configuration: i)
            context.stdout.write("\n" + formatter.timeline(trace))
            if trace.exceededSessionLimit {
                throw ScenarioLoading.sessionLimitError(SessionLimitBreach(user: user, configuration: i), in: model, path: path)
            }
        }
    }
}

/// Writes traces as text in the user's local time.
struct TraceText {
    let model: CompiledModel
    let start: CalendarDate

    init(model: CompiledModel) {
        self.model = model
        start = CalendarDate(iso: model.scenario.startDate)!
    }

    func header(_ t: UserTrace) -> String {
        let segment = model.scenario.population.segments[t.traits.segment]
        var out = "User \(t.user) of scenario \"\(TerminalText.printable(model.scenario.name))\" (seed \(model.scenario.seed))\n"
        let place = model.zoneName(of: t.traits).map { "\($0) (UTC\(offset(t.traits.utcOffsetSeconds)) at the start)" }
            ?? "UTC\(offset(t.traits.utcOffsetSeconds))"
        out += "  segment \"\(TerminalText.printable(segment.name))\", \(place), "
            + "installs \(time(t.traits.install, t.traits))"
        if let platforms = model.scenario.population.platforms {
            let p = platforms[t.traits.platform.platform]
            out += ", platform \"\(TerminalText.printable(p.name))\"" + (p.name == p.platform.rawValue ? "" : " (\(p.platform.rawValue))")
            if let permission = p.permission {
                out += t.traits.platform.grants ? ", allows notifications when asked" : ", refuses notifications when asked"
                out += " (asked at \(permission.ask == .install ? "the install" : "the first launch matching \"\(TerminalText.printable(permission.ask.text))\""))"
            }
        }
        if t.traits.gapMeanSeconds > 0 {
            out += String(format: ", BG/NBD mean gap %.1f days, dropout %.1f%% per repeat session",
                          t.traits.gapMeanSeconds / 86_400, t.traits.repeatDropout * 100)
        }
        return out + "\n"
    }

    func timeline(_ t: UserTrace) -> String {
        let c = model.configurations[t.configurationIndex]
        var out = t.configurationIndex == 0
            ? "Holdout (no reminders)\n"
            : "Configuration \"\(TerminalText.printable(c.spec.label))\" (\(SummaryText.modeText(c.spec)))\n"
        var ran: [String] = [], skipped: [String] = []
        // Under the README wiring the check at a cold launch runs before the app configures the reminder.
        let unconfiguredAtColdLaunch = c.spec.effectiveWiring == .readme
        var coldOpen = false
        func flushCron() {
            guard !ran.isEmpty || !skipped.isEmpty else { return }
            out += "                    cron: block of \(ran.isEmpty ? "none" : ran.joined(separator: ", "))"
                + (skipped.isEmpty ? "" : "; else of \(skipped.joined(separator: ", "))") + "\n"
            ran = []
            skipped = []
        }
        func line(_ at: Double?, _ text: String) {
            flushCron()
            let stamp = at.map { time($0, t.traits) } ?? ""
            out += stamp.padding(toLength: 20, withPad: " ", startingAt: 0) + text + "\n"
        }
        for event in t.events {
            switch event {
            case let .open(at, cause, cold):
                coldOpen = cold
                line(at, "open (\(cause.rawValue)), \(cold ? "cold launch" : "resume")")
            case let .cronRule(index, matched):
                let rule = "\"\(TerminalText.printable(c.spec.cronRules[index].rule))\""
                if matched { ran.append(rule) } else { skipped.append(rule) }
            case let .reviewPrompt(index, shown):
                let rule = "\"\(TerminalText.printable(c.spec.cronRules[index].rule))\""
                line(nil, "cron \(rule) asks for the App Store review prompt: "
                    + (shown ? "shown" : "capped: not shown, already shown 3 times in the last 365 days (an extension)"))
            case let .reminderChecked(r, state):
                let how = coldOpen && unconfiguredAtColdLaunch ? " unconfigured (README wiring)" : ""
                line(nil, "reminder \(r) checked\(how): \(describe(state, r, c))")
            case let .close(at):
                line(at, "close")
            case let .scheduled(r, n, state):
                line(nil, "reminder \(r) scheduled \(notification(n, r, c)) for \(time(n.fireTime, t.traits)); \(describe(state, r, c))")
            case let .ended(r, n, outcome):
                line(outcome == .cancelled || outcome == .censored ? nil : n.fireTime,
                     "reminder \(r): \(notification(n, r, c)) \(outcome.rawValue)")
            case let .moved(r, from, to, shifted, deferred):
                let why = [shifted ? "into the send window" : nil, deferred ? "out of quiet hours" : nil].compactMap { $0 }
                line(nil, "reminder \(r): fire time moved \(why.joined(separator: ", then ")) (an extension), "
                    + "from \(time(from, t.traits)) to \(time(to, t.traits))")
            case let .capped(r, n):
                line(n.fireTime, "reminder \(r): \(notification(n, r, c)) capped: not shown, over the frequency cap (an extension)")
            case let .responseDrawn(_, responds, p, optOut):
                line(nil, String(format: "response chance %.1f%%: ", p * 100) + (responds ? "answers" : "ignores it")
                        + (optOut ? "; turns notifications off" : ""))
            case let .droppedOut(at):
                line(at, "drops out: no more organic returns")
            case let .revived(at):
                line(at, "revived by the notification")
            case let .horizon(at):
                line(at, "end of the simulated horizon")
            case let .permissionAsked(at, granted):
                line(at, "permission prompt shown (platform rule): " + (granted ? "allows notifications" : "refuses them"))
            case let .unpermitted(r, n):
                line(n.fireTime, "reminder \(r): \(notification(n, r, c)) not shown: no notification permission")
            case let .alarmDelayed(r, from, to, dozed):
                let minutes = String(format: "%.1f", (to - from) / 60)
                line(nil, "reminder \(r): the system fires the alarm \(minutes) min late (platform rule"
                    + (dozed ? ", device idle: at its next maintenance window" : ", inexact alarm window") + "), at \(time(to, t.traits))")
            case let .dropped(r, n):
                line(nil, "reminder \(r): \(notification(n, r, c)) discarded by the system: more pending than its limit "
                    + "of \(model.platformPendingLimit(t.traits)) (platform rule)")
            case let .discarded(r, n):
                line(nil, "reminder \(r): \(notification(n, r, c)) dropped: never shown (the engine's own count treats it as fired or cancelled)")
            }
        }
        flushCron()
        if t.omittedEvents > 0 {
            out += "  … \(t.omittedEvents) more events not shown (a trace keeps the first \(TimelineRecorder.maximumEvents))\n"
        }
        let tally = t.tally
        out += "  totals: \(tally[.opens]) opens (\(tally[.responseOpens]) caused by a notification), "
            + "\(tally[.launches]) cold launches, \(tally[.scheduled]) scheduled, \(tally[.delivered]) delivered, "
            + "\(tally[.foreground]) foreground, \(tally[.suppressed]) suppressed, \(tally[.cancelled]) cancelled, "
            + "\(tally[.censored]) censored" + (tally[.capped] > 0 ? ", \(tally[.capped]) capped" : "")
            + (tally[.dropped] > 0 ? ", \(tally[.dropped]) dropped" : "")
            + (tally[.noPermission] > 0 ? " (\(tally[.noPermission]) of the suppressed for want of permission)" : "")
            + reviewPrompts(c, tally) + "\n"
        return out
    }

    /// The review prompts the user's marked rules asked for and those shown, when the configuration marks any.
    func reviewPrompts(_ c: CompiledConfiguration, _ tally: Tally) -> String {
        let marked = c.spec.cronRules.indices.filter { c.spec.cronRules[$0].prompt == .storeReview }
        guard !marked.isEmpty else { return "" }
        let asked = marked.reduce(Int64(0)) { $0 + tally.rule($1, .blockRuns) }
        let shown = marked.reduce(Int64(0)) { $0 + tally.prompt($1, .shown) }
        return ", \(asked) review prompts asked (\(shown) shown)"
    }

    func notification(_ n: PendingNotification, _ r: Int, _ c: CompiledConfiguration) -> String {
        let reminder = c.spec.reminders[r]
        let text = TerminalText.quoted(reminder.messages[n.messageIndex], limit: 32)
        let delay = SlotMetrics.periodText(c.spec.periodValue(reminder: r, index: n.periodIndex), reminder.unit)
        return "message \(n.messageIndex + 1) \(text) (period \(n.periodIndex + 1): \(delay))"
    }

    func describe(_ s: ReminderState, _ r: Int, _ c: CompiledConfiguration) -> String {
        "[period \(s.periodIndex + 1), next message \(s.nextMessageIndex.map { String($0 + 1) } ?? "—"), "
            + "pending \(s.pending == nil ? "none" : "yes"), last check saw a fire: \(s.lastCheckSawFire ? "yes" : "no")]"
    }

    func offset(_ seconds: Double) -> String {
        let hours = seconds / 3_600
        return hours == hours.rounded() ? String(format: "%+d", Int(hours)) : String(format: "%+.1f", hours)
    }

    /// Local date and time of a run time, as `YYYY-MM-DD HH:MM`.
    func time(_ t: Double, _ traits: UserTraits) -> String {
        let local = t + model.utcOffset(of: traits, at: t)
        let day = Int((local / 86_400).rounded(.down))
        let seconds = Int((local - Double(day) * 86_400).rounded(.down))
        return String(format: "%@ %02d:%02d", start.adding(days: day).description, seconds / 3_600, (seconds % 3_600) / 60)
    }
}
