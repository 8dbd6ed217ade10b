import Foundation
import Testing

@testable import RateCard

/// Figures a finance reader must be able to trust at the edges of `storefronts` and
/// `packs`: an overflow names the pack, territory and price; a card price that reaches no
/// storefront is said, not dropped; `--at` on the last day of a tax and the first day of
/// the next; a commission rate given twice is bad usage, not every row printed twice.
@Suite("Storefronts and packs at the edges, run as a user would")
struct StorefrontEdgeCLITests {
    /// A copy of the repository's cards with the 3000tks CNY price `{ "currency": "CNY",
    /// "amount": "28" }` replaced by `prices` (osg-v10.json, line 50).
    static func folder(prices: String) throws -> TemporaryFolder {
        let dir = try TemporaryFolder()
        let cards = try dir.copyRepositoryCards()
        let path = cards + "/osg-v10.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let price = #"{ "currency": "CNY", "amount": "28" }"#
        #expect(text.components(separatedBy: price).count == 2)
        try dir.write(
            "RateCards/osg-v10.json", text.replacingOccurrences(of: price, with: prices))
        return dir
    }

    /// CNY 10^36 − 1 fits the card's exact decimals, but its modelled proceeds in China
    /// (tax removed, then commission) do not fit 128 bits: the error names the pack, the
    /// territory and the price, exit 2, not a bare "too large".
    @Test func anOverflowInAStorefrontNamesThePackTerritoryAndPrice() throws {
        let huge = String(repeating: "9", count: 36)
        let dir = try Self.folder(prices: #"{ "currency": "CNY", "amount": ""# + huge + #"" }"#)
        defer { dir.cleanup() }
        try expectMargin(
            ["storefronts", "osg@10"], in: dir.path, exits: 2,
            stderr: .contains(
                "RateCards/osg-v10.json:1:1: error: osg@10: pack 3000tks in CHN: the modelled proceeds of CNY \(huge) cannot be computed exactly: the result is too large to compute exactly"
            ))
    }

    /// A price in KWD, which no storefront of the data prices in (Kuwait is priced in USD
    /// there) and no App Store Connect file covers: in no row, so an error at the price in
    /// `storefronts` (exit 1) and in `check`, never left out in silence.
    @Test func aPriceNoStorefrontTakesIsSaid() throws {
        let dir = try Self.folder(
            prices:
                #"{ "currency": "CNY", "amount": "28" }, { "currency": "KWD", "amount": "1.250" }"#
        )
        defer { dir.cleanup() }
        let message =
            "RateCards/osg-v10.json:50:130: error: pack \"3000tks\": the price KWD 1.25 reaches no storefront: no storefront of RateCards/storefronts.json prices in KWD and no App Store Connect file covers one; it applies nowhere (give it a storefront the data prices in KWD, or remove it) [storefront-price]"
        let r = try expectMargin(
            ["storefronts", "osg@10", "--fx", "CNY/KWD=0.043"], in: dir.path, exits: 1,
            stderr: .contains(message))
        #expect(!r.stdout.contains(" KWD "))
        try expectMargin(
            ["check", "RateCards", "--fx", "CNY/KWD=0.043"], in: dir.path, exits: 1,
            stderr: .contains(message))
        // The CNY price beside it still reaches China.
        #expect(r.stdout.contains("osg@10  3000tks  CHN"))
    }

    /// Azerbaijan's VAT: 0 until 2025-02-06, 18% from that day. On 2025-02-05 (the last
    /// day of 0%) USD 1.99 pays 1.99 × 0.7 = 1.393 → 1.39; on 2025-02-06 (the first day of
    /// 18%) 1.99 ÷ 1.18 × 0.7 = 1.1805… → 1.18. Worst cost USD 11.25 ÷ 7.1 × 1,500 ÷ 3,000
    /// = 0.7922…: margins 0.5977… (30.0%) and 0.3877… (19.5%).
    @Test(arguments: [
        (
            "2025-02-05",
            "osg@10 1500tks AZE USD 1.99 0.0% 30% standard 1.39 modelled 0.79 0.60 30.0%"
        ),
        (
            "2025-02-06",
            "osg@10 1500tks AZE USD 1.99 18.0% 30% standard 1.18 modelled 0.79 0.39 19.5%"
        ),
        // China's standard commission: 30% until 2026-03-14, 25% from 2026-03-15.
        // CNY 28 ÷ 1.009 × 70% = 19.425… → 19.43, × 75% = 20.812… → 20.81; less 11.25.
        (
            "2026-03-14",
            "osg@10 3000tks CHN CNY 28.00 0.9% 30% standard 19.43 modelled 11.25 8.18 29.2%"
        ),
        (
            "2026-03-15",
            "osg@10 3000tks CHN CNY 28.00 0.9% 25% standard 20.81 modelled 11.25 9.56 34.1%"
        ),
    ])
    func atTheLastAndFirstDayOfATax(at: String, row: String) throws {
        let r = try expectMargin(["storefronts", "osg@10", "--at", at], exits: 0)
        let rows = tableRows(r.stdout)
        #expect(
            rows.contains(row), "\(rows.filter { $0.contains(" AZE ") || $0.contains(" CHN ") })")
    }

    /// A pack priced below 0 (an error for `check`, `free-price`): its margin is shown, but
    /// no margin %, since −35.05 ÷ −28 would read as a 125.2% margin; a warning says so at
    /// the price. −28 × 85% = −23.80, less the worst case of 11.25.
    @Test func aNegativePackPriceHasNoMarginShare() throws {
        let dir = try Self.folder(prices: #"{ "currency": "CNY", "amount": "-28" }"#)
        defer { dir.cleanup() }
        let r = try expectMargin(
            ["packs", "osg@10"], in: dir.path, exits: 0,
            stderr: .contains(
                "RateCards/osg-v10.json:50:91: warning: pack \"3000tks\" is priced at CNY -28: a pack must cost money; its row has no margin % (a share of no price) [free-price]"
            ))
        let rows = tableRows(r.stdout)
        #expect(rows.contains("osg@10 3000tks 3,000 CNY −28.00 11.25 15% −23.80 −35.05 — asr"))
        #expect(rows.contains("osg@10 3000tks 3,000 CNY −28.00 11.25 30% −19.60 −30.85 — asr"))
        let json = try expectMargin(
            ["packs", "osg@10", "--format", "json"], in: dir.path, exits: 0)
        #expect(!json.stdout.contains("1.2517857"))
    }

    /// `plans --at` on the last day of Estonia's 22% VAT (2025-08-20) and the first of its
    /// 24% (2025-08-21), for talk.plus.monthly at EUR 3.99: year one (30%) pays 3.99 ÷ 1.22
    /// × 70% = 2.289… → 2.29, then 2.25; after a year (15%) 2.779… → 2.78, then 2.74. The
    /// month's worst case, CNY 14.25 ÷ 7.1 × 0.86 = EUR 1.726…, leaves 0.56 (14.1%) and
    /// 1.05 (26.4%), then 0.52 (13.1%) and 1.01 (25.4%).
    @Test(arguments: [
        (
            "2025-08-20",
            "talk@1 talk.plus.monthly EST EUR 3.99 22.0% standard 30% → 15% 2.29 0.56 14.1% 2.78 1.05 26.4%"
        ),
        (
            "2025-08-21",
            "talk@1 talk.plus.monthly EST EUR 3.99 24.0% standard 30% → 15% 2.25 0.52 13.1% 2.74 1.01 25.4%"
        ),
    ])
    func plansAtTheLastAndFirstDayOfATax(at: String, row: String) throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let dest = try PlansZeroPriceTests.plansExample(
            in: dir, replacing: #""prices": [ { "currency": "CNY", "amount": "28" } ]"#,
            with:
                #""prices": [ { "currency": "CNY", "amount": "28" }, { "currency": "EUR", "amount": "3.99" } ]"#,
            extra: ["storefronts.json", "fx.json"])
        let r = try expectMargin(["plans", "--cards", dest, "--at", at], exits: 0)
        let rows = tableRows(r.stdout)
        #expect(rows.contains(row), "\(rows.filter { $0.contains(" EST ") })")
    }

    /// `--fx USD/CNY=7 --fx USD/CNY=8` (or `--fx CNY/USD=0.2`) gives one pair twice: only
    /// one could be used, and the run said only that one. Bad usage, in every command that
    /// takes `--fx`.
    @Test(arguments: [
        ["packs", "osg@10"], ["storefronts", "osg@10"], ["plans"], ["diff", "osg@10", "osg@10"],
    ])
    func anFXPairGivenTwiceIsBadUsage(command: [String]) throws {
        try expectMargin(
            command + ["--fx", "USD/CNY=7", "--fx", "USD/CNY=8"], exits: 2, stdout: .empty,
            stderr: .contains(
                "margin: error: --fx: USD/CNY is given twice (USD/CNY 7 and USD/CNY 8); give each pair once"
            ))
        try expectMargin(
            command + ["--fx", "USD/CNY=7", "--fx", "CNY/USD=0.2"], exits: 2, stdout: .empty,
            stderr: .contains(
                "margin: error: --fx: CNY/USD is given twice (USD/CNY 7 and CNY/USD 0.2); give each pair once"
            ))
    }

    /// A negative card price is not "free" (a price of 0 is): `storefronts` says
    /// "negative price" where the margin share would be, in the table, CSV's `missing`
    /// column and JSON's `missing`, with `free` false. It said "free" before.
    @Test func aNegativePriceIsNotFreeInStorefronts() throws {
        let dir = try Self.folder(prices: #"{ "currency": "CNY", "amount": "-28" }"#)
        defer { dir.cleanup() }
        let args = ["storefronts", "osg@10", "--at", "2026-12-01"]
        let table = try expectMargin(args, in: dir.path, exits: 0)
        let row = table.stdout.split(separator: "\n").first {
            $0.hasPrefix("osg@10  3000tks  CHN ")
        }
        #expect(row?.hasSuffix("−32.06  negative price") == true, "\(row ?? "")")
        let csv = try expectMargin(args + ["--format", "csv"], in: dir.path, exits: 0)
        #expect(
            csv.stdout.contains(
                "\nosg@10,3000tks,CHN,CNY,-28,-20.81,modelled,11.25,-32.06,,negative price\n"))
        let json = try expectMargin(args + ["--format", "json"], in: dir.path, exits: 0)
        guard case .array(let cards)? = try JSONParser.parse(json.stdout)["cards"]?.value,
            case .array(let list)? = cards.first?["rows"]?.value
        else {
            Issue.record("no rows in \(json.stdout.prefix(400))")
            return
        }
        let chn = list.first {
            $0["territory"]?.value == .string("CHN") && $0["productId"]?.value == .string("3000tks")
        }
        #expect(chn?["free"]?.value == .bool(false))
        #expect(chn?["missing"]?.value == .string("negative price"))
        #expect(chn?["marginPercent"]?.value == .null)
    }

    /// `report` cannot draw a bar of a negative price: it stops (exit 2) naming the pack and
    /// its market, not only "chart bar '15%'".
    @Test func aNegativePriceInTheReportNamesThePack() throws {
        let dir = try Self.folder(prices: #"{ "currency": "CNY", "amount": "-28" }"#)
        defer { dir.cleanup() }
        try expectMargin(
            ["report", "--cards", "RateCards", "--out", "Reports"], in: dir.path, exits: 2,
            stderr: .contains(
                "RateCards/osg-v10.json:1:1: error: osg@10: chart bar '3000tks in CNY at 15%': price -28 is negative"
            ))
    }

    /// Two prices in one currency, EUR 2.99 everywhere and EUR 2.49 for France: the table
    /// and Markdown say which is France's ("EUR (FRA)", as the report does), CSV in a
    /// `storefront` column; they were two "EUR" rows no reader could tell apart. Worst case
    /// CNY 11.25 × 0.13 = EUR 1.4625; 2.49 × 70% − 1.4625 = 0.2805 (11.3%).
    @Test func aStorefrontPriceIsToldApartInPacks() throws {
        let dir = try Self.folder(
            prices:
                #"{ "currency": "CNY", "amount": "28" }, { "currency": "EUR", "amount": "2.99" }, { "currency": "EUR", "amount": "2.49", "storefront": "FRA" }"#
        )
        defer { dir.cleanup() }
        let args = ["packs", "osg@10", "--fx", "CNY/EUR=0.13"]
        let r = try expectMargin(args, in: dir.path, exits: 0)
        let rows = tableRows(r.stdout)
        #expect(rows.contains("osg@10 3000tks 3,000 EUR (FRA) 2.49 1.46 30% 1.74 0.28 11.3% asr"))
        #expect(rows.contains("osg@10 3000tks 3,000 EUR 2.99 1.46 30% 2.09 0.63 21.1% asr"))
        let md = try expectMargin(args + ["--format", "markdown"], in: dir.path, exits: 0)
        #expect(md.stdout.contains("| osg@10 | 3000tks | 3,000 | EUR (FRA) | 2.49 |"))
        let csv = try expectMargin(args + ["--format", "csv"], in: dir.path, exits: 0)
        #expect(
            csv.stdout.contains(
                "\nosg@10,pack,3000tks,3000,EUR,2.49,1.4625,0.3,1.743,0.2805,0.11265060241,asr,FRA\n"
            ))
        #expect(
            csv.stdout.contains(
                "\nosg@10,pack,3000tks,3000,EUR,2.99,1.4625,0.3,2.093,0.6305,0.210869565217,asr,\n"
            ))
    }

    /// `--commission 0.15,15%` names one rate twice: bad usage (exit 2), not two rows of
    /// every price at the same rate.
    @Test func aCommissionRateGivenTwiceIsBadUsage() throws {
        try expectMargin(
            ["packs", "osg@10", "--commission", "0.15,15%"], exits: 2, stdout: .empty,
            stderr: .contains(
                "margin: error: --commission 0.15,15%: '15%' is the same rate as one given before it"
            ))
    }
}
