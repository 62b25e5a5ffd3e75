import Foundation
import XCTest
@testable import RecordedData

/// A log line longer than the limit is refused where it starts, whatever the chunks it is read in,
/// and a file whose lines end in CR only is named as such.
final class LineLimitTests: XCTestCase {
    func testALongLineIsRefusedWithItsNumberAtAnyChunkSize() throws {
        let text = "user,time\na,2024-03-01T08:00:00Z\n" + String(repeating: "x", count: 200) + "\nb,2024-03-01T09:00:00Z\n"
        let path = try temporaryFile(text, in: self)
        for chunkSize in [1, 7, 64, 1_000] {
            let issue = expectIssue {
                try RecordedLog.read(file: path, format: csvFormat, observationEnd: nil, onBadRow: .skip,
                                     chunkSize: chunkSize, lineLimit: 100)
            }
            XCTAssertEqual(issue?.line, 3, "chunk size \(chunkSize)")
            XCTAssertEqual(issue?.reason, "line longer than 100 bytes (the limit for one line)")
        }
        // At the limit itself the line is read (and is a bad row).
        let fits = try RecordedLog.read(file: path, format: csvFormat, observationEnd: nil, onBadRow: .skip,
                                        chunkSize: 7, lineLimit: 200)
        XCTAssertEqual(fits.skipped, 1)
        XCTAssertEqual(fits.users.count, 2)
    }

    func testTheLastLineWithoutALineBreakCountsToo() throws {
        let path = try temporaryFile("user,time\n" + String(repeating: "y", count: 101), in: self)
        let issue = expectIssue {
            try RecordedLog.read(file: path, format: csvFormat, observationEnd: nil, onBadRow: .stop, chunkSize: 1_000, lineLimit: 100)
        }
        XCTAssertEqual(issue?.description, "\(path):2: line longer than 100 bytes (the limit for one line)")
    }

    func testCarriageReturnOnlyLinesAreNamed() throws {
        let text = "user,time\ra,2024-03-01T08:00:00Z\rb,2024-03-01T09:00:00Z\r"
        XCTAssertEqual(expectImportError { try RecordedLog.parse(text, format: csvFormat, name: "mac.csv") },
                       .carriageReturnLines(file: "mac.csv"))
        // Too long to be held, the reason is the same.
        let path = try temporaryFile(text, in: self)
        XCTAssertEqual(expectImportError {
            try RecordedLog.read(file: path, format: csvFormat, observationEnd: nil, onBadRow: .stop, chunkSize: 3, lineLimit: 20)
        }, .carriageReturnLines(file: path))
        // A stray CR in a file of LF lines is a bad row as before.
        let stray = expectIssue {
            try RecordedLog.parse("user,time\na\r1,2024-03-01T08:00:00Z,x\n", format: csvFormat, name: "lf.csv")
        }
        XCTAssertEqual(stray?.line, 2)
    }

    func testUTF16IsNamedForWhatItIs() throws {
        let text = "user,time\na,2024-03-01T08:00:00Z\n"
        let units: [UInt16] = Array(text.utf16)
        let little: [UInt8] = units.flatMap { (u: UInt16) -> [UInt8] in [UInt8(u & 0xFF), UInt8(u >> 8)] }
        let big: [UInt8] = units.flatMap { (u: UInt16) -> [UInt8] in [UInt8(u >> 8), UInt8(u & 0xFF)] }
        let cases: [(String, [UInt8])] = [("with a byte order mark", [0xFF, 0xFE] + little), ("big-endian", big),
                                          ("little-endian", little)]
        for (name, bytes) in cases {
            let path = try temporaryFile("", in: self)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            XCTAssertEqual(expectImportError { try RecordedLog.read(file: path, format: csvFormat) }, .utf16(file: path), name)
        }
        XCTAssertNoThrow(try RecordedLog.parse(text, format: csvFormat, name: "utf8.csv"))
        let scalars = text.unicodeScalars.map(\.value)
        let little32: [UInt8] = scalars.flatMap { (v: UInt32) -> [UInt8] in [UInt8(v & 0xFF), 0, 0, 0] }
        let big32: [UInt8] = scalars.flatMap { (v: UInt32) -> [UInt8] in [0, 0, 0, UInt8(v & 0xFF)] }
        for (name, bytes) in [("UTF-32 with a byte order mark", [0xFF, 0xFE, 0, 0] + little32), ("UTF-32LE", little32),
                              ("UTF-32BE", big32)] as [(String, [UInt8])] {
            let path = try temporaryFile("", in: self)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            XCTAssertEqual(expectImportError { try RecordedLog.read(file: path, format: csvFormat) }, .utf32(file: path), name)
        }
    }

    func testExcerptsAreShort() {
        XCTAssertEqual(Excerpt.shortened("abc"), "abc")
        XCTAssertEqual(Excerpt.shortened(String(repeating: "é", count: 100)), String(repeating: "é", count: 80) + "…")
        // One character of a million combining marks is cut too.
        let combined = "e" + String(repeating: "\u{301}", count: 1_000_000)
        XCTAssertEqual(Excerpt.shortened(combined).unicodeScalars.count, 81)
        XCTAssertEqual(Excerpt.quoted(String(repeating: "z\n", count: 1_000_000), limit: 4, mark: "\""), "\"z\\x0Az\\x0A…\"")
    }
}
