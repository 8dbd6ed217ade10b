import Foundation

@testable import RateCard

/// First in, first out written apart from `ProceedsValuer`, from the generator's own values
/// (not the readers' output): each account holds its credits one by one, each marked with
/// the lot it came from, in lot order; a charge takes them from the front, a refund puts
/// them back in order, a revoke takes the named lot's first. The value of a credit is worked
/// from the report lines the generator wrote.
struct ProceedsOracle {
    struct Result: Equatable {
        var value: [String: Exact] = [:]
        var credits: [String: Int128] = [:]
        var byBasis: [String: Int128] = [:]
        var paidLeft: Int128 = 0
        var liabilityValue = Exact.zero
        var liabilityBreakage = Exact.zero
        var freeLeft: Int128 = 0
        var breakage = Exact.zero
        var lapsedPaid: Int128 = 0
        var lapsedFree: Int128 = 0
        var takenBack: Int128 = 0
        /// Per ISO week (`2026-W45`, by Foundation's ISO 8601 calendar in UTC) and feature:
        /// the credits kept and their value, each charge and refund in its own week.
        var weekCredits: [String: [String: Int128]] = [:]
        var weekValue: [String: [String: Exact]] = [:]
    }

    let g: GeneratedProceeds
    let since: Int64?
    let now: Int64
    let until: Int64?
    let modelled = exact("0.005")
    let expiry: Int64 = 30 * 86_400
    let factor = exact("0.25")  // 0.2 ÷ (1 − 0.2)

    /// Pacific standard time, as Apple's reports.
    /// The ISO week of a UNIX time in UTC, worked by Foundation's calendar (not the
    /// engine's `CalendarPeriod`).
    static func isoWeek(_ seconds: Int64) -> String {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents(
            [.yearForWeekOfYear, .weekOfYear], from: Date(timeIntervalSince1970: Double(seconds)))
        let week = c.weekOfYear ?? 0
        return "\(c.yearForWeekOfYear ?? 0)-W\(week < 10 ? "0" : "")\(week)"
    }

    static func day(_ s: Int64) -> Int64 {
        (s - 8 * 3600 - (s - 8 * 3600 < 0 ? 86_399 : 0)) / 86_400
    }
    static let nov1 = day(1_793_491_200 + 8 * 3600)
    static func fxFactor(_ currency: String) -> Exact {
        currency == "USD" ? exact(GeneratedProceeds.usdToGBP) : .one
    }

    /// The lines of each source whose period holds `day`: financial 11/01–11/28, sales
    /// 11/01–11/30, financial first.
    func sources(_ day: Int64) -> [[GeneratedProceeds.ReportLine]] {
        let offset = day - Self.nov1
        var out: [[GeneratedProceeds.ReportLine]] = []
        if offset >= 0 && offset < 28 { out.append(g.lines.filter(\.financial)) }
        if offset >= 0 && offset < 30 { out.append(g.lines.filter { !$0.financial }) }
        return out
    }

    /// Σ proceeds ÷ Σ credits of `lines`, in GBP; nil without credits.
    func rate(_ lines: [GeneratedProceeds.ReportLine]) -> Exact? {
        var proceeds = Exact.zero
        var credits = 0
        for l in lines {
            let net = l.sold - l.refunded
            proceeds = try! proceeds.adding(
                try! Exact(Int128(net * l.cents), over: 100).multiplied(
                    by: Self.fxFactor(l.currency)))
            credits += net * (GeneratedProceeds.packCredits[l.product] ?? 0)
        }
        return credits > 0 ? try! proceeds.divided(by: Exact(integer: Int128(credits))) : nil
    }

    func productRate(_ product: String, _ currency: String?, _ day: Int64) -> Exact? {
        for lines in sources(day) {
            if let r = rate(
                lines.filter {
                    $0.product == product && (currency == nil || $0.currency == currency)
                })
            {
                return r
            }
        }
        return nil
    }

    func periodRate(_ day: Int64) -> Exact? {
        for lines in sources(day) { if let r = rate(lines) { return r } }
        return nil
    }

    struct Lot {
        let id: Int
        let rate: Exact
        let basis: String
        let free: Bool
        let opened: Int64
        var credits: Int128
        var lapsed = false
        var lapsedLeft: Int128 = 0
    }

    func run() -> Result {
        var out = Result()
        let end = until ?? now
        let rank = ["grant": 0, "topup": 0, "charge": 1, "refund": 2, "revoke": 3]
        let byID = Dictionary(uniqueKeysWithValues: g.entries.map { ($0.id, $0) })
        // The refund pnl counts of each charge: valid, the earliest.
        var counted: [String: String] = [:]  // refund id → charge id
        var firstOf: [String: GeneratedProceeds.Entry] = [:]
        for e in g.entries where e.kind == "refund" {
            guard let c = byID[e.refundOf ?? ""], c.kind == "charge", c.feature == e.feature,
                e.amount <= -c.amount
            else { continue }
            if let f = firstOf[c.id], f.seconds <= e.seconds { continue }
            firstOf[c.id] = e
        }
        for (c, r) in firstOf { counted[r.id] = c }
        let accounts = Dictionary(grouping: g.entries) { $0.device ?? "\u{10FFFF}" }
        for (_, list) in accounts {
            func h(_ id: String) -> UInt64 {
                Array(id.utf8).withUnsafeBufferPointer {
                    TakingsHash.id($0.baseAddress!, $0.count).0
                }
            }
            let sorted = list.sorted {
                ($0.seconds, rank[$0.kind] ?? 9, h($0.id)) < (
                    $1.seconds, rank[$1.kind] ?? 9, h($1.id)
                )
            }
            var lots: [Lot] = []
            var held: [Int] = []  // one element per credit: its lot, ascending
            var taken: [String: (lots: [Int], unbacked: Int128, rate: Exact)] = [:]
            var refOfLot: [Int: String] = [:]
            var checkpoints = ([since].compactMap { $0 }.map { ($0, 0) } + [(now, 1), (end, 2)])
                .sorted { $0.0 < $1.0 }
            func used(_ l: Lot) -> Int128 { l.credits - Int128(held.filter { $0 == l.id }.count) }
            func breakage(_ l: Lot) -> Exact {
                if l.lapsed { return Exact(integer: l.lapsedLeft) }
                let left = Int128(held.filter { $0 == l.id }.count)
                return min(
                    try! Exact(integer: used(l)).multiplied(by: factor), Exact(integer: left))
            }
            func lapse(_ t: Int64) {
                for k in lots.indices where !lots[k].lapsed && lots[k].opened + expiry <= t {
                    let left = Int128(held.filter { $0 == k }.count)
                    held.removeAll { $0 == k }
                    lots[k].lapsed = true
                    lots[k].lapsedLeft = left
                    let when = lots[k].opened + expiry
                    if (since.map { when >= $0 } ?? true) && when < end {
                        if lots[k].free { out.lapsedFree += left } else { out.lapsedPaid += left }
                    }
                }
            }
            var atStart = Exact.zero
            var atEnd = Exact.zero
            func snapshot(upTo t: Int64?) {
                while let c = checkpoints.first, t.map({ c.0 <= $0 }) ?? true {
                    checkpoints.removeFirst()
                    lapse(c.0)
                    for l in lots where !l.free {
                        let b = try! l.rate.multiplied(by: breakage(l))
                        if c.1 == 0 { atStart = try! atStart.adding(b) }
                        if c.1 == 2 { atEnd = try! atEnd.adding(b) }
                    }
                    if c.1 == 1 {
                        for l in lots where !l.lapsed {
                            let left = Int128(held.filter { $0 == l.id }.count)
                            guard left > 0 else { continue }
                            if l.free {
                                out.freeLeft += left
                            } else {
                                out.paidLeft += left
                                out.liabilityValue = try! out.liabilityValue.adding(
                                    l.rate.multiplied(by: Exact(integer: left)))
                                out.liabilityBreakage = try! out.liabilityBreakage.adding(
                                    l.rate.multiplied(by: breakage(l)))
                            }
                        }
                    }
                }
            }
            func use(_ feature: String, _ basis: String, _ rate: Exact, _ n: Int128, _ t: Int64) {
                guard (since.map { t >= $0 } ?? true) && (until.map { t < $0 } ?? true) else {
                    return
                }
                out.credits[feature, default: 0] += n
                out.byBasis[basis, default: 0] += n
                out.value[feature] = try! out.value[feature, default: .zero].adding(
                    rate.multiplied(by: Exact(integer: n)))
                let week = Self.isoWeek(t)
                out.weekCredits[week, default: [:]][feature, default: 0] += n
                let was = out.weekValue[week]?[feature] ?? .zero
                out.weekValue[week, default: [:]][feature] = try! was.adding(
                    rate.multiplied(by: Exact(integer: n)))
            }
            for e in sorted {
                snapshot(upTo: e.seconds)
                lapse(e.seconds)
                let day = Self.day(e.seconds)
                switch e.kind {
                case "grant", "topup":
                    var rate = Exact.zero
                    var basis = "free"
                    if e.kind == "topup" {
                        if let ref = e.paymentRef, let p = g.purchases[ref] {
                            if p.sandbox {
                                basis = "sandbox"
                            } else if p.revoked {
                                basis = "refunded"
                            } else if let r = productRate(
                                p.product, p.currency, Self.day(p.purchaseSeconds))
                            {
                                (rate, basis) = (r, "transaction")
                            } else if let r = periodRate(day) {
                                (rate, basis) = (r, "period")
                            } else {
                                (rate, basis) = (modelled, "modelled")
                            }
                        } else {
                            let product = GeneratedProceeds.packCredits.first {
                                $0.value == e.amount
                            }?.key
                            let currency = e.price.map { String($0.prefix(3)) }
                            if let product, let r = productRate(product, currency, day) {
                                (rate, basis) = (r, "transaction")
                            } else if let r = periodRate(day) {
                                (rate, basis) = (r, "period")
                            } else {
                                (rate, basis) = (modelled, "modelled")
                            }
                        }
                    }
                    let k = lots.count
                    lots.append(
                        Lot(
                            id: k, rate: rate, basis: basis, free: e.kind == "grant",
                            opened: e.seconds,
                            credits: Int128(e.amount)))
                    if let ref = e.paymentRef { refOfLot[k] = ref }
                    held.append(contentsOf: Array(repeating: k, count: Int(e.amount)))
                case "charge":
                    let want = Int(-e.amount)
                    let got = Array(held.prefix(want))
                    held.removeFirst(got.count)
                    for k in got { use(e.feature ?? "", lots[k].basis, lots[k].rate, 1, e.seconds) }
                    let rest = Int128(want - got.count)
                    var unbackedRate = Exact.zero
                    if rest > 0 {
                        let r = periodRate(day)
                        unbackedRate = r ?? modelled
                        use(
                            e.feature ?? "", r == nil ? "modelled" : "period", unbackedRate, rest,
                            e.seconds)
                    }
                    taken[e.id] = (got, rest, unbackedRate)
                case "refund":
                    guard let c = counted[e.id], var t = taken[c] else { continue }
                    var back = Int128(e.amount)
                    let fromUnbacked = min(back, t.unbacked)
                    if fromUnbacked > 0 {
                        let basis =
                            periodRate(Self.day(byID[c]!.seconds)) == nil ? "modelled" : "period"
                        use(e.feature ?? "", basis, t.rate, -fromUnbacked, e.seconds)
                        t.unbacked -= fromUnbacked
                        back -= fromUnbacked
                    }
                    while back > 0, let k = t.lots.last {
                        t.lots.removeLast()
                        back -= 1
                        use(e.feature ?? "", lots[k].basis, lots[k].rate, -1, e.seconds)
                        if lots[k].lapsed {
                            lots[k].lapsedLeft += 1
                            if (since.map { e.seconds >= $0 } ?? true)
                                && (until.map { e.seconds < $0 } ?? true)
                            {
                                if lots[k].free { out.lapsedFree += 1 } else { out.lapsedPaid += 1 }
                            }
                        } else {
                            let at = held.firstIndex { $0 > k } ?? held.count
                            held.insert(k, at: at)
                        }
                    }
                    taken[c] = t
                case "revoke":
                    var want = Int(-e.amount)
                    if let ref = e.paymentRef,
                        let k = lots.indices.last(where: { !lots[$0].free && refOfLot[$0] == ref }),
                        !lots[k].lapsed
                    {
                        let mine = held.indices.filter { held[$0] == k }.prefix(want)
                        for i in mine.reversed() { held.remove(at: i) }
                        lots[k].credits -= Int128(mine.count)
                        want -= mine.count
                    }
                    let front = Array(held.prefix(want))
                    held.removeFirst(front.count)
                    for k in front { lots[k].credits -= 1 }
                    out.takenBack += Int128(Int(-e.amount) - want + front.count)
                default: break
                }
            }
            snapshot(upTo: nil)
            // The breakage in the window: Σ rate × (at the end − at the start), lot by lot.
            out.breakage = try! out.breakage.adding(atEnd.subtracting(atStart))
        }
        return out
    }
}
