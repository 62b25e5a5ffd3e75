/// Collects SVG elements with escaped text and fixed-precision coordinates, so output is byte-stable.
struct SVGCanvas {
    enum Anchor: String {
        case start, middle, end
    }

    let width: Double
    /// Charts may grow taller once their labels are measured, so the root element is written last.
    var height: Double
    private var elements: [String] = []

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    private static func n(_ value: Double) -> String {
        NumberText.coordinate(value)
    }

    private static func strokeAttributes(_ stroke: String, _ width: Double, _ dash: String?) -> String {
        var out = " stroke=\"\(stroke)\" stroke-width=\"\(n(width))\""
        if let dash { out += " stroke-dasharray=\"\(dash)\"" }
        return out
    }

    mutating func rect(x: Double, y: Double, width: Double, height: Double,
                       fill: String, stroke: String? = nil, dash: String? = nil, opacity: Double? = nil) {
        var element = "<rect x=\"\(Self.n(min(x, x + width)))\" y=\"\(Self.n(min(y, y + height)))\""
        element += " width=\"\(Self.n(abs(width)))\" height=\"\(Self.n(abs(height)))\" fill=\"\(fill)\""
        if let opacity { element += " fill-opacity=\"\(Self.n(opacity))\"" }
        if let stroke { element += Self.strokeAttributes(stroke, 1, dash) }
        elements.append(element + "/>")
    }

    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double,
                       stroke: String, width: Double = 1, dash: String? = nil) {
        elements.append("<line x1=\"\(Self.n(x1))\" y1=\"\(Self.n(y1))\" x2=\"\(Self.n(x2))\" y2=\"\(Self.n(y2))\""
            + Self.strokeAttributes(stroke, width, dash) + "/>")
    }

    mutating func polyline(_ points: [(x: Double, y: Double)], stroke: String, width: Double, dash: String?) {
        let list = points.map { Self.n($0.x) + "," + Self.n($0.y) }.joined(separator: " ")
        elements.append("<polyline points=\"\(list)\" fill=\"none\"" + Self.strokeAttributes(stroke, width, dash)
            + " stroke-linejoin=\"round\" stroke-linecap=\"round\"/>")
    }

    /// A filled, unstroked polygon, for interval bands.
    mutating func polygon(_ points: [(x: Double, y: Double)], fill: String, opacity: Double) {
        let list = points.map { Self.n($0.x) + "," + Self.n($0.y) }.joined(separator: " ")
        elements.append("<polygon points=\"\(list)\" fill=\"\(fill)\" fill-opacity=\"\(Self.n(opacity))\" stroke=\"none\"/>")
    }

    /// A filled circle, outlined in white (the default) so that overlapping markers stay apart, or not at all.
    mutating func circle(cx: Double, cy: Double, r: Double, fill: String, stroke: String? = "#ffffff") {
        elements.append("<circle cx=\"\(Self.n(cx))\" cy=\"\(Self.n(cy))\" r=\"\(Self.n(r))\" fill=\"\(fill)\""
            + (stroke.map { " stroke=\"\($0)\" stroke-width=\"1\"" } ?? "") + "/>")
    }

    /// Draws `text` as given (clip it first); `rotation` is in degrees about the anchor point.
    mutating func text(_ text: String, x: Double, y: Double, size: Double = 12, anchor: Anchor = .start,
                       bold: Bool = false, fill: String = "#222222", rotation: Double? = nil) {
        var element = "<text x=\"\(Self.n(x))\" y=\"\(Self.n(y))\" font-size=\"\(Self.n(size))\" fill=\"\(fill)\""
        if anchor != .start { element += " text-anchor=\"\(anchor.rawValue)\"" }
        if bold { element += " font-weight=\"bold\"" }
        if let rotation {
            element += " transform=\"rotate(\(Self.n(rotation)) \(Self.n(x)) \(Self.n(y)))\""
        }
        elements.append(element + ">" + Self.escape(text) + "</text>")
    }

    /// Starts a group named by a tooltip, so every series and category keeps its full name even when its label is clipped or thinned out.
    mutating func beginGroup(title: String) {
        elements.append("<g><title>" + Self.escape(title) + "</title>")
    }

    mutating func endGroup() {
        elements.append("</g>")
    }

    /// The finished document; `title` becomes the accessible name shown as a tooltip.
    func document(title: String) -> String {
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Self.n(width))\" height=\"\(Self.n(height))\""
        out += " viewBox=\"0 0 \(Self.n(width)) \(Self.n(height))\" font-family=\"sans-serif\" role=\"img\">\n"
        out += "<title>" + Self.escape(title) + "</title>\n"
        // An opaque background keeps dark text readable under GitHub's dark theme.
        out += "<rect x=\"0\" y=\"0\" width=\"\(Self.n(width))\" height=\"\(Self.n(height))\" fill=\"#ffffff\"/>\n"
        for element in elements { out += element + "\n" }
        return out + "</svg>\n"
    }

    /// XML-escapes text, after `shown`: no character XML 1.0 forbids (which would make the whole file
    /// unreadable) and no bidirectional control (which would make a label read backwards) reaches
    /// the document.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in shown(text).unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Text as a chart shows it, on one line: tabs and line breaks as spaces, and each control
    /// character, bidirectional control or non-character as its code (`\u{202E}`), as the Markdown
    /// and HTML reports show them, so that two labels that differ only there stay apart.
    static func shown(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsShowing) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\t", "\n", "\r": out += " "
            default:
                if needsShowing(scalar) {
                    out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    private static func needsShowing(_ scalar: Unicode.Scalar) -> Bool {
        Markdown.isHidden(scalar) || scalar.value == 0xFFFE || scalar.value == 0xFFFF
    }
}

/// Text widths guessed from character classes; no font metrics are available, so guesses err wide.
enum TextMetrics {
    static func width(_ text: String, size: Double) -> Double {
        SVGCanvas.shown(text).reduce(0) { $0 + em($1) } * size
    }

    /// `text` as shown (`SVGCanvas.shown`), cut to fit `maxWidth`, ending in an ellipsis when anything
    /// was removed.
    static func clip(_ text: String, maxWidth: Double, size: Double) -> String {
        let text = SVGCanvas.shown(text)
        if width(text, size: size) <= maxWidth { return text }
        let budget = maxWidth / size - em("…")
        var used = 0.0
        var out = ""
        for character in text {
            used += em(character)
            if used > budget { break }
            out.append(character)
        }
        while out.last == " " { out.removeLast() }
        return out + "…"
    }

    private static func em(_ character: Character) -> Double {
        guard let ascii = character.asciiValue else { return 1.0 }
        switch ascii {
        case 0x20, 0x21, 0x27, 0x2C, 0x2E, 0x3A, 0x3B, 0x49, 0x69, 0x6A, 0x6C, 0x7C, 0x28, 0x29, 0x5B, 0x5D, 0x66, 0x72, 0x74:
            return 0.36
        case 0x4D, 0x57, 0x6D, 0x77, 0x25, 0x40:
            return 0.9
        case 0x41...0x5A:
            return 0.72
        default:
            return 0.62
        }
    }
}
