import Foundation

extension RecordedLog {
    /// The longest line a log may hold, in bytes, its line break not counted. A longer line, or a
    /// stream with no line break at all such as /dev/zero, is refused once this much of it is read.
    public static let maximumLineBytes = 16 << 20

    /// Reads a visit log from disk in 1 MiB chunks; memory grows with users and visits, not rows.
    ///
    /// Rows may come in any order, within and across users.
    /// Throws `ImportIssue` for the first bad row under `.stop`, `ImportError` for file-level problems.
    /// Rows with a time after `observationEnd` are bad rows. Blank lines are ignored but still counted
    /// in line numbers.
    /// A gzip-compressed file (told by its first bytes, whatever its name) is decompressed as it is read;
    /// so is a ZIP archive, whose entries (each plain or gzip-compressed) are read one after another as
    /// parts of one log, their lines counted from 1 in each and their problems naming the entry.
    /// Problems name the file `name` when given (standard input read as /dev/stdin), its path otherwise.
    public static func read(
        file path: String,
        name: String? = nil,
        format: LogFormat,
        observationEnd: Double? = nil,
        onBadRow: BadRowPolicy = .stop,
        outliers: OutlierPolicy = .exclude
    ) throws -> RecordedLog {
        do {
            return try read(file: path, format: format, observationEnd: observationEnd, onBadRow: onBadRow, outliers: outliers,
                            chunkSize: 1 << 20)
        } catch let error as ImportError {
            throw name.map { error.naming(path, as: $0) } ?? error
        } catch let issue as ImportIssue {
            throw name.map { issue.naming(path, as: $0) } ?? issue
        }
    }

    /// Whether standard input is a regular file not yet read from: one that can be opened again by
    /// its path and read whole, as a file named on the command line is.
    static func standardInputIsAWholeFile() -> Bool {
        var status = stat()
        return fstat(STDIN_FILENO, &status) == 0 && status.st_mode & S_IFMT == S_IFREG && lseek(STDIN_FILENO, 0, SEEK_CUR) == 0
    }

    static func read(
        file path: String, format: LogFormat, observationEnd: Double?, onBadRow: BadRowPolicy,
        outliers: OutlierPolicy = .exclude, chunkSize: Int, lineLimit: Int = maximumLineBytes
    ) throws -> RecordedLog {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ImportError.cannotRead(file: path, reason: "is a directory, not a log file")
        }
        var importer = try LogImporter(
            format: format, file: path, observationEnd: observationEnd, policy: onBadRow, outliers: outliers)
        importer.lineLimit = lineLimit
        // A pipe or a terminal can be read once only: the bytes that tell gzip and ZIP apart cannot be
        // looked at first and read again, so zlib reads it, passing plain text through as it is.
        // Standard input is read from its descriptor, where it stands, unless it is a whole file.
        let fromStandardInput = path == "/dev/stdin" && !standardInputIsAWholeFile()
        if fromStandardInput || !isRegularFile(path) {
            var reader = fromStandardInput ? try GzipReader(descriptor: STDIN_FILENO, path: path) : try GzipReader(path: path)
            defer { reader.close() }
            try feed(&reader, to: &importer, chunkSize: chunkSize) { first in
                guard first.starts(with: [0x50, 0x4B, 0x03, 0x04]) else { return }
                throw ImportError.cannotRead(
                    file: path, reason: "a ZIP archive is read from its directory at its end, which a pipe cannot reach; "
                        + "save it to a file and read that")
            }
            return try importer.finish()
        }
        if ZipArchive.isArchive(path) {
            let archive = try ZipArchive(path: path)
            defer { archive.close() }
            for entry in archive.entries where !entry.name.hasSuffix("/") {
                try importer.beginEntry(entry.name)
                try archive.read(entry, chunkSize: chunkSize) { try importer.feed($0) }
            }
            return try importer.finish()
        }
        if try GzipReader.isCompressed(path) {
            var reader = try GzipReader(path: path)
            defer { reader.close() }
            try feed(&reader, to: &importer, chunkSize: chunkSize) { _ in }
            return try importer.finish()
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        } catch {
            throw ImportError.cannotRead(file: path, reason: systemReason(error))
        }
        defer { try? handle.close() }
        while true {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: chunkSize)
            } catch {
                throw ImportError.cannotRead(file: path, reason: systemReason(error))
            }
            guard let chunk, !chunk.isEmpty else { break }
            try chunk.withUnsafeBytes { try importer.feed($0) }
        }
        return try importer.finish()
    }

    /// Feeds everything `reader` gives to `importer`; `check` sees the first chunk before it is fed.
    private static func feed(
        _ reader: inout GzipReader, to importer: inout LogImporter, chunkSize: Int, check: ([UInt8]) throws -> Void
    ) throws {
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var first = true
        while true {
            let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
            if count == 0 { break }
            if first { try check(Array(buffer[..<min(count, 4)])) }
            first = false
            try buffer.withUnsafeBytes { try importer.feed(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
    }

    /// Whether `path` (followed through links) is a regular file; a pipe, a terminal or a socket is not.
    /// A path that cannot be looked at counts as one, and the reader says why it cannot be read.
    private static func isRegularFile(_ path: String) -> Bool {
        var target = stat()
        guard stat(path, &target) == 0 else { return true }
        return target.st_mode & S_IFMT == S_IFREG
    }

    /// Reads a visit log held in memory, with the same rules as `read(file:…)`; `name` appears in messages.
    public static func parse(
        _ text: String,
        format: LogFormat,
        observationEnd: Double? = nil,
        onBadRow: BadRowPolicy = .stop,
        outliers: OutlierPolicy = .exclude,
        name: String = "<text>"
    ) throws -> RecordedLog {
        var importer = try LogImporter(
            format: format, file: name, observationEnd: observationEnd, policy: onBadRow, outliers: outliers)
        var bytes = Array(text.utf8)
        try bytes.withUnsafeMutableBytes { try importer.feed(UnsafeRawBufferPointer($0)) }
        return try importer.finish()
    }
}

/// Why a user id cannot be used.
private struct BadUserID: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// The streaming state of one import: line assembly, column lookup, and per-user visit accumulation.
struct LogImporter {
    private static let maxIssueExamples = 10

    private let format: LogFormat
    private let file: String
    private let observationEnd: Double?
    private let policy: BadRowPolicy
    private let parser: TimestampParser
    private let rule: VisitRule
    private var splitter: FieldSplitter

    private var userField = 0, timeField = 0
    private var sessionField: Int?, typeField: Int?, offsetField: Int?
    /// The reader of a JSON-lines log, whose columns are the paths it looks for.
    private var json: JSONLineReader?
    /// Where each part of an event is in a JSON line: the index of its path in `json`.
    private var jsonSlots = EventSlots(user: 0, time: 1)
    /// What row issues name as their file: the file, or the archive entry being read.
    private var place: String
    private var expectedFields: Int?
    private var minimumFields = 0
    private var headerNames: [String] = []
    /// Whether the first non-blank line is still to come, and so may be a header.
    private var firstLinePending = true
    /// Set at each archive entry after the first when the first had a header: the entry's first line is
    /// that header again (skipped), other columns (refused), or data.
    private var entryHeaderPending = false
    /// The places of the archive entries read so far (the file alone for a plain file): what outlying rows,
    /// found at the end, name.
    private var entryPlaces: [String] = []
    /// The first line's fields when it was read as a header.
    private var headerLine: [String]?
    /// The layout the first row chose, when the format has several.
    private var layout: LogFormat.Layout?
    /// Set until the first row has chosen one of the format's layouts.
    private var layoutPending: Bool
    private let outlierPolicy: OutlierPolicy
    private var extremes = ExtremeEvents()

    private var carry: [UInt8] = []
    private var lineNumber = 0
    /// The longest line accepted, in bytes: `RecordedLog.maximumLineBytes` but in tests.
    var lineLimit = RecordedLog.maximumLineBytes
    /// Whether any line feed was read: without one, a carriage return inside the text means the
    /// file's lines end in CR only.
    private var sawLineFeed = false
    /// Whether line 1 holds a carriage return before its end.
    private var firstLineHasCR = false
    private var sawContent = false

    private var rows = 0, events = 0, duplicates = 0, skipped = 0, filtered = 0
    private var issues: [ImportIssue] = []
    private var lastEvent = -Double.infinity

    private var userTable = UserTable()
    /// Per user, the offset from UTC of its earliest event that states one (`Int32.min`: none yet).
    private var userOffsets: [(time: Double, offset: Int32)] = []
    /// Whether events can state their offset from UTC: by the timestamp or by a column.
    private let tracksOffsets: Bool
    private var eventTypes = EventTypeTally()
    private var accumulators: [VisitAccumulator] = []
    /// Per user, session id → (first, last) event time; only used with a session column.
    private var sessions: [[String: (Double, Double)]] = []

    init(
        format: LogFormat, file: String, observationEnd: Double?, policy: BadRowPolicy, outliers: OutlierPolicy = .exclude
    ) throws(ImportError) {
        self.format = format
        outlierPolicy = outliers
        layoutPending = format.layouts != nil
        self.file = file
        place = file
        self.observationEnd = observationEnd
        self.policy = policy
        parser = try TimestampParser(format.timestamp, defaultUTCOffsetSeconds: format.defaultUTCOffsetSeconds)
        splitter = try FieldSplitter(format.delimiter)
        guard format.sessionGapMinutes >= 0, format.sessionGapMinutes.isFinite else {
            throw .invalidFormat("sessionGapMinutes must be a finite number ≥ 0, got \(format.sessionGapMinutes)")
        }
        rule = format.visitsByCalendarDay
            ? .calendarDay(offset: Double(format.defaultUTCOffsetSeconds))
            : .gap(format.sessionGapMinutes * 60)
        tracksOffsets = format.utcOffsetColumn != nil || parser.carriesZones
        if format.delimiter == .jsonLines {
            try resolvePaths()
        } else if format.hasHeader == false || (format.hasHeader == nil && !namesAColumn) {
            try resolveColumns(header: nil)
        }
    }

    /// The paths a JSON-lines log names its columns by; positions mean nothing there.
    private mutating func resolvePaths() throws(ImportError) {
        var paths: [String] = []
        func path(_ column: LogFormat.Column, _ role: String) throws(ImportError) -> Int {
            guard case let .name(name) = column, !name.isEmpty else {
                throw .invalidFormat("JSON lines name the \(role) field by a dotted path such as properties.distinct_id, not by position")
            }
            paths.append(name)
            return paths.count - 1
        }
        let user = try path(format.userColumn, "user"), time = try path(format.timeColumn, "time")
        jsonSlots = EventSlots(
            user: user, time: time,
            session: try format.sessionColumn.map { (c) throws(ImportError) in try path(c, "session") },
            eventType: try format.eventTypeColumn.map { (c) throws(ImportError) in try path(c, "event") },
            utcOffset: try format.utcOffsetColumn.map { (c) throws(ImportError) in try path(c, "UTC offset") })
        json = JSONLineReader(paths: paths)
        headerNames = paths
        firstLinePending = false
    }

    /// Row issues from now on name `entry` of the archive being read, counting its lines from 1.
    mutating func beginEntry(_ entry: String) throws {
        try endOfEntry()
        place = "\(file) entry \(Excerpt.name(entry, limit: 200))"
        lineNumber = 0
        entryHeaderPending = headerLine != nil && json == nil
        entryPlaces.append(place)
    }

    /// Reads the line left without a line break at the end of an archive entry.
    mutating func endOfEntry() throws {
        guard !carry.isEmpty else { return }
        let line = carry
        carry = []
        try line.withUnsafeBufferPointer { try processLine($0) }
    }

    private mutating func resolveColumns(header: [String]?) throws(ImportError) {
        func position(_ column: LogFormat.Column) throws(ImportError) -> Int {
            switch column {
            case .position(let p):
                guard p >= 0 else { throw .invalidFormat("column position \(p) is negative") }
                // As a scenario's format allows: no log has more columns, and the count after it stays small.
                guard p <= 10_000 else { throw .invalidFormat("column position \(p) is beyond 10000, the last a log may use") }
                if let header, p >= header.count {
                    throw .columnOutOfRange(file: place, position: p, fieldCount: header.count)
                }
                return p
            case .name(let name):
                guard let header else {
                    throw .invalidFormat("column '\(name)' is chosen by name but the format has no header")
                }
                let wanted = name.trimmingCharacters(in: .whitespaces)
                // Named twice in the header, a name does not say which column it means.
                func only(_ matches: [Int]) throws(ImportError) -> Int? {
                    guard matches.count > 1 else { return matches.first }
                    throw .ambiguousColumn(file: place, name: name, positions: matches)
                }
                if let p = try only(header.indices.filter { header[$0] == wanted }) { return p }
                if let p = try only(header.indices.filter { header[$0].caseInsensitiveCompare(wanted) == .orderedSame }) { return p }
                throw .missingColumn(file: place, name: name, header: header)
            }
        }
        userField = try position(format.userColumn)
        timeField = try position(format.timeColumn)
        sessionField = try format.sessionColumn.map { (c) throws(ImportError) in try position(c) }
        typeField = try format.eventTypeColumn.map { (c) throws(ImportError) in try position(c) }
        offsetField = try format.utcOffsetColumn.map { (c) throws(ImportError) in try position(c) }
        // Each role reads a column of its own: a name and a position (or two spellings of a name) can
        // only be found to be one column here, once the header is read. The user read as the time is no log.
        let roles: [(String, Int?)] = [("user", userField), ("time", timeField), ("session", sessionField),
                                       ("event type", typeField), ("UTC offset", offsetField)]
        for (k, (role, field)) in roles.enumerated() {
            guard let field, let (other, _) = roles[..<k].first(where: { $0.1 == field }) else { continue }
            let column = header.map { field < $0.count ? "\(Excerpt.quoted($0[field])) (position \(field))" : "position \(field)" }
                ?? "position \(field)"
            throw .invalidFormat("the \(other) column and the \(role) column are both \(column) of \(place); each needs a column of its own")
        }
        expectedFields = format.layouts == nil ? header?.count : nil
        minimumFields = max(userField, timeField, sessionField ?? 0, typeField ?? 0, offsetField ?? 0) + 1
        headerNames = header ?? []
    }

    /// Whether a column is chosen by name, which needs a header line.
    private var namesAColumn: Bool {
        [format.userColumn, format.timeColumn, format.sessionColumn, format.eventTypeColumn, format.utcOffsetColumn].contains {
            if case .name = $0 { return true } else { return false }
        }
    }

    /// Picks the layout whose field count is `count`; false when none has it.
    private mutating func chooseLayout(fieldCount count: Int) -> Bool {
        guard let layouts = format.layouts else { return true }
        guard let chosen = layouts.first(where: { $0.fieldCount == count }) else { return false }
        layout = chosen
        layoutPending = false
        timeField = chosen.timeColumn
        expectedFields = count
        minimumFields = max(minimumFields, timeField + 1)
        return true
    }

    /// Whether the split line reads as a data row: enough fields, a user id and a readable time.
    private func readsAsData(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = splitter.count
        var time = timeField
        if let layouts = format.layouts {
            guard let chosen = layouts.first(where: { $0.fieldCount == count }) else { return false }
            time = chosen.timeColumn
        }
        guard count >= max(minimumFields, time + 1) else { return false }
        let fields = splitter.fields
        let hasUser = FieldSplitter.withContent(of: fields[userField], in: line) { !$0.isEmpty }
        return hasUser && FieldSplitter.withContent(of: fields[time], in: line) { parser.parse($0) } != nil
    }

    private func label(_ field: Int) -> String {
        if json != nil || format.delimiter == .jsonLines {
            return field < headerNames.count ? Excerpt.name(headerNames[field]) : "position \(field)"
        }
        return field < headerNames.count ? "\(Excerpt.name(headerNames[field])) (position \(field))" : "position \(field)"
    }

    /// Reads the lines of the next bytes of the log; a line cut at the end waits for the next call.
    mutating func feed(_ raw: UnsafeRawBufferPointer) throws {
        do {
            try feedLines(raw.assumingMemoryBound(to: UInt8.self))
        } catch {
            throw explained(error)
        }
    }

    private mutating func feedLines(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        let newline = UInt8(ascii: "\n")
        var position = 0
        if !carry.isEmpty {
            guard let end = bytes.firstIndex(of: newline) else {
                try checkLength(carry.count + bytes.count, bytes[...])
                carry.append(contentsOf: bytes)
                return
            }
            try checkLength(carry.count + end, bytes[..<end])
            sawLineFeed = true
            carry.append(contentsOf: bytes[..<end])
            var line: [UInt8] = []
            swap(&line, &carry)  // the line must not alias `self` while it is processed
            try line.withUnsafeBufferPointer { try processLine($0) }
            swap(&line, &carry)
            carry.removeAll(keepingCapacity: true)
            position = end + 1
        }
        while position < bytes.count {
            var end = position
            while end < bytes.count, bytes[end] != newline { end += 1 }
            guard end < bytes.count else { break }
            try checkLength(end - position, bytes[position..<end])
            sawLineFeed = true
            try processLine(UnsafeBufferPointer(rebasing: bytes[position..<end]))
            position = end + 1
        }
        try checkLength(bytes.count - position, bytes[position...])
        carry.append(contentsOf: bytes[position...])
    }

    /// Refuses the line being read once it is `length` bytes long, more than `lineLimit`, before it is
    /// held whole; `latest` is its part just read, searched (with what is held) for a carriage return.
    private func checkLength(_ length: Int, _ latest: Slice<UnsafeBufferPointer<UInt8>>) throws {
        guard length > lineLimit else { return }
        let cr = UInt8(ascii: "\r")
        if !sawLineFeed, carry.contains(cr) || latest.contains(cr) {
            throw ImportError.carriageReturnLines(file: file)
        }
        throw ImportIssue(line: lineNumber + 1, reason: "line longer than \(Self.size(lineLimit)) (the limit for one line)",
                          file: place)
    }

    /// A size in bytes as limits are stated: whole MiB when it is one.
    static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }

    /// `error`, or the reason behind it when the file's lines end in CR only: such a file reads as one
    /// line, and whatever is wrong with that line says nothing useful.
    private func explained(_ error: any Error) -> any Error {
        guard !sawLineFeed, firstLineHasCR, error is ImportIssue || error is ImportError else { return error }
        if case ImportError.cannotRead? = error as? ImportError { return error }
        return ImportError.carriageReturnLines(file: file)
    }

    /// Reads the last line, then hands over the log; the problem of a file as a whole is thrown here.
    mutating func finish() throws -> RecordedLog {
        do {
            return try finishLines()
        } catch {
            throw explained(error)
        }
    }

    private mutating func finishLines() throws -> RecordedLog {
        if !carry.isEmpty {
            let line = carry
            carry = []
            try line.withUnsafeBufferPointer { try processLine($0) }
        }
        guard sawContent else { throw ImportError.emptyFile(file: file, jsonLines: json != nil || format.delimiter == .jsonLines) }
        guard events > 0 else {
            throw ImportError.noEvents(file: file, rows: rows, skipped: skipped, filtered: filtered)
        }
        var users: [UserVisits] = []
        users.reserveCapacity(userTable.count)
        var offsets: [Int32] = []
        for u in 0..<userTable.count {
            if tracksOffsets { offsets.append(userOffsets[u].offset) }
            let visits: [Double]
            if format.sessionColumn != nil {
                visits = sessions[u].values.map(\.0).sorted()
                sessions[u] = [:]
            } else {
                let found = accumulators[u].finish(rule: rule)
                visits = found.visits
                duplicates += found.duplicates
            }
            users.append(UserVisits(id: userTable.id(u), visits: visits))
        }
        var outliers: OutlierReport?
        let bounds = OutlierReport.bounds(of: users)
        let outlying = users.reduce(0) { $0 + $1.visits.filter { !bounds.contains($0) }.count }
        if outlying > 0 {
            let rows = extremes.beyond(bounds).map { event in
                ImportIssue(line: event.line, reason: "timestamp \(CivilTime.isoString(event.time)) is an outlier",
                            file: entryPlaces.indices.contains(event.entry) ? entryPlaces[event.entry] : file,
                            column: label(json != nil ? jsonSlots.time : timeField))
            }
            outliers = OutlierReport(bounds: bounds, visits: outlying, examples: rows, excluded: outlierPolicy == .exclude)
            if outlierPolicy == .exclude {
                var keptOffsets: [Int32] = []
                users = users.enumerated().compactMap { u, user in
                    let kept = user.visits.filter { bounds.contains($0) }
                    if !kept.isEmpty, tracksOffsets { keptOffsets.append(offsets[u]) }
                    return kept.isEmpty ? nil : UserVisits(id: user.id, visits: kept)
                }
                offsets = keptOffsets
                if users.isEmpty { throw ImportError.onlyOutliers(file: file, visits: outlying, bounds: bounds) }
                lastEvent = extremes.latest(within: bounds) ?? users.compactMap(\.visits.last).max() ?? lastEvent
            }
        }
        guard !users.isEmpty else {
            throw ImportError.noEvents(file: file, rows: rows, skipped: skipped, filtered: filtered)
        }
        return RecordedLog(
            users: users, observationEnd: observationEnd ?? lastEvent,
            rows: rows, events: events, duplicates: duplicates, skipped: skipped,
            filtered: filtered, issues: issues, lastEvent: lastEvent, headerLine: headerLine,
            layout: layout?.name, outliers: outliers, utcOffsets: UTCOffsetTally(offsets),
            eventTypes: eventTypes.counts(kept: keeps), otherEventTypes: eventTypes.others,
            calendarDayOffset: format.sessionColumn == nil && format.visitsByCalendarDay ? format.defaultUTCOffsetSeconds : nil)
    }

    private mutating func processLine(_ raw: UnsafeBufferPointer<UInt8>) throws {
        lineNumber += 1
        var line = raw
        if let last = line.last, last == UInt8(ascii: "\r") {
            line = UnsafeBufferPointer(rebasing: line.dropLast())
        }
        if lineNumber == 1 { firstLineHasCR = line.contains(UInt8(ascii: "\r")) }
        if lineNumber == 1, line.starts(with: [0xEF, 0xBB, 0xBF]) {
            line = UnsafeBufferPointer(rebasing: line.dropFirst(3))
        }
        // UTF-16 and UTF-32 (with a byte order mark, or ASCII text with NULs beside every letter)
        // read as fields full of NULs: said once, as what they are.
        if lineNumber == 1, line.starts(with: [0xFF, 0xFE, 0x00, 0x00]) || line.starts(with: [0x00, 0x00, 0xFE, 0xFF])
            || (line.count >= 8 && (line[1] == 0 && line[2] == 0 && line[5] == 0 && line[6] == 0)
                && (line[0] != 0) != (line[3] != 0)) {
            throw ImportError.utf32(file: place)
        }
        if lineNumber == 1, line.starts(with: [0xFF, 0xFE]) || line.starts(with: [0xFE, 0xFF])
            || (line.count >= 4 && (line[0] == 0) != (line[1] == 0) && (line[2] == 0) != (line[3] == 0)
                && (line[0] == 0) == (line[2] == 0)) {
            throw ImportError.utf16(file: place)
        }
        guard line.contains(where: { !isBlank($0) }) else { return }
        sawContent = true
        if firstLinePending {
            firstLinePending = false
            if try takeHeader(line) { return }
        }
        if entryHeaderPending {
            entryHeaderPending = false
            if try repeatsHeader(line) { return }
        }
        rows += 1
        if json != nil { return try processJSON(line) }
        // Quoted fields never span lines in a log: a quote left open makes its own row bad, and the
        // next line is a row of its own (else one stray quote would swallow the rest of the file).
        if let failure = splitter.split(line) { return try reject(failure.reason) }
        let count = splitter.count
        if layoutPending {
            guard chooseLayout(fieldCount: count) else {
                let counts = format.layouts!.map { String($0.fieldCount) }.joined(separator: " or ")
                return try reject("expected \(counts) fields, found \(count)")
            }
        }
        if let expected = expectedFields, count != expected {
            return try reject("expected \(expected) fields, found \(count)")
        }
        if count < minimumFields { return try reject("expected at least \(minimumFields) fields, found \(count)") }
        let columns = EventSlots(user: userField, time: timeField, session: sessionField, eventType: typeField,
                                 utcOffset: offsetField)
        try accept(SplitRow(fields: splitter.fields, line: line, columns: columns))
    }

    /// One line of a JSON-lines log: an object holding every field the format names, as a string or a
    /// number (the UTC offset may be absent or null).
    private mutating func processJSON(_ line: UnsafeBufferPointer<UInt8>) throws {
        guard var reader = json else { return }
        json = nil  // so that the reader's values are not copied when it reads
        defer { json = reader }
        if let failure = reader.read(line) { return try reject(failure.reason) }
        let slots = jsonSlots
        for slot in EventSlot.allCases {
            guard let path = slots.index(slot) else { continue }
            switch reader.values[path] {
            case .string, .number: continue
            case .absent where slot == .utcOffset, .null where slot == .utcOffset: continue
            case .absent: return try reject("no field \(Excerpt.quoted(headerNames[path]))")
            case let other:
                return try reject("\(other.kind), expected a string or a number", field: path)
            }
        }
        try accept(JSONRow(values: reader.values, line: line, slots: slots))
    }

    /// Whether events of type `name` are kept.
    private func keeps(_ name: String) -> Bool {
        (format.keptEventTypes?.contains(name) ?? true) && !(format.excludedEventTypes?.contains(name) ?? false)
    }

    /// One row read into its parts: filtered by event type, its time and user checked, then recorded.
    private mutating func accept<Row: EventRow>(_ row: Row) throws {
        let columns = row.columns
        if let typeField = columns.eventType {
            let name = row.withValue(typeField) { String(decoding: $0, as: UTF8.self) }
            eventTypes.add(name)
            if !keeps(name) {
                filtered += 1
                return
            }
        }
        let timeField = columns.time
        let stamp = row.withValue(timeField) { parser.parseWithZone($0) }
        guard let stamp else {
            let shown = row.withValue(timeField) { Excerpt.quoted($0) }
            return try reject("cannot read timestamp \(shown) as \(format.timestamp.displayName)", field: timeField)
        }
        let time = stamp.seconds
        guard OutlierReport.calendar.contains(time) else {
            let shown = row.withValue(timeField) { Excerpt.quoted($0) }
            return try reject("timestamp \(shown) is outside the years 0000 to 9999", field: timeField)
        }
        if let observationEnd, time > observationEnd {
            return try reject(
                "timestamp \(CivilTime.isoString(time)) is after the end of observation (\(CivilTime.isoString(observationEnd)))",
                field: timeField)
        }
        var offset = stamp.offset
        // An offset the timestamp states is held to the range a scenario's utcOffsets accept, as an offset
        // column's is: fit writes the offsets it tallies into a scenario.
        if let stated = offset, !UTCOffsetTally.range.contains(stated), !(columns.utcOffset.map(row.has) ?? false) {
            let shown = row.withValue(timeField) { Excerpt.quoted($0) }
            return try reject("timestamp \(shown) states the UTC offset \(UTCOffsetTally.shown(stated)), outside UTC−12 to UTC+14",
                              field: timeField)
        }
        if let offsetField = columns.utcOffset, row.has(offsetField) {
            switch row.withValue(offsetField, UTCOffsetTally.seconds) {
            case let .success(seconds): offset = seconds
            case let .failure(bad): return try reject(bad.reason, field: offsetField)
            }
        }
        var session: String?
        if let sessionField = columns.session {
            session = row.withID(sessionField) { String(decoding: $0, as: UTF8.self) }
            if session == "" { return try reject("empty session id", field: sessionField) }
        }
        let userField = columns.user
        let found = row.withID(userField) { id -> Result<(Int, Bool), BadUserID> in
            if id.isEmpty { return .failure(BadUserID("empty user id")) }
            // A NUL would end the id in any C-based tool and make two users look like one (or one like two).
            if id.contains(0) { return .failure(BadUserID("user id \(Excerpt.quoted(id)) contains a NUL byte")) }
            return .success(userTable.index(of: id))
        }
        switch found {
        case let .success((user, isNew)): record(time, offset: offset, user: user, isNew: isNew, session: session)
        case let .failure(bad): return try reject(bad.reason, field: userField)
        }
    }

    /// Reads the first line as the header when one is required, when it names a column the format asks
    /// for, or when it does not read as data; true when it was the header.
    private mutating func takeHeader(_ line: UnsafeBufferPointer<UInt8>) throws -> Bool {
        guard format.hasHeader != false else { return false }
        // A line that breaks the quoting rules is no header; unless one is required, it is a bad row.
        let failure = splitter.split(line)
        if let failure, format.hasHeader == true || namesAColumn {
            throw ImportIssue(line: lineNumber, reason: "header: " + failure.reason, file: place)
        }
        guard failure == nil, format.hasHeader == true || namesAColumn || !readsAsData(line) else { return false }
        let names = splitter.fields.map { FieldSplitter.string(of: $0, in: line) }
        try resolveColumns(header: names)
        headerLine = names
        return true
    }

    /// Whether the first line of an archive entry after the first is the first entry's header again (the
    /// parts of an export each carry it); a header naming other columns, or the same in another order, is
    /// refused, as its rows would be read by the first entry's columns.
    private mutating func repeatsHeader(_ line: UnsafeBufferPointer<UInt8>) throws -> Bool {
        guard let first = headerLine, splitter.split(line) == nil else { return false }
        let names = splitter.fields.map { FieldSplitter.string(of: $0, in: line) }
        if names == first { return true }
        guard !readsAsData(line) else { return false }
        func shown(_ list: [String]) -> String { Excerpt.quoted(list.joined(separator: ",")) }
        throw ImportIssue(line: lineNumber, reason: "header \(shown(names)) is not the first entry's, \(shown(first)): every part "
            + "of an archive must have the same columns in the same order", file: place)
    }

    /// One event of `user` at `time`: into the user's session or visit list; `offset` is the event's
    /// offset from UTC when it states one.
    private mutating func record(_ time: Double, offset: Int?, user: Int, isNew: Bool, session: String?) {
        if isNew {
            if format.sessionColumn == nil { accumulators.append(VisitAccumulator()) } else { sessions.append([:]) }
            if tracksOffsets { userOffsets.append((time: .infinity, offset: Int32.min)) }
        }
        if let session {
            if let span = sessions[user][session] {
                if time == span.0 || time == span.1 { duplicates += 1 }
                sessions[user][session] = (min(span.0, time), max(span.1, time))
            } else {
                sessions[user][session] = (time, time)
            }
        } else {
            duplicates += accumulators[user].add(time, rule: rule)
        }
        if let offset, tracksOffsets {
            let earliest = userOffsets[user]
            if time < earliest.time || (time == earliest.time && Int32(offset) < earliest.offset) || earliest.offset == Int32.min {
                userOffsets[user] = (time: time, offset: Int32(offset))
            }
        }
        events += 1
        lastEvent = max(lastEvent, time)
        extremes.add(time, line: lineNumber, entry: max(entryPlaces.count - 1, 0))
    }

    private mutating func reject(_ reason: String, field: Int? = nil) throws {
        let issue = ImportIssue(line: lineNumber, reason: reason, file: place, column: field.map(label))
        if policy == .stop { throw issue }
        skipped += 1
        if issues.count < Self.maxIssueExamples { issues.append(issue) }
    }
}

/// The system's short reason for a failed read ("Permission denied"), never Foundation's own text.
func systemReason(_ error: any Error) -> String {
    let ns = error as NSError
    let posix = ns.domain == NSPOSIXErrorDomain ? ns : ns.userInfo[NSUnderlyingErrorKey] as? NSError
    if let posix, posix.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(posix.code))) }
    switch (ns.domain, ns.code) {
    case (NSCocoaErrorDomain, NSFileReadNoSuchFileError), (NSCocoaErrorDomain, NSFileNoSuchFileError): return "no such file"
    case (NSCocoaErrorDomain, NSFileReadNoPermissionError): return "permission denied"
    default: return "cannot be read"
    }
}
