import Foundation
import Testing

@testable import RateCard

@Suite("MarginChart")
struct MarginChartTests {
    @Test func realisticChartIsWellFormedStandaloneSVG() throws {
        let svg = try ChartFixtures.realistic().svg()
        let xml = ParsedXML(svg)
        #expect(xml.error == nil)
        let root = try #require(xml.elements.first)
        #expect(root.name == "svg")
        #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(root.attributes["width"] == "960")
        let height = try #require(root.attributes["height"])
        #expect(root.attributes["viewBox"] == "0 0 960 \(height)")
        #expect(root.attributes["font-family"]?.hasSuffix("sans-serif") == true)
        #expect(xml.elements[1].name == "title")
        #expect(xml.elements[1].text == "OSG card v10 · worst-case margin per pack")
        // Every bar carries an accessible description of its figures.
        let barTitles = xml.named("title").dropFirst().map(\.text)
        #expect(barTitles.count == 12)
        #expect(
            barTitles.contains(
                "3000tks at 30%: price CNY 28.00, commission CNY 8.40, worst-case cost CNY 11.25, margin CNY 8.35 (29.8% of price)"
            ))
    }

    @Test func sameInputGivesByteIdenticalOutput() throws {
        let first = try ChartFixtures.realistic().svg()
        let second = try ChartFixtures.realistic().svg()
        #expect(Array(first.utf8) == Array(second.utf8))
    }

    @Test func seedFiguresAppearAsLabelsRoundedHalfEven() throws {
        let texts = ParsedXML(try ChartFixtures.realistic().svg()).named("text").map(\.text)
        // CNY 28 after 15%: commission 4.20, cost 11.25, margin 12.55 (spec §1).
        #expect(texts.contains("4.20"))
        #expect(texts.contains("11.25"))
        #expect(texts.contains("12.55"))
        // USD 2.99 × 0.15 = 0.4485 is shown as 0.45.
        #expect(texts.contains("0.45"))
        #expect(texts.contains("CNY 28.00"))
        #expect(texts.contains("USD 2.99"))
    }

    @Test(arguments: [
        ("0.125", 2, "0.12"), ("0.135", 2, "0.14"), ("8.4", 2, "8.40"),
        ("-0.405", 2, "\u{2212}0.40"),
        ("1200.5", 0, "1200"), ("0.0005", 3, "0.000"), ("0.0015", 3, "0.002"),
    ])
    func moneyLabelsRoundHalfEvenToMinorUnits(value: String, minorUnits: Int, expected: String)
        throws
    {
        let code = minorUnits == 0 ? "JPY" : minorUnits == 3 ? "KWD" : "USD"
        let currency = try #require(Currency(code: code))
        #expect(currency.minorUnits == minorUnits)
        #expect(try MarginChartDrawing.money(Exact(decimal: value), currency) == expected)
    }

    @Test(arguments: [
        ("28", 2, "5", "30"), ("2.99", 2, "0.5", "3"), ("11.25", 2, "2", "12"),
        ("0", 2, "0.01", "0.01"),
        ("0.03", 2, "0.01", "0.03"), ("1200", 0, "200", "1200"), ("1", 0, "1", "1"),
        ("12345", 2, "5000", "15000"),
    ])
    func axisUsesRoundSteps(largest: String, minorUnits: Int, step: String, maximum: String) throws
    {
        let axis = try ChartAxis(
            fitting: Exact(decimal: largest), minorUnits: minorUnits, width: 5600)
        #expect(axis.step == (try Exact(decimal: step)))
        #expect(axis.maximum == (try Exact(decimal: maximum)))
        let ticks = try axis.ticks()
        #expect(ticks.first?.value == .zero)
        #expect(ticks.last?.value == axis.maximum)
        #expect((2...8).contains(ticks.count))
    }

    @Test func axisLabelsKeepTheStepsDecimals() throws {
        let axis = try ChartAxis(fitting: Exact(decimal: "2.99"), minorUnits: 2, width: 5600)
        #expect(try axis.ticks().map(\.label) == ["0.0", "0.5", "1.0", "1.5", "2.0", "2.5", "3.0"])
    }

    /// Bars of many shapes: the ordinary case, a loss, zero cost, a loss by a minor unit,
    /// a tiny figure next to a large one, a currency without minor units.
    static let shapes: [(code: String, price: String, commission: String, cost: String)] = [
        ("CNY", "28", "8.4", "11.25"),
        ("USD", "1.99", "0.597", "1.58450704225352112676"),
        ("USD", "0.99", "0.1485", "0"),
        ("USD", "10", "3", "7.01"),
        ("CNY", "1000", "150", "0.01"),
        ("JPY", "480", "144", "700"),
    ]

    @Test(arguments: shapes)
    func segmentWidthsAreProportionalToTheFigures(
        code: String, price: String, commission: String, cost: String
    ) throws {
        let currency = try #require(Currency(code: code))
        let bar = try MarginChart.Bar(
            label: "30%", price: Exact(decimal: price), commission: Exact(decimal: commission),
            cost: Exact(decimal: cost))
        let other = try MarginChart.Bar(
            label: "15%", price: Exact(decimal: price), commission: .zero, cost: .zero)
        let chart = MarginChart(
            title: "t",
            panels: [
                MarginChart.Panel(
                    currency: currency,
                    groups: [MarginChart.Group(label: "pack", bars: [bar, other])])
            ])
        try expectProportional(chart)
    }

    @Test func realisticChartIsProportional() throws {
        try expectProportional(try ChartFixtures.realistic())
        try expectProportional(try ChartFixtures.withLoss())
    }

    @Test func lossIsDrawnBeyondThePriceAndLabelled() throws {
        let chart = try ChartFixtures.withLoss()
        let xml = ParsedXML(try chart.svg())
        #expect(xml.error == nil)
        let losses = xml.named("rect").filter { $0.attributes["class"] == "loss" }
        // 3000tks at USD 1.99 less 30%: 1.393 of proceeds against 11.25 / 7.1 of cost.
        let loss = try Exact(decimal: "11.25").divided(by: Exact(decimal: "7.1"))
            .subtracting(Exact(decimal: "1.393"))
        #expect(losses.count == 1)
        #expect(losses.first?.attributes["data-value"] == loss.decimalText())
        #expect(losses.first?.attributes["fill"] == "url(#loss-hatch)")
        let prices = xml.named("line").filter { $0.attributes["class"] == "price" }
        #expect(losses.first?.attributes["x"] == prices[5].attributes["x1"])
        #expect(xml.named("text").contains { $0.text == "loss 0.19 (\u{2212}9.6%)" })
    }

    @Test func emptyCardSaysThereIsNothingToChart() throws {
        let svg = try MarginChart(title: "Empty card v1", panels: []).svg()
        let xml = ParsedXML(svg)
        #expect(xml.error == nil)
        #expect(xml.named("rect").allSatisfy { $0.attributes["class"] == nil })
        #expect(
            xml.named("text").contains { $0.text == "No packs on this card: nothing to chart." })
    }

    @Test func currencyWithoutPacksSaysSo() throws {
        let svg = try MarginChart(
            title: "t", panels: [MarginChart.Panel(currency: ChartFixtures.usd, groups: [])]
        ).svg()
        let xml = ParsedXML(svg)
        #expect(xml.error == nil)
        #expect(xml.named("text").contains { $0.text == "No packs are priced in USD." })
    }

    @Test func textIsEscaped() throws {
        let bar = try MarginChart.Bar(
            label: "<1>&'\"", price: Exact(3), commission: .one, cost: .one)
        let chart = MarginChart(
            title: "R&D <draft> 'v2'", subtitle: "a & b",
            panels: [
                MarginChart.Panel(
                    currency: ChartFixtures.cny,
                    groups: [MarginChart.Group(label: "A&B", bars: [bar])])
            ])
        let xml = ParsedXML(try chart.svg())
        #expect(xml.error == nil)
        #expect(xml.named("title").first?.text == "R&D <draft> 'v2'")
        #expect(xml.named("text").contains { $0.text == "<1>&'\"" })
        #expect(xml.named("title").contains { $0.text.hasPrefix("A&B at <1>&'\": price CNY 3.00") })
    }

    @Test func longLabelsAreShortenedButKeptInFullInTheBarTitle() throws {
        let long = "com.example.app.credits.pack3000.promo"
        let bar = try MarginChart.Bar(
            label: "30% (small business programme)", price: Exact(3), commission: .one, cost: .one)
        let chart = MarginChart(
            title: "t",
            panels: [
                MarginChart.Panel(
                    currency: ChartFixtures.cny,
                    groups: [MarginChart.Group(label: long, bars: [bar])])
            ])
        let xml = ParsedXML(try chart.svg())
        let texts = xml.named("text").map(\.text)
        #expect(!texts.contains(long))
        let shortened = try #require(texts.first { $0.hasPrefix("com.") })
        #expect(shortened.hasSuffix("…"))
        #expect(texts.contains { $0.hasPrefix("30% (") && $0.hasSuffix("…") })
        #expect(
            xml.named("title").contains {
                $0.text.hasPrefix("\(long) at 30% (small business programme): ")
            })
    }

    @Test(arguments: [
        ("-1", "0", "0", "price"), ("1", "-0.01", "0", "commission"), ("1", "0", "-5", "cost"),
    ])
    func negativeFiguresAreRefused(price: String, commission: String, cost: String, field: String)
        throws
    {
        let error = #expect(throws: MarginChartError.self) {
            try MarginChart.Bar(
                label: "x", price: Exact(decimal: price), commission: Exact(decimal: commission),
                cost: Exact(decimal: cost))
        }
        guard case .negativeFigure(_, let named, _) = error else {
            Issue.record("expected negativeFigure, got \(String(describing: error))")
            return
        }
        #expect(named == field)
    }

    /// Checks every drawn segment against the figures: segments appear in order
    /// (commission, cost, then margin or loss), abut, start at the plot's left edge, and
    /// each width is within one rounding unit (0.1 px) of figure × the panel's scale.
    func expectProportional(
        _ chart: MarginChart, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        let xml = ParsedXML(try chart.svg())
        #expect(xml.error == nil, sourceLocation: sourceLocation)
        var rects = xml.named("rect").filter { $0.attributes["class"] != nil }[...]
        var prices = xml.named("line").filter { $0.attributes["class"] == "price" }[...]
        let left = Exact(MarginChartDrawing.plotLeft)
        let unit = try Exact(1, over: 10)
        for panel in chart.panels {
            let bars = panel.groups.flatMap(\.bars)
            var largest = Exact.zero
            for bar in bars {
                largest = max(largest, bar.price, try bar.commission.adding(bar.cost))
            }
            let axis = try ChartAxis(
                fitting: largest, minorUnits: panel.currency.minorUnits,
                width: (MarginChartDrawing.plotRight - MarginChartDrawing.plotLeft) * 10)
            let pixelsPerUnit = try axis.scale.divided(by: Exact(10))
            for bar in bars {
                var expected: [(String, Exact)] = [
                    ("commission", bar.commission), ("cost", bar.cost),
                ]
                if bar.margin.isPositive { expected.append(("margin", bar.margin)) }
                if bar.margin.isNegative { expected.append(("loss", try bar.margin.negated())) }
                var x = left
                for (kind, value) in expected {
                    let exactWidth = try value.multiplied(by: pixelsPerUnit)
                    if try exactWidth.scaled(1, rule: .halfEven) == 0,
                        value.isPositive || kind != "loss"
                    {
                        // Too small to draw at 0.1 px: the drawing may omit it.
                        if rects.first?.attributes["class"] != kind { continue }
                    }
                    let next = rects.popFirst()
                    let rect = try #require(next, sourceLocation: sourceLocation)
                    #expect(rect.attributes["class"] == kind, sourceLocation: sourceLocation)
                    #expect(
                        rect.attributes["data-value"] == value.decimalText(),
                        sourceLocation: sourceLocation)
                    let width = try Exact(decimal: try #require(rect.attributes["width"]))
                    let rectX = try Exact(decimal: try #require(rect.attributes["x"]))
                    let close = try Self.within(width, exactWidth, unit)
                    #expect(
                        close, "\(kind) \(value): width \(width) vs exact \(exactWidth)",
                        sourceLocation: sourceLocation)
                    if kind == "loss" {
                        let priceX = try left.adding(bar.price.multiplied(by: pixelsPerUnit))
                        let atPrice = try Self.within(rectX, priceX, unit)
                        #expect(atPrice, sourceLocation: sourceLocation)
                    } else {
                        #expect(rectX == x, sourceLocation: sourceLocation)
                        x = try rectX.adding(width)
                    }
                }
                let nextLine = prices.popFirst()
                let line = try #require(nextLine, sourceLocation: sourceLocation)
                let lineX = try Exact(decimal: try #require(line.attributes["x1"]))
                let exactPrice = try left.adding(bar.price.multiplied(by: pixelsPerUnit))
                let onPrice = try Self.within(lineX, exactPrice, unit)
                #expect(onPrice, sourceLocation: sourceLocation)
            }
        }
        #expect(rects.isEmpty, sourceLocation: sourceLocation)
    }

    /// |a − b| ≤ tolerance, exactly.
    static func within(_ a: Exact, _ b: Exact, _ tolerance: Exact) throws -> Bool {
        let difference = try a.subtracting(b)
        let negated = try difference.negated()
        return difference <= tolerance && negated <= tolerance
    }
}
