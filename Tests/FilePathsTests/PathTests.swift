import FilePaths
import Foundation
import XCTest

/// The path helper on the names that trap Foundation's `NSString` path methods on Linux, and on names
/// that hold spaces, quotes, newlines, accents and combining marks.
final class PathTests: XCTestCase {
    /// A path in a message: on one line, its control and format characters escaped, a long one cut.
    func testShown() {
        XCTAssertEqual(Path.shown("Reports/run 1/é.md"), "Reports/run 1/é.md")
        XCTAssertEqual(Path.shown("no\nsuch\u{1B}[1m.db"), "no\\nsuch\\u{1b}[1m.db")
        XCTAssertEqual(Path.shown("a\u{202E}b\tc"), "a\\u{202e}b\\tc")
        XCTAssertEqual(Path.shown(String(repeating: "d/", count: 200)), String(repeating: "d/", count: 80) + "…")
    }

    func testParent() {
        let cases: [(String, String)] = [
            ("j", ""), (".", ""), ("..", ""), ("/", "/"), ("a/", ""), ("é", ""), ("", ""),
            ("x/y", "x"), ("x/y/", "x"), ("a//b", "a"), ("a//b//", "a"), ("/a", "/"), ("//a", "/"), ("///", "/"),
            ("../x", ".."), ("./x", "."), ("x/..", "x"), ("/usr/lib/x.so", "/usr/lib"),
            ("with space/a b.json", "with space"), ("quote\"d/'x'", "quote\"d"), ("new\nline/f", "new\nline"),
            ("e\u{301}/x", "e\u{301}"), ("a/\u{301}", "a"), ("日本/語", "日本"),
        ]
        for (path, parent) in cases {
            XCTAssertEqual(Path.parent(path), parent, "parent of \(path.debugDescription)")
        }
    }

    func testFolderOfAFile() {
        XCTAssertEqual(Path.folder(of: "j"), ".")
        XCTAssertEqual(Path.folder(of: "a/"), ".")
        XCTAssertEqual(Path.folder(of: "x/y"), "x")
        XCTAssertEqual(Path.folder(of: "/j"), "/")
        XCTAssertEqual(Path.folder(of: "/"), "/")
    }

    func testLastComponent() {
        let cases: [(String, String)] = [
            ("j", "j"), (".", "."), ("..", ".."), ("/", "/"), ("a/", "a"), ("é", "é"), ("", ""), ("//", "/"),
            ("x/y", "y"), ("x/y//", "y"), ("/a", "a"), ("a b/c d", "c d"), ("q/\"x'", "\"x'"), ("n/l\nf", "l\nf"),
            ("a/\u{301}", "\u{301}"), ("日本/語", "語"),
        ]
        for (path, last) in cases {
            XCTAssertEqual(Path.lastComponent(path), last, "last component of \(path.debugDescription)")
        }
    }

    func testJoin() {
        XCTAssertEqual(Path.join("", "b"), "b")
        XCTAssertEqual(Path.join("a", "b"), "a/b")
        XCTAssertEqual(Path.join("a/", "b"), "a/b")
        XCTAssertEqual(Path.join("/", "b"), "/b")
        XCTAssertEqual(Path.join(".", "b"), "./b")
        XCTAssertEqual(Path.join("..", "b"), "../b")
        XCTAssertEqual(Path.join("j", "/b"), "j/b")
        XCTAssertEqual(Path.join("é", "report.md"), "é/report.md")
        XCTAssertEqual(Path.join("a b", "c\nd"), "a b/c\nd")
    }

    func testResolve() {
        XCTAssertEqual(Path.resolve("log.csv", relativeTo: nil), "log.csv")
        XCTAssertEqual(Path.resolve("log.csv", relativeTo: ""), "log.csv")
        XCTAssertEqual(Path.resolve("log.csv", relativeTo: "data"), "data/log.csv")
        XCTAssertEqual(Path.resolve("/abs/log.csv", relativeTo: "data"), "/abs/log.csv")
        XCTAssertEqual(Path.resolve("../log.csv", relativeTo: "/"), "/../log.csv")
    }

    func testStem() {
        let cases: [(String, String)] = [
            ("s", "s"), ("s.json", "s"), ("data/events.csv.gz", "events.csv"), (".hidden", ".hidden"), ("name.", "name."),
            ("a/", "a"), (".", "."), ("..", ".."), ("/", "/"), ("dir.d/file", "file"), ("é.json", "é"), ("", ""),
        ]
        for (path, stem) in cases {
            XCTAssertEqual(Path.stem(path), stem, "stem of \(path.debugDescription)")
        }
    }

    /// Every piece cut from a path is the path's own text: put back together, the pieces give it again.
    func testPiecesRebuildThePath() {
        for path in ["a/b", "/a/b", "x y/z\"w", "é/\u{301}x", "a/b/c.d"] {
            XCTAssertEqual(Path.join(Path.parent(path), Path.lastComponent(path)), path)
        }
    }

    /// A shell word names the same text when bash reads it, whatever the text holds, on one line.
    func testShellWordIsReadBackByBash() throws {
        XCTAssertEqual(Path.shellWord("Reports/app-1.json"), "Reports/app-1.json")
        XCTAssertEqual(Path.shellWord("my app's.json"), "'my app'\\''s.json'")
        XCTAssertEqual(Path.shellWord("a\nb"), "$'a\\nb'")
        // As a command's argument, a path that starts with '-' would read as an option.
        XCTAssertEqual(Path.shellArgument("--x.json"), "./--x.json")
        XCTAssertEqual(Path.shellArgument("-"), "./-")
        XCTAssertEqual(Path.shellArgument("a-b.json"), "a-b.json")
        XCTAssertEqual(Path.shellArgument("/tmp/-x"), "/tmp/-x")
        let texts = ["plain.json", "", "-", "-x", "two words", "it's", "'", "\\", "a\\'b", "$HOME", "`id`", "*", "~",
                     "a\nb", "\r\t", "x\u{1B}[31m", "\u{7F}", "\u{85}", "\u{9B}2J", "\u{202E}rtl", "\u{2028}",
                     "é café", "日本", "🙂", "\u{1D173}", "a\u{1}\u{1F}b", "!event", "a;b|c&d", "\"q\""]
        for text in texts {
            let word = Path.shellWord(text)
            XCTAssertFalse(word.contains("\n") || word.contains("\r"), word)
            XCTAssertFalse(word.unicodeScalars.contains(where: Path.needsEscape), word)
            let bash = Process()
            bash.executableURL = URL(fileURLWithPath: "/bin/bash")
            bash.arguments = ["-c", "printf '%s' " + word]
            bash.environment = ["LC_ALL": "C.UTF-8"]
            let output = Pipe()
            bash.standardOutput = output
            try bash.run()
            let read = output.fileHandleForReading.readDataToEndOfFile()
            bash.waitUntilExit()
            XCTAssertEqual(bash.terminationStatus, 0, word)
            XCTAssertEqual(Array(read), Array(text.utf8), "\(word) reads back as \(String(decoding: read, as: UTF8.self))")
        }
    }

    /// No source file uses Foundation's path methods: they trap on ordinary names, and the helper is the one
    /// place paths are taken apart.
    func testNoSourceFileUsesFoundationPathMethods() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let forbidden = ["as NSString", "NSString(", "deletingLastPathComponent", "lastPathComponent",
                         "appendingPathComponent", "deletingPathExtension", "appendingPathExtension", "pathExtension",
                         "standardizingPath", "expandingTildeInPath", "abbreviatingWithTildeInPath", "pathComponents",
                         "resolvingSymlinksInPath"]
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") } ?? []
        XCTAssertGreaterThan(files.count, 50, "the sources were not found at \(sources.path)")
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.drop { $0 == " " }
                if code.hasPrefix("//") { continue }
                for word in forbidden where code.contains(word) { found.append("\(file):\(number + 1): \(word)") }
            }
        }
        XCTAssertEqual(found, [], "Foundation path methods in Sources; use FilePaths.Path instead")
    }
}
