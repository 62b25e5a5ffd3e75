import RecordedData

/// What a past live test saw, per arm: the moments `calibrate` fits the response model to.
public struct ExperimentResults: Sendable, Equatable {
    /// One arm of the test: a reminder configuration or the holdout.
    public struct Arm: Sendable, Equatable {
        /// A configuration label of the scenario, or `holdout`.
        public var label: String
        public var users: Int
        public var delivered: Int
        public var opens: Int
        public var optOuts: Int
        public var retainedD7: Int?
        public var retainedD30: Int?
        public var attributed: Int?
        /// The arm's share of the test's users as planned (any positive scale: shares are compared
        /// after dividing by their sum); nil when the file does not say.
        public var plannedShare: Double?
        /// The line of the results file the arm came from (0 for arms built in code).
        public var line: Int

        public init(label: String, users: Int, delivered: Int, opens: Int, optOuts: Int, retainedD7: Int? = nil,
                    retainedD30: Int? = nil, attributed: Int? = nil, plannedShare: Double? = nil, line: Int = 0) {
            self.label = label
            self.users = users
            self.delivered = delivered
            self.opens = opens
            self.optOuts = optOuts
            self.retainedD7 = retainedD7
            self.retainedD30 = retainedD30
            self.attributed = attributed
            self.plannedShare = plannedShare
            self.line = line
        }
    }

    public var arms: [Arm]

    public init(arms: [Arm]) { self.arms = arms }

    static let required = ["arm", "users", "delivered", "opens", "opt_outs"]
    /// The largest count a results file may give, and the most users its arms may add up to: 2^53 − 1,
    /// the largest whole number every step of a readout keeps exactly.
    public static let maximumCount = (1 << 53) - 1
    static let optional = ["retained_d7", "retained_d30", "attributed", "planned_share"]

    /// One line's fields as RFC 4180 has them: separated by commas, blanks around a field dropped, a
    /// field in double quotes holding commas and doubled quotes as its text. Fails, with the reason,
    /// on a quote left open (a line break inside a quoted field is not read) or text after a closing
    /// quote.
    static func splitFields(_ line: Substring) -> Result<[String], SplitFailure> {
        func isBlank(_ c: Character) -> Bool { c == " " || c == "\t" }
        var fields: [String] = []
        var i = line.startIndex
        while true {
            var j = i
            while j < line.endIndex, isBlank(line[j]) { j = line.index(after: j) }
            if j < line.endIndex, line[j] == "\"" {
                var text = "", k = line.index(after: j), closed = false
                while k < line.endIndex {
                    if line[k] == "\"" {
                        let n = line.index(after: k)
                        if n < line.endIndex, line[n] == "\"" {
                            text.append("\"")
                            k = line.index(after: n)
                            continue
                        }
                        (closed, k) = (true, n)
                        break
                    }
                    text.append(line[k])
                    k = line.index(after: k)
                }
                guard closed else {
                    return .failure(SplitFailure("field \(fields.count + 1): its quote is not closed before the end of the file"))
                }
                while k < line.endIndex, isBlank(line[k]) { k = line.index(after: k) }
                fields.append(text)
                guard k < line.endIndex else { return .success(fields) }
                guard line[k] == "," else {
                    return .failure(SplitFailure("field \(fields.count): text after its closing quote"))
                }
                i = line.index(after: k)
            } else {
                let comma = line[i...].firstIndex(of: ",") ?? line.endIndex
                fields.append(String(line[i..<comma].trimmingBlanks()))
                guard comma < line.endIndex else { return .success(fields) }
                i = line.index(after: comma)
            }
        }
    }

    /// Why a line's fields cannot be read.
    struct SplitFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Reads a results file: a header naming at least `arm, users, delivered, opens, opt_outs` (and optionally
    /// `retained_d7, retained_d30, attributed`, and the arm's `planned_share` of the users), then one row
    /// per arm. Fields are separated by commas; a field may be in double quotes. An empty optional count
    /// means "not measured" for that arm.
    ///
    /// - Throws: `ResultsError` naming the file, line, column and reason of the first problem.
    public static func parse(_ text: String, file: String) throws(ResultsError) -> ExperimentResults {
        func fail(_ line: Int, _ column: String?, _ reason: String) -> ResultsError {
            ResultsError(file: file, line: line, column: column, reason: reason)
        }
        var header: [String]?
        var position: [String: Int] = [:]
        var arms: [Arm] = []
        var lineNumber = 0
        // "\r\n" is one Character, so lines are split on any newline Character.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        var next = 0
        while next < lines.count {
            // One record: a line, and the lines after it while a quoted field is open (an odd number of
            // quotes so far), joined by newlines as RFC 4180 allows; it is named by its first line.
            // The quotes are counted line by line, each once: a quote left open is found in one pass.
            func oddQuotes(_ line: Substring) -> Bool { line.utf8.lazy.filter { $0 == UInt8(ascii: "\"") }.count % 2 == 1 }
            var record = String(lines[next])
            var open = oddQuotes(lines[next])
            next += 1
            lineNumber = next
            while open && next < lines.count {
                record += "\n" + lines[next]
                open = open != oddQuotes(lines[next])
                next += 1
            }
            var line = Substring(record)
            if line.hasSuffix("\r") { line = line.dropLast() }
            if lineNumber == 1, line.hasPrefix("\u{FEFF}") { line = line.dropFirst() }
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            let fields: [String]
            switch splitFields(line) {
            case let .success(f): fields = f
            case let .failure(reason): throw fail(lineNumber, nil, reason.description)
            }
            guard let names = header else {
                header = fields
                for (i, name) in fields.enumerated() {
                    guard required.contains(name) || optional.contains(name) else {
                        throw fail(lineNumber, "\(i + 1)", "unknown column \(Excerpt.quoted(name)); expected "
                            + (required + optional).joined(separator: ", "))
                    }
                    guard position[name] == nil else { throw fail(lineNumber, "\(i + 1)", "column \(name) appears twice") }
                    position[name] = i
                }
                for name in required where position[name] == nil {
                    throw fail(lineNumber, nil, "the header lacks the column \(name) (required: \(required.joined(separator: ", ")))")
                }
                continue
            }
            guard fields.count == names.count else {
                throw fail(lineNumber, nil, "expected \(names.count) fields as in the header, found \(fields.count)")
            }
            func column(_ name: String) -> String { "\(position[name]! + 1) (\(name))" }
            func count(_ name: String) throws(ResultsError) -> Int? {
                guard let p = position[name] else { return nil }
                let text = fields[p]
                if text.isEmpty {
                    if required.contains(name) { throw fail(lineNumber, column(name), "is empty") }
                    return nil
                }
                guard let value = Int(text), value >= 0, value <= maximumCount else {
                    throw fail(lineNumber, column(name), "expected a whole number from 0 to \(maximumCount), got \(Excerpt.quoted(text))")
                }
                return value
            }
            /// The planned share: a positive number in every row when the column is there.
            func share() throws(ResultsError) -> Double? {
                guard let p = position["planned_share"] else { return nil }
                let text = fields[p]
                guard text.unicodeScalars.allSatisfy({ "0123456789.eE+-".unicodeScalars.contains($0) }),
                      let value = Double(text), value.isFinite, value > 0 else {
                    throw fail(lineNumber, column("planned_share"), text.isEmpty
                        ? "is empty: give every arm its planned share, or leave the column out"
                        : "expected a number > 0, got \(Excerpt.quoted(text))")
                }
                return value
            }
            let label = fields[position["arm"]!]
            guard !label.isEmpty else { throw fail(lineNumber, column("arm"), "is empty") }
            if let other = arms.first(where: { $0.label == label }) {
                throw fail(lineNumber, column("arm"), "arm \(Excerpt.quoted(label)) is already on line \(other.line)")
            }
            let users = try count("users")!
            guard users > 0 else { throw fail(lineNumber, column("users"), "must be > 0") }
            let arm = Arm(
                label: label, users: users, delivered: try count("delivered")!, opens: try count("opens")!,
                optOuts: try count("opt_outs")!, retainedD7: try count("retained_d7"),
                retainedD30: try count("retained_d30"), attributed: try count("attributed"),
                plannedShare: try share(), line: lineNumber)
            for (name, value) in [("opt_outs", arm.optOuts), ("retained_d7", arm.retainedD7 ?? 0),
                                  ("retained_d30", arm.retainedD30 ?? 0)] where value > users {
                throw fail(lineNumber, column(name), "\(value) is more than the arm's \(users) users")
            }
            // An attributed open is one of the arm's opens.
            if let attributed = arm.attributed, attributed > arm.opens {
                throw fail(lineNumber, column("attributed"), "\(attributed) is more than the arm's \(arm.opens) opens")
            }
            arms.append(arm)
            guard arms.reduce(0, { $0 + $1.users }) <= maximumCount else {
                throw fail(lineNumber, column("users"), "the arms' users add up to more than \(maximumCount)")
            }
        }
        guard header != nil else { throw fail(1, nil, "the file is empty: expected a header and one row per arm") }
        guard !arms.isEmpty else { throw fail(lineNumber, nil, "no arms: expected one row per arm after the header") }
        return ExperimentResults(arms: arms)
    }
}

/// A problem in a results file, with where it is.
public struct ResultsError: Error, Sendable, Equatable, CustomStringConvertible {
    public let file: String
    public let line: Int
    /// 1-based column number and name, when the problem is in one field.
    public let column: String?
    public let reason: String

    public var description: String {
        "\(file):\(line)" + (column.map { ": column \($0)" } ?? "") + ": \(reason)"
    }
}

extension Substring {
    fileprivate func trimmingBlanks() -> String {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
