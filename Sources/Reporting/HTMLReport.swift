import Foundation
import Rendering

/// `report.html`: the Markdown report as one self-contained page — inline CSS, the charts as inline
/// SVG, no network access, readable without JavaScript (a small inline script only sorts tables).
///
/// It converts the Markdown subset the reports write (headings, paragraphs, lists, tables, images,
/// fenced blocks of preformatted text,
/// `**strong**`, `*emphasis*`, `` `code` ``, backslash escapes and the entities and `<br>` that
/// `Markdown.escapeCell` produces), so both files always say the same thing. The output is
/// well-formed XML (XHTML syntax), which the tests check.
public enum HTMLReport {
    /// - Parameters: `charts`: each chart's SVG text by the file name the Markdown refers to.
    public static func render(markdown: String, charts: [String: String], title: String) -> String {
        var body = ""
        var paragraph: [String] = []
        var list: [String] = []
        var table: [String] = []
        var fenced: [String]?
        func flush() {
            if !paragraph.isEmpty { body += "<p>" + paragraph.map(inline).joined(separator: " ") + "</p>\n"; paragraph = [] }
            if !list.isEmpty { body += "<ul>\n" + list.map { "<li>" + inline($0) + "</li>\n" }.joined() + "</ul>\n"; list = [] }
            if !table.isEmpty { body += renderTable(table); table = [] }
        }
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                flush()
                if let text = fenced {
                    body += "<pre style=\"overflow-x: auto\">" + text.map(escape).joined(separator: "\n") + "</pre>\n"
                    fenced = nil
                } else {
                    fenced = []
                }
                continue
            }
            if fenced != nil { fenced?.append(line); continue }
            if line.hasPrefix("|") {
                if table.isEmpty { flush() }
                table.append(line)
                continue
            }
            if !table.isEmpty { flush() }
            if line.isEmpty { flush(); continue }
            if let level = headingLevel(line) {
                flush()
                let text = String(line.dropFirst(level + 1))
                body += "<h\(level) id=\"\(anchor(text))\">" + inline(text) + "</h\(level)>\n"
            } else if line.hasPrefix("!["), let close = line.range(of: "]("), line.hasSuffix(")") {
                flush()
                let alt = String(line[line.index(line.startIndex, offsetBy: 2)..<close.lowerBound])
                let file = String(line[close.upperBound..<line.index(before: line.endIndex)])
                if let svg = charts[file] {
                    body += "<figure>\n" + svg + "<figcaption>" + inline(alt) + "</figcaption>\n</figure>\n"
                } else {
                    body += "<p>" + inline(alt) + " (chart not available)</p>\n"
                }
            } else if line.hasPrefix("- ") {
                if !paragraph.isEmpty { flush() }
                list.append(String(line.dropFirst(2)))
            } else if !list.isEmpty && line.hasPrefix("  ") {
                list[list.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
            } else {
                if !list.isEmpty { flush() }
                paragraph.append(line)
            }
        }
        flush()
        if let text = fenced { body += "<pre style=\"overflow-x: auto\">" + text.map(escape).joined(separator: "\n") + "</pre>\n" }
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <title>\(escape(title))</title>
            <style>
            \(css)
            </style>
            </head>
            <body>
            <main>
            \(body)</main>
            <script>
            //<![CDATA[
            \(script)
            //]]>
            </script>
            </body>
            </html>

            """
    }

    static func headingLevel(_ line: String) -> Int? {
        let hashes = line.prefix { $0 == "#" }.count
        guard (1...6).contains(hashes), line.dropFirst(hashes).first == " " else { return nil }
        return hashes
    }

    static func anchor(_ text: String) -> String {
        String(text.lowercased().unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? Character($0) : "-" })
    }

    static func renderTable(_ lines: [String]) -> String {
        func cells(_ line: String) -> [String] {
            // Split on unescaped pipes; the line starts with "| " and ends with " |".
            var out: [String] = [], current = "", escaped = false
            for ch in line.dropFirst().dropLast() {
                if escaped { current.append("\\"); current.append(ch); escaped = false; continue }
                if ch == "\\" { escaped = true; continue }
                if ch == "|" { out.append(current.trimmingCharacters(in: .whitespaces)); current = ""; continue }
                current.append(ch)
            }
            out.append(current.trimmingCharacters(in: .whitespaces))
            return out
        }
        guard lines.count >= 2 else { return "" }
        let header = cells(lines[0])
        let aligns = cells(lines[1]).map { d -> String in
            d.hasSuffix(":") ? (d.hasPrefix(":") ? "center" : "right") : "left"
        }
        func style(_ i: Int) -> String {
            guard i < aligns.count else { return "" }
            return aligns[i] == "right" ? " class=\"num\"" : aligns[i] == "center" ? " class=\"mid\"" : ""
        }
        var out = "<div class=\"table\"><table>\n<thead><tr>"
        for (i, h) in header.enumerated() { out += "<th\(style(i))>" + inline(h) + "</th>" }
        out += "</tr></thead>\n<tbody>\n"
        for line in lines.dropFirst(2) {
            out += "<tr>"
            for (i, c) in cells(line).enumerated() { out += "<td\(style(i))>" + inline(c) + "</td>" }
            out += "</tr>\n"
        }
        return out + "</tbody>\n</table></div>\n"
    }

    /// Inline Markdown to HTML: escapes, strong, emphasis, code; entities and `<br>` kept, anything else escaped.
    static func inline(_ text: String) -> String {
        var out = ""
        var strong = false, em = false, code = false
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if code {
                if c == "`" { out += "</code>"; code = false } else { out += escape(String(c)) }
                i += 1
                continue
            }
            switch c {
            // CommonMark escapes ASCII punctuation only: `\u{202E}` (a hidden character shown) keeps its backslash.
            case "\\" where i + 1 < chars.count && chars[i + 1].isASCII && chars[i + 1].isPunctuationOrSymbol:
                out += escape(String(chars[i + 1]))
                i += 2
                continue
            case "`":
                out += "<code>"
                code = true
            case "*":
                if i + 1 < chars.count, chars[i + 1] == "*" {
                    out += strong ? "</strong>" : "<strong>"
                    strong.toggle()
                    i += 2
                    continue
                }
                // A lone star between spaces is text, not emphasis.
                let next = i + 1 < chars.count ? chars[i + 1] : " "
                if !em && next == " " { out += "*" } else { out += em ? "</em>" : "<em>"; em.toggle() }
            case "&":
                let rest = String(chars[i...].prefix(6))
                if rest.hasPrefix("&amp;") || rest.hasPrefix("&lt;") || rest.hasPrefix("&gt;") || rest.hasPrefix("&quot;") {
                    out += "&"
                } else {
                    out += "&amp;"
                }
            case "<":
                if String(chars[i...].prefix(4)) == "<br>" {
                    out += "<br/>"
                    i += 4
                    continue
                }
                out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
            i += 1
        }
        if code { out += "</code>" }
        if em { out += "</em>" }
        if strong { out += "</strong>" }
        return out
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            // Control characters (NUL among them) are not text a page may hold, and bidirectional overrides
            // reorder what follows: shown as the Markdown shows them.
            case _ where Markdown.isHidden(scalar):
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static let css = """
        body { margin: 0; background: #fafafa; color: #222; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
        main { max-width: 1100px; margin: 0 auto; padding: 24px; background: #fff; }
        h1 { font-size: 1.7em; margin-top: 0; }
        h2 { font-size: 1.35em; border-bottom: 1px solid #ddd; padding-bottom: 4px; margin-top: 2em; }
        h3 { font-size: 1.1em; }
        .table { overflow-x: auto; margin: 1em 0; }
        table { border-collapse: collapse; font-size: 13px; }
        th, td { border: 1px solid #d0d0d0; padding: 4px 8px; vertical-align: top; text-align: left; }
        th { background: #f0f0f0; cursor: pointer; }
        td.mid, th.mid { text-align: center; }
        td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        tbody tr:nth-child(even) { background: #f7f7f7; }
        code { background: #f0f0f0; padding: 0 3px; border-radius: 3px; }
        figure { margin: 1.5em 0; }
        figure svg { max-width: 100%; height: auto; }
        figcaption { color: #555; font-size: 13px; }
        """

    /// Sorts a table by the clicked column; numbers compare as numbers. The page reads fully without it.
    static let script = """
        document.querySelectorAll("th").forEach(function (th) {
          th.addEventListener("click", function () {
            var table = th.closest("table"), body = table.tBodies[0], i = th.cellIndex;
            var up = th.getAttribute("data-up") !== "1";
            table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("data-up"); });
            th.setAttribute("data-up", up ? "1" : "0");
            var key = function (row) {
              var t = row.cells[i] ? row.cells[i].textContent : "";
              var n = parseFloat(t.replace(/[,%+]/g, ""));
              return isNaN(n) ? t : n;
            };
            Array.from(body.rows).sort(function (a, b) {
              var x = key(a), y = key(b);
              var c = (typeof x === "number" && typeof y === "number") ? x - y : String(x).localeCompare(String(y));
              return up ? c : -c;
            }).forEach(function (row) { body.appendChild(row); });
          });
        });
        """
}

private extension Character {
    /// ASCII punctuation and symbols: the characters a CommonMark backslash escapes.
    var isPunctuationOrSymbol: Bool { isPunctuation || isSymbol }
}
