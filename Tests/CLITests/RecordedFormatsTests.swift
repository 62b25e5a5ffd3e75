import Foundation
import ReminderSimTestSupport
import XCTest

/// One set of visits written as CSV, as JSON lines and as the Firebase, Amplitude and Mixpanel exports
/// reads the same in every format: the same `import` summary and the same fit.
final class RecordedFormatsTests: ReminderSimTestCase {
    /// One event of the synthetic log.
    struct Event {
        var user: Int
        var time: Int
        var session: Int
        var name: String
        var offset: Int
    }

    /// 200 users in four time zones, each with its own pace and span of activity over 150 days, sessions
    /// at least an hour apart; each session a `session_start`, a `screen_view` a minute later and, in one
    /// session of three, a `purchase`. Whole seconds, so every timestamp form states the same instant.
    static let events: [Event] = {
        let offsets = [0, 3_600, -18_000, 19_800]
        let end = 1_704_067_200 + 150 * 86_400
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func uniform() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        var events: [Event] = []
        for user in 0..<200 {
            let meanGap = 86_400 * (1 + 12 * uniform())
            let last = min(end, 1_704_067_200 + Int(86_400 * (5 + 160 * uniform())))
            var start = 1_704_067_200 + Int(86_400 * 30 * uniform())
            var session = 0
            while start <= last || session == 0 {
                let e = Event(user: 1_000 + user, time: start, session: start, name: "session_start", offset: offsets[user % 4])
                events.append(e)
                events.append(Event(user: e.user, time: start + 60, session: start, name: "screen_view", offset: e.offset))
                if (user + session) % 3 == 0 {
                    events.append(Event(user: e.user, time: start + 120, session: start, name: "purchase", offset: e.offset))
                }
                start += 3_600 + Int(-meanGap * log(1 - uniform()))
                session += 1
            }
        }
        return events
    }()

    /// `yyyy-MM-ddTHH:mm:ss` of a time in the given offset, with the offset written after it.
    static func iso(_ time: Int, offset: Int, zone: Bool = true, separator: String = "T") -> String {
        let local = time + offset
        let days = Int((Double(local) / 86_400).rounded(.down))
        let rest = local - days * 86_400
        let date = Date(timeIntervalSince1970: Double(days) * 86_400)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        var text = String(format: "%04d-%02d-%02d%@%02d:%02d:%02d", c.year!, c.month!, c.day!, separator,
                          rest / 3_600, rest % 3_600 / 60, rest % 60)
        if zone {
            let sign = offset < 0 ? "-" : "+"
            text += String(format: "%@%02d:%02d", sign, abs(offset) / 3_600, abs(offset) % 3_600 / 60)
        }
        return text
    }

    /// The files, each with the options that read it, in every format.
    func writeEveryFormat() throws -> [(file: String, options: [String])] {
        let events = Self.events
        let csv = "user,time,session,event\n" + events.map {
            "\($0.user),\(Self.iso($0.time, offset: $0.offset)),s\($0.session),\($0.name)\n"
        }.joined()
        try writeFile("visits.csv", csv)

        let jsonl = events.map {
            #"{"who":{"id":\#($0.user)},"at":\#($0.time)000,"s":"\#($0.session)","name":"\#($0.name)","ctx":{"tz":\#($0.offset)}}"# + "\n"
        }.joined()
        try writeFile("visits.jsonl", jsonl)

        let firebase = events.map { e in
            #"{"event_date":"20240101","event_timestamp":"\#(e.time)000000","event_name":"\#(e.name)","# +
            #""event_params":[{"key":"engagement_time_msec","value":{"string_value":null,"int_value":"100","float_value":null,"double_value":null}},"# +
            #"{"key":"ga_session_id","value":{"string_value":null,"int_value":"\#(e.session)","float_value":null,"double_value":null}}],"# +
            #""user_id":null,"user_pseudo_id":"\#(e.user)","device":{"category":"mobile","time_zone_offset_seconds":\#(e.offset)},"platform":"ANDROID"}"# + "\n"
        }.joined()
        try writeFile("firebase.json", firebase)

        func amplitude(_ e: Event) -> String {
            #"{"amplitude_id":\#(e.user),"user_id":null,"event_time":"\#(Self.iso(e.time, offset: 0, zone: false, separator: " ")).000000","# +
            #""event_type":"\#(e.name)","session_id":\#(e.session)000,"event_properties":{},"user_properties":{"utc_offset":\#(e.offset)}}"# + "\n"
        }
        let halves = [events.filter { $0.user % 2 == 0 }, events.filter { $0.user % 2 == 1 }]
        let zip = ExportFixtures.zip(halves.enumerated().map { i, part in
            (name: "123456/123456_2024-01-01_\(i)#0.json.gz", content: ExportFixtures.gzip(part.map(amplitude).joined()))
        })
        try writeFile("amplitude.zip", Data(zip))

        let mixpanel = events.map {
            #"{"event":"\#($0.name)","properties":{"time":\#($0.time),"distinct_id":"\#($0.user)","$insert_id":"i\#($0.time)","utc_offset":\#($0.offset)}}"# + "\n"
        }.joined()
        try writeFile("mixpanel.json", mixpanel)

        let filter = ["--exclude-event", "purchase"]
        return [
            ("visits.csv", ["--user", "user", "--time", "time", "--session", "session", "--event-field", "event"] + filter),
            ("visits.jsonl", ["--format", "jsonl", "--user", "who.id", "--time", "at", "--timestamp", "epochMilliseconds",
                              "--session", "s", "--event-field", "name", "--utc-offset-field", "ctx.tz"] + filter),
            ("firebase.json", ["--format", "firebase"] + filter),
            ("amplitude.zip", ["--format", "amplitude", "--utc-offset-field", "user_properties.utc_offset"] + filter),
            ("mixpanel.json", ["--format", "mixpanel", "--utc-offset-field", "properties.utc_offset"] + filter),
        ]
    }

    /// Output with the file's own name taken out.
    func anonymous(_ text: String, _ names: [String]) -> String {
        names.reduce(text) { $0.replacingOccurrences(of: $1, with: "<file>") }
    }

    func testEveryFormatGivesTheSameImportSummary() throws {
        let formats = try writeEveryFormat()
        var summaries: [String: String] = [:]
        for (file, options) in formats {
            let result = try remindersim(arguments: ["import", file] + options)
            assertExit(result, 0)
            summaries[file] = anonymous(result.stdout, [file])
        }
        let csv = try XCTUnwrap(summaries["visits.csv"])
        assertContains(csv, "users: 200")
        assertContains(csv, "purchase: ")
        assertContains(csv, "(left out)")
        assertContains(csv, "UTC offsets (users, at their earliest event stating one): UTC−5 25.0%, UTC+0 25.0%, UTC+1 25.0%, UTC+5:30 25.0%")
        for (file, summary) in summaries { XCTAssertEqual(summary, csv, "\(file) reads differently from the CSV log") }
    }

    func testEveryFormatGivesTheSameFit() throws {
        let formats = try writeEveryFormat()
        var fits: [String: (stdout: String, customers: String, offsets: String)] = [:]
        for (file, options) in formats {
            let out = "fit-" + file.replacingOccurrences(of: ".", with: "-")
            let result = try remindersim(arguments: ["fit", file, "--out", out] + options)
            assertExit(result, 0)
            let customers = try String(contentsOf: workDirectory.appendingPathComponent(out + "/customers.csv"), encoding: .utf8)
            let segments = try Data(contentsOf: workDirectory.appendingPathComponent(out + "/segments.json"))
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: segments) as? [String: Any])
            let offsets = try JSONSerialization.data(withJSONObject: object["utcOffsets"] ?? [], options: [.sortedKeys])
            // Customers come in the order the log first names them, which the archive's entries change.
            let rows = customers.split(whereSeparator: \.isNewline)
            let sorted = ([rows.first ?? ""] + rows.dropFirst().sorted()).joined(separator: "\n")
            fits[file] = (anonymous(result.stdout, [out, file]), sorted, String(decoding: offsets, as: UTF8.self))
        }
        let csv = try XCTUnwrap(fits["visits.csv"])
        XCTAssertEqual(csv.offsets, #"[{"hours":-5,"weight":0.25},{"hours":0,"weight":0.25},{"hours":1,"weight":0.25},{"hours":5.5,"weight":0.25}]"#)
        for (file, fit) in fits {
            XCTAssertEqual(fit.stdout, csv.stdout, "\(file) fits differently from the CSV log")
            XCTAssertEqual(fit.customers, csv.customers, "\(file) predicts differently from the CSV log")
            XCTAssertEqual(fit.offsets, csv.offsets, file)
        }
    }

    /// The segments a fit writes for an export name its format in full, as a scenario reads it.
    func testFitSegmentsOfAnExportNameItsFormat() throws {
        let formats = try writeEveryFormat()
        let (file, options) = try XCTUnwrap(formats.first { $0.file == "amplitude.zip" })
        assertExit(try remindersim(arguments: ["fit", file, "--out", "fit"] + options), 0)
        let segments = try String(contentsOf: workDirectory.appendingPathComponent("fit/segments.json"), encoding: .utf8)
        assertContains(segments, #""delimiter" : "jsonl""#)
        assertContains(segments, #""excludeEvents" : ["#)
        assertContains(segments, #""utcOffsetField" : "user_properties.utc_offset""#)
    }

    /// A log option takes what a scenario's format takes, no more: a fit never writes segments a
    /// scenario refuses.
    func testLogOptionsKeepToTheScenarioFormatsLimits() throws {
        var lines = ["user,time"]
        for u in 0..<40 { for d in stride(from: 1, to: 60, by: 3 + u % 4) { lines.append("u\(u),\(1_704_067_200 + d * 86_400)") } }
        try writeFile("log.csv", lines.joined(separator: "\n") + "\n")
        for command in [["import"], ["fit", "--out", "o"]] {
            let over = try remindersim(arguments: command + ["log.csv", "--timestamp", "epochSeconds", "--session-gap", "1000001"])
            assertExit(over, 64)
            assertContains(over.stderr, "--session-gap")
            assertContains(over.stderr, "at most 1,000,000")
        }
        assertExit(try remindersim("fit", "log.csv", "--timestamp", "epochSeconds", "--session-gap", "1000000", "--out", "fit"), 0)
        let segments = try String(contentsOf: workDirectory.appendingPathComponent("fit/segments.json"), encoding: .utf8)
        assertContains(segments, #""sessionGapMinutes" : 1000000"#)
    }

    /// A scenario reads the segments and offsets a fit of an export wrote, and names a JSON field given by number.
    func testAScenarioReadsAnExportThroughTheFitsSegments() throws {
        let formats = try writeEveryFormat()
        let (file, options) = try XCTUnwrap(formats.first { $0.file == "firebase.json" })
        assertExit(try remindersim(arguments: ["fit", file, "--out", "fit"] + options), 0)
        let written = try Data(contentsOf: workDirectory.appendingPathComponent("fit/segments.json"))
        let parts = try XCTUnwrap(try JSONSerialization.jsonObject(with: written) as? [String: Any])
        // Wherever the document puts them: every segment that reads the log itself.
        func readingTheLog(_ json: Any) -> [[String: Any]] {
            if let list = json as? [Any] { return list.flatMap(readingTheLog) }
            guard let object = json as? [String: Any] else { return [] }
            if let returns = object["returns"] as? [String: Any] {
                return ["replay", "empirical"].contains(returns["distribution"] as? String) ? [object] : []
            }
            return object.keys.sorted().flatMap { readingTheLog(object[$0] as Any) }
        }
        let segments = readingTheLog(parts)
        XCTAssertEqual(segments.count, 2)
        var scenario = try defaultScenario()
        var population = try XCTUnwrap(scenario["population"] as? [String: Any])
        population["segments"] = segments
        population["utcOffsets"] = parts["utcOffsets"]
        scenario["population"] = population
        try writeFile("scenario.json", try JSONSerialization.data(withJSONObject: scenario))
        let valid = try remindersim("validate", "scenario.json")
        assertExit(valid, 0)

        var replay = segments[0]
        var returns = try XCTUnwrap(replay["returns"] as? [String: Any])
        var format = try XCTUnwrap(returns["format"] as? [String: Any])
        XCTAssertEqual(format["delimiter"] as? String, "jsonl")
        format["user"] = 0
        returns["format"] = format
        replay["returns"] = returns
        population["segments"] = [replay]
        scenario["population"] = population
        try writeFile("numbered.json", try JSONSerialization.data(withJSONObject: scenario))
        let refused = try remindersim("validate", "numbered.json")
        assertExit(refused, 65)
        assertContains(refused.stderr, "format.user: JSON lines name fields by a dotted path")
    }

    /// A problem with an archive entry's header names the entry, as its rows' problems do.
    func testHeaderProblemsNameTheArchiveEntry() throws {
        let zip = ExportFixtures.zip([(name: "first.csv", content: Array("userid\nu1\n".utf8)),
                                      (name: "second.csv", content: Array("user,time\nu2,2024-01-01T00:00:00Z\n".utf8))])
        try writeFile("z.zip", Data(zip))
        let result = try remindersim("import", "z.zip")
        assertExit(result, 65)
        assertContains(result.stderr, "z.zip entry first.csv: column position 1 does not exist, the header has 1 field\n")
    }

    /// The parts of an export each carry the header: read once, skipped in the others. A part whose header
    /// names the columns in another order is refused, naming it, rather than read by the first one's columns.
    /// An outlying row names the part it is in.
    func testEveryPartOfAnArchiveMayCarryItsHeader() throws {
        let part = "user,time\n1001,1767261600\n1001,1767434400\n1002,1767261600\n1002,1767520800\n"
        let options = ["--user", "user", "--time", "time", "--timestamp", "epochSeconds"]
        try writeFile("parts.zip", Data(ExportFixtures.zip([(name: "part1.csv", content: Array(part.utf8)),
                                                             (name: "part2.csv", content: Array(part.replacingOccurrences(of: "100", with: "300").utf8))])))
        let parts = try remindersim(arguments: ["import", "parts.zip"] + options)
        assertExit(parts, 0)
        assertContains(parts.stdout, "users: 4, visits: 8")

        let swapped = "time,user\n1767261600,2001\n1767348000,2001\n"
        try writeFile("swap.zip", Data(ExportFixtures.zip([(name: "part1.csv", content: Array(part.utf8)),
                                                            (name: "part2.csv", content: Array(swapped.utf8))])))
        for extra in [[], ["--skip-bad-rows"]] {
            let swap = try remindersim(arguments: ["import", "swap.zip"] + options + extra)
            assertExit(swap, 65)
            assertContains(swap.stderr, "swap.zip entry part2.csv:1: header 'time,user' is not the first entry's, 'user,time'")
        }

        // 1975 is an outlier: its line is named with its entry.
        let old = "user,time\n3001,1767261600\n3001,157766400\n"
        try writeFile("old.zip", Data(ExportFixtures.zip([(name: "part1.csv", content: Array(part.utf8)),
                                                           (name: "part2.csv", content: Array(old.utf8))])))
        let outlying = try remindersim(arguments: ["import", "old.zip"] + options)
        assertExit(outlying, 0)
        assertContains(outlying.stderr + outlying.stdout, "old.zip entry part2.csv:3")
    }

    /// A gzip file inside a deflated entry is compressed twice: a few kilobytes can hold gigabytes. Past 64 MiB
    /// and 2,000 times its compressed size an entry is refused as a bomb (65, naming it) instead of read for minutes.
    func testANestedDecompressionBombIsRefused() throws {
        let line = Array("u1,2026-01-01T10:00:00Z\n".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(70_000_000)
        while text.count < 70_000_000 { text += line }
        let bomb = ExportFixtures.zip([(name: "p0.csv.gz", content: ExportFixtures.deflate(text, gzip: true))])
        XCTAssertLessThan(bomb.count, 70_000_000 / 2_000, "a bomb: far smaller than what it holds")
        try writeFile("bomb.zip", Data(bomb))
        let started = Date()
        let result = try remindersim("import", "bomb.zip", "--no-header")
        assertExit(result, 65)
        assertContains(result.stderr, "bomb.zip entry p0.csv.gz: cannot decompress: it expands more than 2000-fold, past 64 MiB")
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
        // The same log gzipped once, as exports ship it, expands far less than 2,000-fold and is read.
        let small = Array(text.prefix(line.count * 1_000))
        try writeFile("fine.zip", Data(ExportFixtures.zip([(name: "p0.csv.gz", content: ExportFixtures.deflate(small, gzip: true))])))
        assertExit(try remindersim("import", "fine.zip", "--no-header"), 0)
    }
}
