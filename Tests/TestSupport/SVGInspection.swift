import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// What XMLParser saw in an SVG document: whether it is well-formed, its text and its attribute values.
public final class SVGInspection: NSObject, XMLParserDelegate {
    public private(set) var error: (any Error)?
    public private(set) var texts: [String] = []
    /// Text of `<title>` elements: the document title, then series and category names.
    public private(set) var titles: [String] = []
    public private(set) var attributes: [(element: String, name: String, value: String)] = []
    public private(set) var elementCount = 0
    private var current = ""
    private var stack: [String] = []

    public convenience init(_ svg: String) {
        self.init(data: Data(svg.utf8))
    }

    public init(data: Data) {
        super.init()
        let parser = XMLParser(data: data)
        parser.delegate = self
        if !parser.parse() {
            error = parser.parserError ?? NSError(domain: "SVGInspection", code: 1)
        }
    }

    public func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        elementCount += 1
        if root == nil { root = elementName }
        stack.append(elementName)
        current = ""
        for (name, value) in attributeDict.sorted(by: { $0.key < $1.key }) {
            attributes.append((elementName, name, value))
        }
    }

    public func parser(_ parser: XMLParser, foundCharacters string: String) {
        current += string
    }

    public func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        if elementName == "text" { texts.append(current) }
        if elementName == "title" { titles.append(current) }
        current = ""
        stack.removeLast()
    }

    public func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        error = parseError
    }

    /// Attributes holding numbers, which must all be finite.
    public static let numericAttributes: Set<String> = ["x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "width", "height", "font-size", "stroke-width"]

    /// Every numeric attribute, polyline point and rotation that is not a finite number.
    public var badNumbers: [String] {
        var bad: [String] = []
        for (element, name, value) in attributes {
            var numbers: [Substring] = []
            if Self.numericAttributes.contains(name) {
                numbers = [Substring(value)]
            } else if name == "points" || name == "viewBox" || name == "stroke-dasharray" {
                numbers = value.split(whereSeparator: { $0 == " " || $0 == "," })
            } else if name == "transform" {
                numbers = value.dropFirst("rotate(".count).dropLast().split(separator: " ")
            }
            for number in numbers where Double(number).map({ !$0.isFinite }) ?? true {
                bad.append("\(element).\(name)=\(value)")
            }
        }
        return bad
    }

    /// The first element's name, or nil for an empty document.
    public private(set) var root: String?

    /// nil when `data` is well-formed XML whose root element is `svg`; otherwise why not.
    public static func svgProblem(_ data: Data) -> String? {
        let inspection = SVGInspection(data: data)
        if let error = inspection.error { return "not well-formed XML: \(error)" }
        if inspection.root != "svg" { return "root element is \(inspection.root ?? "none"), not svg" }
        return nil
    }
}
