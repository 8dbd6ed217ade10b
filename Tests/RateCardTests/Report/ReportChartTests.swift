import Foundation
import Testing

@testable import RateCard

@Suite("Report chart")
struct ReportChartTests {
    @Test func osgChartHasAPanelPerCurrencyAGroupPerPackABarPerCommission() throws {
        let set = try ReportFixtures.realSet()
        let osg = try #require(set.reports.first { $0.card.id == "osg" })
        let chart = try osg.chart()
        #expect(chart.panels.map(\.currency.code) == ["USD", "CNY"])
        for panel in chart.panels {
            #expect(panel.groups.map(\.label) == ["500tks", "1500tks", "3000tks"])
            #expect(panel.groups.allSatisfy { $0.bars.map(\.label) == ["15%", "30%"] })
        }
        let bar = try #require(chart.panels[1].groups[2].bars.last)
        #expect(bar.price == Exact(28))
        #expect(bar.cost == (try Exact(decimal: "11.25")))
        #expect(bar.margin == (try Exact(decimal: "8.35")))
    }

    @Test(arguments: ["osg-v10.svg", "voice-debrief-v1.svg"])
    func svgIsWellFormedAndMarkedGenerated(name: String) throws {
        let svg = try ReportFixtures.text(ReportFixtures.realSet(), name)
        let xml = ParsedXML(svg)
        #expect(xml.error == nil)
        #expect(xml.elements.first?.name == "svg")
        #expect(svg.split(separator: "\n")[1].contains(CardReport.generatedMarker))
    }

    /// Within a panel, every segment's width is its figure times one scale (to 0.1 px).
    @Test func barLengthsAreProportionalToTheFigures() throws {
        let svg = try ReportFixtures.text(ReportFixtures.realSet(), "osg-v10.svg")
        let segments = ParsedXML(svg).named("rect").filter {
            ["commission", "cost", "margin"].contains($0.attributes["class"] ?? "")
        }
        #expect(segments.count == 36)  // 2 currencies × 3 packs × 2 rates × 3 segments
        let tolerance = try Exact(decimal: "0.21")
        for panel in [segments[..<18], segments[18...]] {
            let figures = try panel.map {
                (
                    try Exact(decimal: $0.attributes["data-value"] ?? ""),
                    try Exact(decimal: $0.attributes["width"] ?? "")
                )
            }
            let largest = try #require(figures.max { $0.0 < $1.0 })
            let scale = try largest.1.divided(by: largest.0)
            for (value, width) in figures {
                let expected = try value.multiplied(by: scale)
                let error = try width.subtracting(expected)
                let magnitude = error.isNegative ? try error.negated() : error
                #expect(magnitude < tolerance, "width \(width) for \(value)")
            }
        }
    }
}
