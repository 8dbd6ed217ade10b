import Testing

@testable import RateCard

@Suite struct CreditValuationTests {
    /// On V10 the least a credit brings in is the USD 2.99 pack of 3,000 after 30%:
    /// 2.99 × 0.7 / 3,000 USD, or × 7.1 in CNY at the FX file's placeholder rate.
    @Test func lowestPerCreditProceedsAfterTheHighestCommission() throws {
        let repo = try CardRepository.load(paths: [repositoryCards])
        let card = try #require(repo.card(reference: "osg@10"))
        let cny = Currency(code: "CNY")!
        let v = try CreditValuation(
            card: card, commission: repo.commission, fx: repo.fx, currency: cny)
        #expect(v.perCredit.amount == (try Exact(148_603, over: 30_000_000)))
        #expect(v.basis.contains("3000tks at USD 2.99 less 30% for 3,000 credits"))
        #expect(!v.stated)
        let usd = try CreditValuation(
            card: card, commission: repo.commission, fx: repo.fx, currency: Currency(code: "USD")!)
        #expect(usd.perCredit.amount == (try Exact(2093, over: 3_000_000)))
    }

    @Test func aCardWithoutPacksNeedsAStatedValue() throws {
        let repo = try repository([
            "card.json": sampleCard.replacingFirst("\"credits\": 3000", with: "\"credits\": 0"),
            "sheet.json": sampleSheet,
        ])
        #expect(throws: CreditValuationError.noPacks("demo@3")) {
            try CreditValuation(
                card: repo.cards[0], commission: .appStoreDefault, fx: .empty,
                currency: Currency(code: "CNY")!)
        }
    }
}
