/// Each pack in practice: what the devices that bought it spent their credits on, and
/// the margin the pack makes if its credits are spent in that mix, beside its worst case.
///
/// **Who bought which pack.** A top-up is matched to the pack of the "before" side's card
/// at its time (OLD, or the family version that charged it) with as many credits; when
/// several packs have that many, the one whose price the top-up recorded; otherwise it
/// matches none. A device is a buyer of a pack when every top-up it made matched that
/// one pack. A device that bought several packs (or made a top-up that matched none) is
/// counted as a mixed buyer and is in no pack's row: its spending cannot be split between
/// packs without a rule the ledger does not give. Grants are not purchases.
enum ReplayPacks {
    static func rows(ledger: ReplayLedger, plan: ReplayPlan) throws -> [ReplayReport.PackRow] {
        let (byPack, topups, _) = ledger.buyers()
        guard !ledger.packs.isEmpty else { return [] }
        // The card whose prices and worst case each side's margins use.
        let beforeCard =
            plan.old ?? plan.family.last(where: { $0.reference != plan.new.reference }) ?? plan.new
        let fx = plan.repository.fx
        let marginsBefore = try? PackMargins(
            card: beforeCard, repository: plan.repository, fx: fx, rates: plan.rates)
        let marginsAfter = try? PackMargins(
            card: plan.new, repository: plan.repository, fx: fx, rates: plan.rates)
        var out: [ReplayReport.PackRow] = []
        for (k, id) in ledger.packs.enumerated() {
            let buyers = byPack[UInt32(k)] ?? []
            var spent = ReplayUsage()
            var mix: [String: Int128] = [:]
            for (slot, u) in ledger.usage where buyers.contains(slot.device) {
                try spent.add(u)
                let name = String(decoding: ledger.features.bytes[Int(slot.feature)], as: UTF8.self)
                mix[name, default: 0] += u.creditsAfter
            }
            var prices: [ReplayReport.PackRow.Price] = []
            let rowsAfter = marginsAfter?.rows.filter { $0.pack.productId == id } ?? []
            let rowsBefore = marginsBefore?.rows.filter { $0.pack.productId == id } ?? []
            // One row per price of the pack on either side, at the highest commission.
            var seen: [Money] = []
            for r in rowsBefore + rowsAfter where !seen.contains(r.price.price) {
                seen.append(r.price.price)
                let before = rowsBefore.first { $0.price.price == r.price.price }
                let after = rowsAfter.first { $0.price.price == r.price.price }
                guard let line = (after ?? before)?.lines.max(by: { $0.rate < $1.rate }) else {
                    continue
                }
                func typical(_ row: PackMargins.Row?, credits: Int128, cost: Exact) throws -> Exact?
                {
                    guard let row, credits > 0 else { return nil }
                    let (factor, _) = try fx.factor(from: plan.currency, to: r.price.price.currency)
                    return try cost.divided(by: Exact(integer: credits))
                        .multiplied(by: Exact(integer: row.pack.credits)).multiplied(by: factor)
                }
                // As `PackMargins` puts it: the margin as a share of the price paid.
                func share(_ cost: Exact?, _ row: PackMargins.Row?) throws -> Exact? {
                    guard let cost, let row, let l = row.lines.max(by: { $0.rate < $1.rate }),
                        row.price.price.amount.isPositive
                    else { return nil }
                    return try l.proceeds.amount.subtracting(cost).divided(
                        by: row.price.price.amount)
                }
                let tb = try typical(before, credits: spent.creditsBefore, cost: spent.costBefore)
                let ta = try typical(after, credits: spent.creditsAfter, cost: spent.costAfter)
                prices.append(
                    ReplayReport.PackRow.Price(
                        price: r.price.price, commission: line.rate, proceeds: line.proceeds,
                        typicalBefore: tb, typicalAfter: ta,
                        typicalMarginBefore: try share(tb, before),
                        typicalMarginAfter: try share(ta, after),
                        worstMarginBefore: before?.lines.max(by: { $0.rate < $1.rate })?
                            .marginShare,
                        worstMarginAfter: after?.lines.max(by: { $0.rate < $1.rate })?.marginShare
                    ))
            }
            out.append(
                ReplayReport.PackRow(
                    pack: id, buyers: buyers.count, topups: topups[UInt32(k)] ?? 0,
                    creditsBefore: spent.creditsBefore, creditsAfter: spent.creditsAfter,
                    costBefore: spent.costBefore, costAfter: spent.costAfter,
                    mix: mix.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                    prices: prices))
        }
        return out.sorted { $0.pack < $1.pack }
    }
}
