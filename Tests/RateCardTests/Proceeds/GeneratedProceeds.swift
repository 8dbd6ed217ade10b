import Foundation

@testable import RateCard

/// A seeded ledger of many accounts, Apple transactions and a financial and a sales report,
/// kept both as the generator's own values (for `ProceedsOracle`) and as the files the
/// readers take. Every case of the proceeds pass is mixed in: grants, top-ups tied to a
/// production, sandbox or refunded purchase, top-ups with a price and no transaction,
/// top-ups of no pack, charges beyond the account's lots, partial and second refunds, a
/// refund of another feature, revokes of a named purchase and beyond the balance, entries
/// of no account, days no report covers, lots that lapse.
struct GeneratedProceeds {
    struct Purchase {
        let product: String
        let currency: String
        let purchaseSeconds: Int64
        let sandbox: Bool
        let revoked: Bool
    }

    struct Entry {
        let id: String
        let seconds: Int64
        let kind: String
        let amount: Int64
        let device: String?
        let feature: String?
        let refundOf: String?
        let paymentRef: String?
        let price: String?
    }

    /// Per report, product and currency: units sold, refunded and the proceeds per unit.
    struct ReportLine {
        let financial: Bool
        let product: String
        let currency: String
        let sold: Int
        let refunded: Int
        /// Per unit, in hundredths of the currency.
        let cents: Int
    }

    var purchases: [String: Purchase] = [:]
    var entries: [Entry] = []
    var lines: [ReportLine] = []
    var ledgerText = ""
    var transactionsText = ""
    var financialText = ""
    var salesText = ""

    static let packCredits = ["demo.credits.100": 100, "demo.credits.500": 500]
    static let oct25: Int64 = 1_792_886_400  // 2026-10-25T00:00:00Z
    static let usdToGBP = "0.80"

    init(seed: UInt64, accounts: Int, entriesPerAccount: Int) {
        var rng = SplitMix64(seed: seed)
        func roll(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        for financial in [true, false] {
            for product in ["demo.credits.100", "demo.credits.500"] {
                for currency in ["GBP", "USD"] {
                    let sold = roll(8)
                    lines.append(
                        ReportLine(
                            financial: financial, product: product, currency: currency,
                            sold: sold, refunded: sold == 0 ? 0 : roll(sold + 1),
                            cents: 30 + roll(400)))
                }
            }
        }
        var n = 0
        var txn = 3_000_000_000
        func at(_ day: Int) -> Int64 { Self.oct25 + Int64(day) * 86_400 + Int64(roll(86_000)) }
        for a in 0..<accounts {
            let device: String? = a == accounts - 1 ? nil : "acct\(a)"
            var charges: [(id: String, seconds: Int64, amount: Int64, feature: String)] = []
            var refsOfAccount: [String] = []
            for _ in 0..<entriesPerAccount {
                n += 1
                let id = "p\(n)"
                let day = roll(48)  // 2026-10-25 … 2026-12-11
                let s = at(day)
                switch roll(20) {
                case 0, 1:
                    entries.append(
                        Entry(
                            id: id, seconds: s, kind: "grant", amount: Int64(10 * (1 + roll(10))),
                            device: device, feature: nil, refundOf: nil, paymentRef: nil,
                            price: nil))
                case 2, 3, 4, 5:
                    let product = roll(2) == 0 ? "demo.credits.100" : "demo.credits.500"
                    let currency = roll(3) == 0 ? "USD" : "GBP"
                    var amount = Int64(Self.packCredits[product] ?? 0)
                    var ref: String?
                    var price: String?
                    switch roll(10) {
                    case 0:
                        price = "\(currency) 1.00"  // no transaction: the pack by credits
                    case 1:
                        amount = 200  // no pack grants 200: the period's rate
                    case 2:
                        ref = "9\(n)"  // a transaction Apple does not know
                    default:
                        txn += 1
                        ref = "\(txn)"
                        let bought = s - Int64(roll(600))
                        purchases["\(txn)"] = Purchase(
                            product: product, currency: currency, purchaseSeconds: bought,
                            sandbox: roll(15) == 0, revoked: roll(8) == 0)
                        refsOfAccount.append("\(txn)")
                    }
                    entries.append(
                        Entry(
                            id: id, seconds: s, kind: "topup", amount: amount, device: device,
                            feature: nil, refundOf: nil, paymentRef: ref, price: price))
                case 6:
                    guard let ref = refsOfAccount.randomElement(using: &rng) else { continue }
                    entries.append(
                        Entry(
                            id: id, seconds: s, kind: "revoke", amount: -Int64(1 + roll(300)),
                            device: device, feature: nil, refundOf: nil, paymentRef: ref,
                            price: nil))
                case 7, 8:
                    guard let c = charges.randomElement(using: &rng) else { continue }
                    // A refund, later than its charge: whole, part, or of another feature.
                    let whole = roll(3) > 0
                    let other = roll(10) == 0
                    entries.append(
                        Entry(
                            id: id, seconds: c.seconds + 60 + Int64(roll(5 * 86_400)),
                            kind: "refund",
                            amount: whole ? c.amount : max(1, c.amount / 2), device: device,
                            feature: other ? (c.feature == "chat" ? "voice" : "chat") : c.feature,
                            refundOf: c.id, paymentRef: nil, price: nil))
                default:
                    let amount = Int64(10 * (1 + roll(15)))
                    let feature = roll(3) == 0 ? "voice" : "chat"
                    entries.append(
                        Entry(
                            id: id, seconds: s, kind: "charge", amount: -amount, device: device,
                            feature: feature, refundOf: nil, paymentRef: nil, price: nil))
                    charges.append((id, s, amount, feature))
                }
            }
        }
        var rows: [String] = []
        for k in entries.indices.shuffled(using: &rng) {
            let e = entries[k]
            var fields = [
                "\"id\":\"\(e.id)\"", "\"at\":\"\(Timestamp(seconds: e.seconds).rfc3339UTC)\"",
                "\"kind\":\"\(e.kind)\"", "\"amount\":\(e.amount)",
            ]
            if let f = e.feature { fields.append("\"feature\":\"\(f)\"") }
            if let r = e.refundOf { fields.append("\"refundOf\":\"\(r)\"") }
            if let p = e.paymentRef { fields.append("\"paymentRef\":\"\(p)\"") }
            if let p = e.price { fields.append("\"price\":\"\(p)\"") }
            if let d = e.device { fields.append("\"device\":\"\(d)\"") }
            rows.append("{" + fields.joined(separator: ",") + "}")
        }
        ledgerText = rows.joined(separator: "\n") + "\n"
        var apple: [String] = []
        for (id, p) in purchases.sorted(by: { $0.key < $1.key }) {
            let ms = p.purchaseSeconds * 1000
            var t =
                "{\"transactionId\":\"\(id)\",\"originalTransactionId\":\"\(id)\",\"bundleId\":\"app.demo\",\"productId\":\"\(p.product)\",\"purchaseDate\":\(ms),\"originalPurchaseDate\":\(ms),\"quantity\":1,\"type\":\"Consumable\",\"inAppOwnershipType\":\"PURCHASED\",\"signedDate\":\(ms),\"environment\":\"\(p.sandbox ? "Sandbox" : "Production")\",\"transactionReason\":\"PURCHASE\",\"storefront\":\"\(p.currency == "GBP" ? "GBR" : "USA")\",\"storefrontId\":\"143444\",\"currency\":\"\(p.currency)\",\"price\":990"
            if p.revoked { t += ",\"revocationDate\":\(ms + 3_600_000),\"revocationReason\":0" }
            apple.append(t + "}")
        }
        transactionsText = apple.joined(separator: "\n") + "\n"
        financialText = Self.report(lines.filter(\.financial), financial: true)
        salesText = Self.report(lines.filter { !$0.financial }, financial: false)
    }

    static func decimal(cents: Int) -> String {
        "\(cents / 100).\(String(format: "%02d", cents % 100))"
    }

    /// A report in Apple's shape (the fixture's header), one sale row and one refund row per
    /// line.
    static func report(_ lines: [ReportLine], financial: Bool) -> String {
        let fixture = packageRoot.appendingPathComponent(
            "Tests/RateCardTests/Fixtures/Apple/\(financial ? "financial" : "sales")-2026-11.txt")
        let header =
            (try? String(contentsOf: fixture, encoding: .utf8))?
            .split(separator: "\n").first.map(String.init) ?? ""
        let columns = header.split(separator: "\t", omittingEmptySubsequences: false).map(
            String.init)
        var out = [header]
        for l in lines {
            for (units, sign) in [(l.sold, 1), (l.refunded, -1)] where units > 0 {
                let u = units * sign
                let per = decimal(cents: l.cents)
                let country = l.currency == "GBP" ? "GB" : "US"
                let values: [String: String] =
                    financial
                    ? [
                        "Start Date": "11/01/2026", "End Date": "11/28/2026",
                        "Vendor Identifier": l.product, "Quantity": "\(u)", "Partner Share": per,
                        "Extended Partner Share": (sign < 0 ? "-" : "")
                            + decimal(cents: units * l.cents),
                        "Partner Share Currency": l.currency,
                        "Sale or Return": sign < 0 ? "R" : "S",
                        "Country Of Sale": country, "Customer Price": sign < 0 ? "-0.99" : "0.99",
                        "Customer Currency": l.currency, "Product Type Identifier": "IA1",
                    ]
                    : [
                        "Provider": "APPLE", "Provider Country": "US", "SKU": l.product,
                        "Product Type Identifier": "IA1", "Units": "\(u)",
                        "Developer Proceeds": per, "Begin Date": "11/01/2026",
                        "End Date": "11/30/2026", "Customer Currency": l.currency,
                        "Country Code": country, "Currency of Proceeds": l.currency,
                        "Customer Price": sign < 0 ? "-0.99" : "0.99",
                    ]
                out.append(columns.map { values[$0] ?? "" }.joined(separator: "\t"))
            }
        }
        return out.joined(separator: "\n") + "\n"
    }
}
