import Testing

@testable import RateCard

/// Issue 25: option values parse themselves, with one message shape for every kind:
/// `--name TEXT: reason`.
@Suite struct OptionValueTests {
    private func message<T: OptionValue>(_ type: T.Type, _ option: String, _ text: String)
        -> String?
    {
        do {
            _ = try T.parse(option: option, text)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func goodValuesParse() throws {
        let fx = try FXRate.parse(option: "fx", "USD/CNY=7.2")
        #expect(fx.description.contains("7.2"))
        #expect(try ByteSize.parse(option: "memory", "256M").bytes == 256 << 20)
        #expect(try ByteSize.parse(option: "memory", "2GiB").bytes == 2 << 30)
        #expect(try ByteSize.parse(option: "memory", "512").bytes == 512)
        #expect(
            try CommissionRates.parse(option: "commission", "15%,0.30").rates == [
                try Exact(decimal: "0.15"), try Exact(decimal: "0.3"),
            ])
        let money = try Money.parse(option: "credit-value", "0.005 CNY")
        #expect(money == Money(try Exact(decimal: "0.005"), Currency(code: "CNY")!))
        #expect(try Money.parse(option: "credit-value", "CNY=0.005") == money)
        let tax = try SalesTaxRate.parse(option: "tax", "GBP=0.20")
        let fifth = try Exact(decimal: "0.2")
        #expect(tax.currency.code == "GBP")
        #expect(tax.rate == fifth)
        #expect(try Currency.parse(option: "currency", "JPY").code == "JPY")
        _ = try Timestamp.parse(option: "now", "2026-12-01T00:00:00+14:00")
    }

    @Test(arguments: [
        (
            "fx", "USD-CNY",
            "--fx USD-CNY: expected BASE/QUOTE=RATE with ISO 4217 codes, e.g. USD/CNY=7.2"
        ),
        (
            "fx", "USD/USD=1",
            "--fx USD/USD=1: expected BASE/QUOTE=RATE with ISO 4217 codes, e.g. USD/CNY=7.2"
        ),
        ("fx", "USD/CNY=0", "--fx USD/CNY=0: the rate must be a positive decimal"),
        ("memory", "lots", "--memory lots: expected a size such as 256M or 2G"),
        ("memory", "0", "--memory 0: expected a size such as 256M or 2G"),
        ("memory", "99999999999T", "--memory 99999999999T: expected a size such as 256M or 2G"),
        ("commission", "0.1,x", "--commission 0.1,x: 'x' is not a rate (write 0.15 or 15%)"),
        ("commission", "100%", "--commission 100%: '100%' must be from 0 to below 1 (0.15 or 15%)"),
        (
            "commission", "0.15,15%",
            "--commission 0.15,15%: '15%' is the same rate as one given before it"
        ),
        (
            "tax", "GBP=1",
            "--tax GBP=1: the rate must be a decimal from 0 to below 1 (0.20 for 20%)"
        ),
        ("tax", "XX=0.2", "--tax XX=0.2: expected CUR=RATE with an ISO 4217 code, e.g. GBP=0.20"),
        ("credit-value", "CNY -1", "--credit-value CNY -1: '-1' is not a non-negative decimal"),
        (
            "credit-value", "5",
            "--credit-value 5: expected a currency and an amount, e.g. 'CNY 0.005'"
        ),
        ("currency", "XYZ", "--currency XYZ: not a known ISO 4217 code"),
        (
            "credit-value", "XOF 1",
            "--credit-value XOF 1: neither 'XOF' nor '1' is a currency margin knows (the ISO 4217 codes of the App Store's storefronts and the providers' sheets)"
        ),
    ])
    func badValuesAreOneMessage(option: String, text: String, expected: String) {
        let got: String? =
            switch option {
            case "fx": message(FXRate.self, option, text)
            case "memory": message(ByteSize.self, option, text)
            case "commission": message(CommissionRates.self, option, text)
            case "tax": message(SalesTaxRate.self, option, text)
            case "credit-value": message(Money.self, option, text)
            default: message(Currency.self, option, text)
            }
        #expect(got == expected)
    }

    @Test func aTaxGivenTwiceIsBadUsage() throws {
        let rates = [
            try SalesTaxRate.parse(option: "tax", "GBP=0.2"),
            try SalesTaxRate.parse(option: "tax", "GBP=0.1"),
        ]
        #expect(throws: UsageError("--tax: GBP is given twice")) {
            try SalesTaxRate.table(rates)
        }
    }

    /// Only one rate of a pair can be used: a second one, either way round, would be
    /// dropped in silence, so it is bad usage.
    @Test func anFXPairGivenTwiceIsBadUsage() throws {
        let usd7 = try FXRate.parse(option: "fx", "USD/CNY=7")
        for second in ["USD/CNY=8", "CNY/USD=0.2", "USD/CNY=7"] {
            let other = try FXRate.parse(option: "fx", second)
            #expect(throws: UsageError.self) { try FXRate.overrides([usd7, other]) }
        }
        let eur = try FXRate.parse(option: "fx", "EUR/CNY=7.8")
        #expect(try FXRate.overrides([usd7, eur]) == [usd7, eur])
    }

    @Test func aBadTimeNamesTheOption() {
        let m = message(Timestamp.self, "now", "yesterday")
        #expect(m?.hasPrefix("--now yesterday: ") == true)
    }
}
