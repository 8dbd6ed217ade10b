import Foundation
import FoundationXML
import Testing

@testable import RateCard

/// Realistic chart figures for the V10 card's packs, and a parsed view of drawn SVG.
enum ChartFixtures {
    static let cny = Currency(code: "CNY")!
    static let usd = Currency(code: "USD")!

    /// Worst-case provider cost in CNY of each pack's credits (all on ASR, seed 001).
    static let packs: [(id: String, cny: String, usd: String, costCNY: String)] = [
        ("500tks", "8", "0.99", "1.875"),
        ("1500tks", "18", "1.99", "5.625"),
        ("3000tks", "28", "2.99", "11.25"),
    ]
    static let rates = ["0.15", "0.30"]

    static func decimal(_ text: String) throws -> Exact { try Exact(decimal: text) }

    /// One group per pack, one bar per commission rate.
    static func groups(price: (Int) throws -> Exact, cost: (Int) throws -> Exact) throws
        -> [MarginChart.Group]
    {
        try packs.indices.map { index in
            let bars = try rates.map { rate in
                let p = try price(index)
                let r = try decimal(rate)
                return try MarginChart.Bar(
                    label: "\(try r.multiplied(by: 100).decimalText())%",
                    price: p, commission: try p.multiplied(by: r), cost: try cost(index))
            }
            return MarginChart.Group(label: packs[index].id, bars: bars)
        }
    }

    /// The V10 packs in CNY and USD, USD costs converted at 7.1 CNY per USD.
    static func realistic() throws -> MarginChart {
        let fx = try decimal("7.1")
        return MarginChart(
            title: "OSG card v10 · worst-case margin per pack",
            subtitle: "Worst case: every credit spent on ASR. FX 1 USD = 7.1 CNY (sample).",
            panels: [
                MarginChart.Panel(
                    currency: cny,
                    groups: try groups(
                        price: { try decimal(packs[$0].cny) },
                        cost: { try decimal(packs[$0].costCNY) })),
                MarginChart.Panel(
                    currency: usd,
                    groups: try groups(
                        price: { try decimal(packs[$0].usd) },
                        cost: { try decimal(packs[$0].costCNY).divided(by: fx) })),
            ])
    }

    /// The same packs priced so that the 3000tks pack loses money at 30% in USD.
    static func withLoss() throws -> MarginChart {
        let fx = try decimal("7.1")
        let cheap = ["0.99", "1.99", "1.99"]
        return MarginChart(
            title: "Hypothetical card · 3000tks cut to USD 1.99",
            subtitle: "FX 1 USD = 7.1 CNY (sample).",
            panels: [
                MarginChart.Panel(
                    currency: usd,
                    groups: try groups(
                        price: { try decimal(cheap[$0]) },
                        cost: { try decimal(packs[$0].costCNY).divided(by: fx) }))
            ])
    }
}

/// Every element of an XML document, in document order, with its attributes and text.
final class ParsedXML: NSObject, XMLParserDelegate {
    struct Element {
        let name: String
        let attributes: [String: String]
        var text = ""
    }

    private(set) var elements: [Element] = []
    private var open: [Int] = []
    private(set) var error: String?

    /// Parses `text`; `error` says why when it is not well-formed.
    init(_ text: String) {
        super.init()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = self
        if !parser.parse() {
            error = parser.parserError.map { "\($0)" } ?? "not well-formed"
        }
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        open.append(elements.count)
        elements.append(Element(name: name, attributes: attributes))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let last = open.last { elements[last].text += string }
    }

    func parser(
        _ parser: XMLParser, didEndElement name: String, namespaceURI: String?,
        qualifiedName: String?
    ) {
        open.removeLast()
    }

    func named(_ name: String) -> [Element] { elements.filter { $0.name == name } }
}
