import Foundation

@testable import RateCard

/// A seeded ledger and Apple transactions with every kind of disagreement mixed in, kept
/// both as structured values (for the oracle) and as the files the readers take.
struct GeneratedReconciliation {
    struct Purchase {
        let id: String
        let product: String
        let quantity: Int
        let currency: String
        let milliunits: Int64
        let purchaseMs: Int64
        let sandbox: Bool
        let revokedMs: Int64?
    }

    /// One ledger entry as written, in input order.
    struct Entry {
        let id: String
        let seconds: Int64
        let kind: String
        let amount: Int64
        let paymentRef: String?
        let device: String?
        let line: Int
    }

    var purchases: [Purchase] = []
    var entries: [Entry] = []
    var ledgerText = ""
    var appleText = ""

    static let packCredits = ["demo.credits.100": 100, "demo.credits.500": 500]
    static let month0: Int64 = 1_793_491_200  // 2026-11-01T00:00:00Z
    static let v2From: Int64 = 1_795_132_800  // 2026-11-20T00:00:00Z

    /// The card's price (milliunits) of a product in a currency at an instant (the fixture
    /// cards demo@1 and demo@2).
    static func cardMilliunits(_ product: String, _ currency: String, atSeconds s: Int64) -> Int64 {
        switch (product, currency) {
        case ("demo.credits.100", "GBP"): s >= v2From ? 1490 : 990
        case ("demo.credits.100", _): 990
        case ("demo.credits.500", "GBP"): 3990
        default: 4990
        }
    }

    init(seed: UInt64, transactions: Int, ledgerEntries: Int) {
        var rng = SplitMix64(seed: seed)
        func roll(_ n: UInt64) -> Int { Int(rng.next() % n) }
        let devices = max(1, transactions / 2)
        var line = 0
        var ledger: [String] = []
        ledger.reserveCapacity(ledgerEntries)
        func add(
            _ id: String, _ seconds: Int64, _ kind: String, _ amount: Int64, ref: String?,
            device: String?, feature: String? = nil
        ) {
            line += 1
            entries.append(
                Entry(
                    id: id, seconds: seconds, kind: kind, amount: amount, paymentRef: ref,
                    device: device, line: line))
            let at = Timestamp(seconds: seconds).rfc3339UTC
            var s = "{\"id\":\"\(id)\",\"at\":\"\(at)\",\"kind\":\"\(kind)\",\"amount\":\(amount)"
            if let feature { s += ",\"feature\":\"\(feature)\"" }
            if let ref { s += ",\"paymentRef\":\"\(ref)\"" }
            if let device { s += ",\"device\":\"\(device)\"" }
            ledger.append(s + "}")
        }
        var apple: [String] = []
        var next = 0
        for k in 0..<transactions {
            let id = String(3_000_000_000 + k)
            let product = roll(2) == 0 ? "demo.credits.100" : "demo.credits.500"
            let quantity = roll(10) == 0 ? 2 + roll(2) : 1
            let currency = roll(3) == 0 ? "USD" : "GBP"
            let purchase = Self.month0 + Int64(roll(30 * 86_400))
            var price = Self.cardMilliunits(product, currency, atSeconds: purchase)
            if roll(50) == 0 { price += 1000 }  // off the card
            let sandbox = roll(40) == 0
            let revoked: Int64? = roll(20) == 0 ? purchase + 3600 + Int64(roll(10 * 86_400)) : nil
            let p = Purchase(
                id: id, product: product, quantity: quantity, currency: currency,
                milliunits: price, purchaseMs: purchase * 1000 + Int64(roll(1000)),
                sandbox: sandbox, revokedMs: revoked.map { $0 * 1000 })
            purchases.append(p)
            var t =
                "{\"transactionId\":\"\(id)\",\"originalTransactionId\":\"\(id)\",\"productId\":\"\(product)\",\"purchaseDate\":\(p.purchaseMs),\"quantity\":\(quantity),\"type\":\"Consumable\",\"storefront\":\"\(currency == "GBP" ? "GBR" : "USA")\",\"currency\":\"\(currency)\",\"price\":\(price),\"environment\":\"\(sandbox ? "Sandbox" : "Production")\""
            if let r = p.revokedMs {
                t += ",\"revocationDate\":\(r),\"revocationReason\":\(roll(2))"
            }
            apple.append(t + "}")

            // What the app did with it.
            let device = "d\(roll(UInt64(devices)))"
            let expected = Int64(quantity * Self.packCredits[product]!)
            let topupAt = purchase + 1 + Int64(roll(600))
            let fate = roll(100)
            if fate < 3 { continue }  // never credited
            var credited = expected
            if fate < 5 { credited = expected + Int64(roll(2) == 0 ? -50 : 100) }  // wrong amount
            next += 1
            add("e\(next)", topupAt, "topup", credited, ref: id, device: device)
            if fate >= 5 && fate < 7 {  // credited twice
                next += 1
                add(
                    "e\(next)", topupAt + Int64(roll(60)), "topup", expected, ref: id,
                    device: device)
            }
            if let revoked {
                let handling = roll(3)
                if handling == 0 {
                    next += 1
                    add("e\(next)", revoked + 60, "revoke", -credited, ref: id, device: device)
                } else if handling == 1 {
                    next += 1
                    add(
                        "e\(next)", revoked + 60, "revoke", -max(1, credited / 2), ref: id,
                        device: device)
                }
            } else if fate == 99 {  // taken back with no refund
                next += 1
                add("e\(next)", topupAt + 86_400, "revoke", -credited, ref: id, device: device)
            }
        }
        // Credits with no transaction, and a revoke naming no transaction.
        for k in 0..<max(1, transactions / 100) {
            next += 1
            add(
                "e\(next)", Self.month0 + Int64(roll(30 * 86_400)), "topup", 100,
                ref: k % 2 == 0 ? "9\(k)" : nil, device: "d\(roll(UInt64(devices)))")
        }
        next += 1
        add("e\(next)", Self.month0 + 5, "revoke", -10, ref: "8000", device: "d0")
        // Spending fills the rest: charges, and refunds of some of them.
        while line < ledgerEntries {
            next += 1
            let device = "d\(roll(UInt64(devices)))"
            let at = Self.month0 + Int64(roll(40 * 86_400))
            let amount = Int64(1 + roll(80))
            add("e\(next)", at, "charge", -amount, ref: nil, device: device, feature: "chat")
            if roll(20) == 0, line < ledgerEntries {
                next += 1
                add(
                    "e\(next)", at + 5, "refund", amount, ref: nil, device: device, feature: "chat")
                // refundOf is written by `add` only through the kind: refunds name their charge.
                ledger[ledger.count - 1] =
                    String(ledger[ledger.count - 1].dropLast())
                    + ",\"refundOf\":\"e\(next - 1)\"}"
            }
        }
        ledgerText = ledger.joined(separator: "\n") + "\n"
        appleText = apple.joined(separator: "\n") + "\n"
    }
}
