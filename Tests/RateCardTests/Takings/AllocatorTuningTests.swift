import Testing

@testable import RateCard

@Suite struct AllocatorTuningTests {
    @Test("a takings run sets glibc's trim and mapping thresholds, found by name")
    func appliedOnGlibc() throws {
        let report = try Takings.run(Takings.line(id: "c1"))
        #expect(report.input.entries == 1)
        #if canImport(Glibc)
            #expect(AllocatorTuning.applied)
        #else
            #expect(!AllocatorTuning.applied)
        #endif
    }
}
