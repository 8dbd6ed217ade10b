@testable import RateCard

/// An independent matcher for generated data: it works from the generator's own values
/// (never from the readers' output) with the rules of docs/reconcile.md written out
/// plainly, and gives each finding as one line of text to compare as a multiset.
enum ReconcileOracle {
    static func findings(_ g: GeneratedReconciliation) -> [String] {
        var out: [String] = []
        let byID = Dictionary(uniqueKeysWithValues: g.purchases.map { ($0.id, $0) })
        var topups: [String: [GeneratedReconciliation.Entry]] = [:]
        var revokes: [String: [GeneratedReconciliation.Entry]] = [:]
        var spendByDevice: [String: [GeneratedReconciliation.Entry]] = [:]
        for e in g.entries {
            switch e.kind {
            case "topup": if let r = e.paymentRef { topups[r, default: []].append(e) }
            case "revoke": revokes[e.paymentRef ?? "", default: []].append(e)
            default: if let d = e.device { spendByDevice[d, default: []].append(e) }
            }
        }
        func money(_ p: GeneratedReconciliation.Purchase, _ credits: Int64) -> String {
            let expected = Int64(p.quantity * GeneratedReconciliation.packCredits[p.product]!)
            // price × quantity × credits / expected, in milliunits, as an exact fraction.
            let total = try! Exact(Int128(p.milliunits) * Int128(p.quantity), over: 1000)
            let share = try! total.multiplied(by: Exact(Int128(credits), over: Int128(expected)))
            return "\(p.currency) \(share.decimalText())"
        }
        func line(
            _ kind: String, _ e: GeneratedReconciliation.Entry?, _ txn: String?, _ credits: Int64,
            spent: Int64? = nil, money: String? = nil
        ) -> String {
            "\(kind)|\(e?.line ?? 0)|\(txn ?? "")|\(credits)|\(spent.map(String.init) ?? "")|\(money ?? "")"
        }
        for p in g.purchases {
            let tops = (topups[p.id] ?? []).sorted { ($0.seconds, $0.id) < ($1.seconds, $1.id) }
            let expected = Int64(p.quantity * GeneratedReconciliation.packCredits[p.product]!)
            if p.sandbox {
                for t in tops { out.append(line("sandbox-in-production", t, p.id, t.amount)) }
                continue
            }
            let card = GeneratedReconciliation.cardMilliunits(
                p.product, p.currency, atSeconds: p.purchaseMs / 1000)
            if card != p.milliunits {
                let diff = try! Exact(Int128(p.milliunits - card) * Int128(p.quantity), over: 1000)
                out.append(
                    line(
                        "price-differs", tops.first, p.id, expected,
                        money: "\(p.currency) \(diff.decimalText())"))
            }
            let taken = (revokes[p.id] ?? []).reduce(Int64(0)) { $0 - $1.amount }
            guard let first = tops.first else {
                if p.revokedMs == nil {
                    out.append(
                        line("never-credited", nil, p.id, expected, money: money(p, expected)))
                }
                if taken > 0 {
                    out.append(line("revoked-without-refund", revokes[p.id]![0], p.id, taken))
                }
                continue
            }
            if first.amount != expected {
                let short = expected - first.amount
                out.append(line("credits-differ", first, p.id, short, money: money(p, short)))
            }
            for extra in tops.dropFirst() {
                out.append(
                    line(
                        "duplicate-credit", extra, p.id, extra.amount, money: money(p, extra.amount)
                    ))
            }
            let credited = tops.reduce(Int64(0)) { $0 + $1.amount }
            if p.revokedMs != nil {
                let notBack = credited - taken
                if notBack > 0 {
                    var since: Int64 = 0
                    for e in spendByDevice[first.device ?? ""] ?? []
                    where e.seconds >= first.seconds {
                        since -= e.amount
                    }
                    out.append(
                        line(
                            "refund-not-taken-back", first, p.id, notBack,
                            spent: min(notBack, max(0, since)), money: money(p, notBack)))
                }
            } else if taken > 0 {
                out.append(
                    line(
                        "revoked-without-refund", revokes[p.id]![0], p.id, taken,
                        money: money(p, taken)))
            }
        }
        for e in g.entries where e.kind == "topup" && (e.paymentRef.map { byID[$0] == nil } ?? true)
        {
            out.append(line("no-apple-transaction", e, e.paymentRef, e.amount))
        }
        for e in g.entries where e.kind == "revoke" && byID[e.paymentRef ?? ""] == nil {
            out.append(line("revoked-without-refund", e, e.paymentRef, -e.amount))
        }
        return out.sorted()
    }

    /// The engine's findings in the oracle's form.
    static func lines(_ r: Reconciliation) -> [String] {
        r.findings.map { f in
            "\(f.kind.rawValue)|\(f.ledger?.line ?? 0)|\(f.transactionId ?? "")|\(f.credits)|\(f.spentSince.map { String($0) } ?? "")|\(f.money.map { "\($0.currency.code) \($0.amount.decimalText())" } ?? "")"
        }.sorted()
    }
}
