import Foundation
import Testing

/// `--credit-value` in another currency than the report's: the basis line says what was
/// stated and what it became, not the converted figure as if it had been typed.
@Suite("Replay: a credit value stated in another currency")
struct ReplayCreditValueTests {
    @Test("EUR 0.01 a credit in a CNY replay: stated as EUR 0.01, converted into CNY")
    func converted() throws {
        // EUR → CNY through USD: 0.01 ÷ 0.86 × 7.10 = 0.082558139534… (12 places, half-even).
        try expectMargin(
            [
                "replay", ReplayGateCLITests.ledger, "--card", ReplayGateCLITests.candidate,
                "--credit-value", "EUR 0.01",
            ], exits: 0,
            stdout: .contains(
                "a credit valued at CNY 0.082558139535 (stated on the command line as EUR 0.01 per credit, converted into CNY at the FX rates in use: CNY 0.082558139535 per credit)"
            ))
        try expectMargin(
            [
                "replay", ReplayGateCLITests.ledger, "--card", ReplayGateCLITests.candidate,
                "--credit-value", "CNY 0.01",
            ], exits: 0,
            stdout: .contains(
                "a credit valued at CNY 0.01 (stated on the command line: CNY 0.01 per credit)"))
    }
}
