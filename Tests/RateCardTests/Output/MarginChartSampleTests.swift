import Foundation
import Testing

@testable import RateCard

/// Writes sample charts for `scripts/check-chart` to render and a person to look at.
///
/// With `MARGIN_CHART_SAMPLE_DIR` set, the samples go there; otherwise to a fresh
/// temporary folder that is removed afterwards (the test then only checks the write).
@Suite("MarginChart samples")
struct MarginChartSampleTests {
    @Test func writesSampleCharts() throws {
        let requested = ProcessInfo.processInfo.environment["MARGIN_CHART_SAMPLE_DIR"]
        let directory = requested ?? NSTemporaryDirectory() + "margin-chart-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true)
        defer { if requested == nil { try? FileManager.default.removeItem(atPath: directory) } }
        for (name, chart) in [
            ("sample", try ChartFixtures.realistic()),
            ("sample-loss", try ChartFixtures.withLoss()),
        ] {
            let svg = try chart.svg()
            let path = directory + "/\(name).svg"
            try AtomicFile.write(Array(svg.utf8), to: path)
            #expect(FileManager.default.contents(atPath: path) == Data(svg.utf8))
        }
    }
}
