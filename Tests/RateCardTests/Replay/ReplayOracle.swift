import Foundation

@testable import RateCard

/// An independent re-pricer for the replay tests: its own card model, its own exact
/// rationals and brute-force arithmetic (intervals counted one by one, the local weekday
/// and hour worked out from the epoch), sharing no code with the engine beyond the files
/// it writes for it. It answers what `margin replay` must report for a generated ledger.
enum ReplayOracle {
    /// An exact rational on 128-bit integers, always reduced, denominator positive.
    struct Q: Equatable, CustomStringConvertible {
        let n: Int128
        let d: Int128

        init(_ n: Int128, _ d: Int128 = 1) {
            precondition(d != 0)
            var a = n.magnitude
            var b = d.magnitude
            while b != 0 { (a, b) = (b, a % b) }
            let g = Int128(max(a, 1))
            let sign: Int128 = (n < 0) != (d < 0) ? -1 : 1
            self.n = sign * Int128(n.magnitude) / g
            self.d = Int128(d.magnitude) / g
        }

        static let zero = Q(0)
        static func + (a: Q, b: Q) -> Q { Q(a.n * b.d + b.n * a.d, a.d * b.d) }
        static func * (a: Q, b: Q) -> Q { Q(a.n * b.n, a.d * b.d) }
        static func / (a: Q, b: Q) -> Q { Q(a.n * b.d, a.d * b.n) }
        static func < (a: Q, b: Q) -> Bool { a.n * b.d < b.n * a.d }
        var description: String { d == 1 ? "\(n)" : "\(n)/\(d)" }

        /// Parses "0.35", "7.10", "3".
        init(decimal s: String) {
            let parts = s.split(separator: ".")
            let whole = Int128(parts[0])!
            guard parts.count == 2 else {
                self.init(whole)
                return
            }
            var scale: Int128 = 1
            for _ in parts[1] { scale *= 10 }
            self.init(whole * scale + Int128(parts[1])!, scale)
        }

        func exact() -> Exact { try! Exact(n, over: d) }
    }

    struct Dim {
        let name: String
        let unit: String
        let credits: Int128
        let per: Int128
        let rounding: String
        /// Sheet id and meter key, or nil for no running cost.
        let meter: (sheet: String, key: String)?
    }

    struct Feature {
        let key: String
        let dims: [Dim]
        /// One `event` dimension: a charge without quantity is one use.
        var perUse: Bool { dims.count == 1 && dims[0].unit == "event" }
    }

    struct Card {
        let id: String
        let version: Int
        let effective: String
        let features: [Feature]
    }

    struct Meter {
        let key: String
        let unit: String
        let per: Int128
        let prices: [Q]
        let increment: Int128?
        let minimum: Int128?
    }

    struct Window {
        let period: String
        let days: [Int]
        let from: Int
        let until: Int
    }

    struct Schedule {
        let offsetMinutes: Int
        let defaultPeriod: String
        let windows: [Window]
        let multipliers: [String: Q]
    }

    struct Sheet {
        let id: String
        let currency: String
        let meters: [Meter]
        let schedule: Schedule?
    }

    /// One ledger entry as the generator wrote it.
    struct Entry {
        let id: String
        let seconds: Int64
        let offsetMinutes: Int
        let kind: String
        let amount: Int64
        let feature: String?
        let quantity: [(String, Int128)]?
        let device: String?
        let refundOf: String?
        let balanceAfter: Int64?
    }

    // MARK: Pricing by brute force

    /// Credits for `q` units of a dimension, counting intervals one at a time; nil for a
    /// quantity that is not a whole number of intervals under exact rounding.
    static func credits(_ q: Int128, _ d: Dim) -> Int128? {
        var n: Int128 = 0
        switch d.rounding {
        case "up":
            while n * d.per < q { n += 1 }
        default:
            while (n + 1) * d.per <= q { n += 1 }
            if d.rounding == "exact", n * d.per != q { return nil }
        }
        return n * d.credits
    }

    /// The ISO weekday (1 = Monday) and second of the day at `offset` minutes east.
    static func local(_ seconds: Int64, offset: Int) -> (weekday: Int, second: Int) {
        let t = seconds + Int64(offset) * 60
        var day = t / 86_400
        var sec = t % 86_400
        if sec < 0 {
            sec += 86_400
            day -= 1
        }
        // 1970-01-01 was a Thursday.
        var w = Int((day + 3) % 7)
        if w < 0 { w += 7 }
        return (w + 1, Int(sec))
    }

    static func multiplier(_ s: Schedule?, at seconds: Int64) -> Q {
        guard let s else { return Q(1) }
        let (w, sec) = local(seconds, offset: s.offsetMinutes)
        var period = s.defaultPeriod
        for win in s.windows where win.days.contains(w) && sec >= win.from && sec < win.until {
            period = win.period
            break
        }
        return s.multipliers[period] ?? Q(1)
    }

    /// The provider cost of a request in CNY, `usdToCNY` converting the USD sheets.
    static func cost(
        _ f: Feature, _ q: [String: Int128], at seconds: Int64, sheets: [String: Sheet],
        usdToCNY: Q
    ) -> Q {
        var total = Q.zero
        for d in f.dims {
            guard let units = q[d.name], units > 0, let (sid, key) = d.meter else { continue }
            let sheet = sheets[sid]!
            let m = sheet.meters.first { $0.key == key }!
            var billed = units
            if let inc = m.increment {
                var k: Int128 = 0
                while k * inc < units { k += 1 }
                billed = k * inc
            }
            if let minimum = m.minimum, billed < minimum { billed = minimum }
            var worst = m.prices[0]
            for p in m.prices where worst < p { worst = p }
            var amount = Q(billed) * worst / Q(m.per) * multiplier(sheet.schedule, at: seconds)
            if sheet.currency == "USD" { amount = amount * usdToCNY }
            total = total + amount
        }
        return total
    }

    enum Priced {
        case priced(credits: Int128, cost: Q)
        case not
    }

    /// One side: `card` nil is the ledger's own credits, costed by `ledgerCard`.
    static func price(
        _ e: Entry, card: Card?, ledgerCard: Card, sheets: [String: Sheet], usdToCNY: Q
    ) -> Priced {
        let c = card ?? ledgerCard
        guard let key = e.feature, let f = c.features.first(where: { $0.key == key }) else {
            return .not
        }
        var q: [String: Int128] = [:]
        for (name, v) in e.quantity ?? [] {
            guard f.dims.contains(where: { $0.name == name }) else { return .not }
            q[name] = v
        }
        if q.isEmpty {
            if f.perUse {
                q[f.dims[0].name] = 1
            } else if card != nil || f.dims.contains(where: { $0.meter != nil }) {
                return .not
            }
        }
        var charged: Int128 = -Int128(e.amount)
        if card != nil {
            charged = 0
            for d in f.dims {
                guard let c = credits(q[d.name] ?? 0, d) else { return .not }
                charged += c
            }
        }
        return .priced(
            credits: charged,
            cost: cost(f, q, at: e.seconds, sheets: sheets, usdToCNY: usdToCNY))
    }

    // MARK: The expected report

    struct FeatureFigures: Equatable {
        var requests = 0
        var notRepriced = 0
        var creditsBefore: Int128 = 0
        var creditsAfter: Int128 = 0
        var costBefore = Q.zero
        var costAfter = Q.zero
        var declinedBefore = 0
        var declinedAfter = 0
    }

    struct Expected {
        var features: [String: FeatureFigures] = [:]
        var declinedBefore = 0
        var declinedAfter = 0
        var leftBefore: Int128 = 0
        var leftAfter: Int128 = 0
        var entries = 0
        var duplicates = 0
        /// Refunds met in a device's balance before their charge (taken right after it).
        var refundsBeforeCharge = 0
        /// Of which recorded on another device than the charge (or on none), and such
        /// refunds met after their charge.
        var otherDeviceBeforeCharge = 0
        var otherDeviceAfterCharge = 0
    }

    /// What the replay must say. `lines` are the entries in file order (duplicates
    /// repeated); `old` re-prices the before side (`--against`), else the ledger's own.
    static func expected(
        lines: [Entry], old: Card?, ledgerCard: Card, new: Card, sheets: [String: Sheet],
        usdToCNY: Q
    ) -> Expected {
        var out = Expected()
        var seen: [String: Int] = [:]
        var entries: [(e: Entry, order: Int)] = []
        for (k, e) in lines.enumerated() {
            if seen[e.id] != nil {
                out.duplicates += 1
                continue
            }
            seen[e.id] = k
            entries.append((e, k))
        }
        out.entries = entries.count
        var before: [String: Priced] = [:]
        var after: [String: Priced] = [:]
        for (e, _) in entries where e.kind == "charge" {
            let b = price(e, card: old, ledgerCard: ledgerCard, sheets: sheets, usdToCNY: usdToCNY)
            let a = price(e, card: new, ledgerCard: ledgerCard, sheets: sheets, usdToCNY: usdToCNY)
            var f = out.features[e.feature!] ?? FeatureFigures()
            f.requests += 1
            if case .priced(let cb, let kb) = b, case .priced(let ca, let ka) = a {
                before[e.id] = b
                after[e.id] = a
                f.creditsBefore += cb
                f.creditsAfter += ca
                f.costBefore = f.costBefore + kb
                f.costAfter = f.costAfter + ka
            } else {
                f.notRepriced += 1
            }
            out.features[e.feature!] = f
        }
        let byID = Dictionary(uniqueKeysWithValues: entries.map { ($0.e.id, $0.e) })
        // Refunds give back the whole charge on each side (the ledger's side: as recorded).
        var refunded = Set<String>()
        for (e, _) in entries where e.kind == "refund" {
            guard let c = e.refundOf, let ch = byID[c], ch.kind == "charge", !refunded.contains(c)
            else { continue }
            refunded.insert(c)
            guard case .priced(let cb, _) = before[c], case .priced(let ca, _) = after[c] else {
                continue
            }
            out.features[ch.feature!]!.creditsBefore -= old == nil ? Int128(e.amount) : cb
            out.features[ch.feature!]!.creditsAfter -= ca
        }
        // Balances, device by device in time order. A refund of a charge of the ledger is
        // in the balance of the charge's device (none: in no balance), whichever device
        // recorded it; any other entry is in its own device's.
        func balanceDevice(_ e: Entry) -> String? {
            if e.kind == "refund", let c = e.refundOf, let ch = byID[c], ch.kind == "charge" {
                return ch.device
            }
            return e.device
        }
        let devices = Set(entries.compactMap { $0.e.device })
        for dev in devices.sorted() {
            let mine = entries.filter { balanceDevice($0.e) == dev }.sorted {
                ($0.e.seconds, $0.order) < ($1.e.seconds, $1.order)
            }
            // The opening balance is from the device's own first entry.
            let own = entries.filter { $0.e.device == dev }.sorted {
                ($0.e.seconds, $0.order) < ($1.e.seconds, $1.order)
            }
            let first = own[0].e
            let opening = first.balanceAfter.map { Int128($0) - Int128(first.amount) } ?? 0
            var bal = (opening, opening)
            var took: [String: (Bool, Bool)] = [:]
            // A refund dated before its charge is taken right after the charge.
            var early: [String: Entry] = [:]
            func giveBack(_ e: Entry, of c: String, took ok: (Bool, Bool)) {
                var b = Int128(e.amount)
                var a = Int128(e.amount)
                if case .priced(let cb, _) = before[c], case .priced(let ca, _) = after[c] {
                    (b, a) = (old == nil ? Int128(e.amount) : cb, ca)
                }
                if ok.0 { bal.0 += b }
                if ok.1 { bal.1 += a }
            }
            for (e, _) in mine {
                switch e.kind {
                case "grant", "topup":
                    bal.0 += Int128(e.amount)
                    bal.1 += Int128(e.amount)
                case "charge":
                    var b = -Int128(e.amount)
                    var a = -Int128(e.amount)
                    if case .priced(let cb, _) = before[e.id], case .priced(let ca, _) = after[e.id]
                    {
                        (b, a) = (cb, ca)
                    }
                    let ok = (bal.0 >= b, bal.1 >= a)
                    if ok.0 { bal.0 -= b } else { out.declinedBefore += 1 }
                    if ok.1 { bal.1 -= a } else { out.declinedAfter += 1 }
                    if !ok.0 { out.features[e.feature!]!.declinedBefore += 1 }
                    if !ok.1 { out.features[e.feature!]!.declinedAfter += 1 }
                    took[e.id] = ok
                    if let r = early.removeValue(forKey: e.id) { giveBack(r, of: e.id, took: ok) }
                default:
                    guard let c = e.refundOf, let ch = byID[c], ch.kind == "charge" else {
                        bal.0 += Int128(e.amount)
                        bal.1 += Int128(e.amount)
                        continue
                    }
                    guard let ok = took[c] else {
                        // Its charge is on this device, later: taken right after it.
                        early[c] = e
                        out.refundsBeforeCharge += 1
                        if e.device != dev { out.otherDeviceBeforeCharge += 1 }
                        continue
                    }
                    if e.device != dev { out.otherDeviceAfterCharge += 1 }
                    giveBack(e, of: c, took: ok)
                }
            }
            out.leftBefore += bal.0
            out.leftAfter += bal.1
        }
        return out
    }
}
