import Foundation
import Testing

@testable import RateCard

/// The replay engine against `ReplayOracle` on generated (seeded) ledgers and card pairs
/// that cover every charge rule: started (`up`), complete (`down`) and `exact` intervals,
/// per-use features charged without a quantity, several dimensions summed, provider
/// increments, minimums and variants, a time-of-day schedule whose window crosses local
/// midnight in the sheet's own UTC offset (split in two, as sheets write it), a USD sheet
/// converted into CNY, a feature NEW removes, a feature no card has, a dimension the card
/// does not have, refunds, duplicates, devices with and without an opening balance, and
/// entries without a device.
@Suite("Replay against an independent re-pricer")
struct ReplayOracleTests {
    typealias O = ReplayOracle

    /// SplitMix64: the same seed, the same ledger.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int {
            range.lowerBound + Int(next() % UInt64(range.count))
        }
        mutating func chance(_ p: Double) -> Bool {
            Double(next() % 1_000_000) < p * 1_000_000
        }
        mutating func pick<T>(_ xs: [T]) -> T { xs[int(0...(xs.count - 1))] }
    }

    static let usdToCNY = O.Q(decimal: "7.10")

    // MARK: Generated cards

    static func sheets(_ g: inout Generator) -> [String: O.Sheet] {
        let offset = g.pick([480, -300, 330, 0, 585])
        // Peak from 22:00 to 02:00 local on weekdays: across midnight, so two windows.
        let schedule = O.Schedule(
            offsetMinutes: offset, defaultPeriod: "offPeak",
            windows: [
                O.Window(period: "peak", days: [1, 2, 3, 4, 5], from: 22 * 3600, until: 24 * 3600),
                O.Window(period: "peak", days: [2, 3, 4, 5, 6], from: 0, until: 2 * 3600),
                O.Window(
                    period: "midday", days: [1, 2, 3, 4, 5, 6, 7], from: 11 * 3600, until: 13 * 3600
                ),
            ],
            multipliers: ["peak": O.Q(decimal: "1"), "offPeak": O.Q(1, 2), "midday": O.Q(3, 4)])
        let cny = O.Sheet(
            id: "p-cny", currency: "CNY",
            meters: [
                O.Meter(
                    key: "audio", unit: "second", per: 3600, prices: [O.Q(decimal: "4.5")],
                    increment: g.chance(0.5) ? Int128(g.int(1...15)) : nil,
                    minimum: g.chance(0.5) ? Int128(g.int(1...30)) : nil),
                O.Meter(
                    key: "input", unit: "token", per: 1_000_000,
                    prices: [O.Q(decimal: "3"), O.Q(decimal: "0.5")], increment: nil, minimum: nil),
                O.Meter(
                    key: "output", unit: "token", per: 1_000_000, prices: [O.Q(decimal: "9")],
                    increment: nil, minimum: g.chance(0.5) ? Int128(g.int(10...200)) : nil),
            ], schedule: schedule)
        let usd = O.Sheet(
            id: "p-usd", currency: "USD",
            meters: [
                O.Meter(
                    key: "page", unit: "item", per: 100,
                    prices: [O.Q(decimal: "0.35"), O.Q(decimal: "0.4")],
                    increment: Int128(g.int(1...3)), minimum: Int128(g.int(0...4)))
            ], schedule: nil)
        return ["p-cny": cny, "p-usd": usd]
    }

    static func card(_ g: inout Generator, version: Int, removing: String?) -> O.Card {
        func rounding() -> String { g.pick(["up", "up", "down", "exact"]) }
        var features = [
            O.Feature(
                key: "rec",
                dims: [
                    O.Dim(
                        name: "second", unit: "second", credits: Int128(g.int(1...3)),
                        per: Int128(g.int(2...7)), rounding: g.pick(["up", "down"]),
                        meter: ("p-cny", "audio"))
                ]),
            O.Feature(
                key: "chat",
                dims: [
                    O.Dim(
                        name: "inputTokens", unit: "token", credits: 1,
                        per: Int128(g.pick([500, 1000, 2000])), rounding: "up",
                        meter: ("p-cny", "input")),
                    O.Dim(
                        name: "outputTokens", unit: "token", credits: Int128(g.int(1...2)),
                        per: Int128(g.pick([200, 300, 400])), rounding: g.pick(["up", "down"]),
                        meter: ("p-cny", "output")),
                ]),
            O.Feature(
                key: "scan",
                dims: [
                    O.Dim(
                        name: "page", unit: "item", credits: Int128(g.int(1...5)),
                        per: Int128(g.pick([1, 2, 5])), rounding: rounding(),
                        meter: ("p-usd", "page"))
                ]),
            O.Feature(
                key: "ping",
                dims: [
                    O.Dim(
                        name: "event", unit: "event", credits: Int128(g.int(1...4)), per: 1,
                        rounding: "up", meter: nil)
                ]),
            O.Feature(
                key: "gone",
                dims: [
                    O.Dim(
                        name: "second", unit: "second", credits: 1, per: Int128(g.int(1...4)),
                        rounding: "up", meter: ("p-cny", "audio"))
                ]),
        ]
        if let removing { features.removeAll { $0.key == removing } }
        return O.Card(
            id: "gen", version: version,
            effective: version == 1 ? "2026-01-01T00:00:00Z" : "2026-06-01T00:00:00+08:00",
            features: features)
    }

    // MARK: Generated ledger

    static func ledger(_ g: inout Generator, card: O.Card, count: Int) -> [O.Entry] {
        var entries: [O.Entry] = []
        var charges: [O.Entry] = []
        let devices = (0..<8).map { "dev-\($0)" }
        var balance: [String: Int64] = [:]
        var opened = Set<String>()
        let start: Int64 = 1_772_323_200  // 2026-03-01T00:00:00Z, a Sunday
        for k in 0..<count {
            let seconds = start + Int64(g.int(0...(9 * 86_400)))
            let offset = g.pick([0, 480, -300, 330, 60])
            let device: String? = g.chance(0.06) ? nil : g.pick(devices)
            var after: Int64?
            func balanced(_ amount: Int64) -> Int64? {
                guard let device, g.chance(0.5) || !opened.contains(device) else { return nil }
                var b = balance[device] ?? Int64(g.pick([0, 0, 300]))
                b += amount
                balance[device] = b
                opened.insert(device)
                return b
            }
            let roll = g.int(0...99)
            if roll < 8 || charges.isEmpty {
                let amount = Int64(g.pick([100, 500, 1000]))
                after = balanced(amount)
                entries.append(
                    O.Entry(
                        id: "e\(k)", seconds: seconds, offsetMinutes: offset,
                        kind: roll % 2 == 0 ? "grant" : "topup", amount: amount, feature: nil,
                        quantity: nil, device: device, refundOf: nil, balanceAfter: after))
                if charges.isEmpty, roll >= 8 { charges.append(entries.last!) }
                continue
            }
            if roll < 12, let c = charges.filter({ $0.kind == "charge" }).last,
                !entries.contains(where: { $0.refundOf == c.id })
            {
                // One refund in three is dated before its charge (two services' clocks),
                // and some are recorded on another device than the charge, or on none.
                let place = g.int(0...9)
                let device = place < 3 ? g.pick(devices) : place == 3 ? nil : c.device
                entries.append(
                    O.Entry(
                        id: "e\(k)", seconds: k % 3 == 0 ? c.seconds - 30 : c.seconds + 60,
                        offsetMinutes: offset,
                        kind: "refund", amount: -c.amount, feature: c.feature, quantity: nil,
                        device: device, refundOf: c.id, balanceAfter: nil))
                continue
            }
            let feature = g.pick(["rec", "rec", "chat", "chat", "scan", "ping", "gone", "ghost"])
            var quantity: [(String, Int128)]? = nil
            switch feature {
            case "rec", "gone": quantity = [("second", Int128(g.int(0...400)))]
            case "chat":
                quantity = [
                    ("inputTokens", Int128(g.int(1...5000))),
                    ("outputTokens", Int128(g.int(0...3000))),
                ]
            case "scan": quantity = [("page", Int128(g.int(1...12)))]
            case "ghost": quantity = [("second", 5)]
            default: quantity = g.chance(0.5) ? nil : [("event", Int128(g.int(1...3)))]
            }
            if g.chance(0.05) { quantity = nil }
            if g.chance(0.03) { quantity = (quantity ?? []) + [("colour", 1)] }
            // What the app charged: the card's price, now and then another amount.
            var charged: Int128 = 1
            if let f = card.features.first(where: { $0.key == feature }) {
                var q = Dictionary(uniqueKeysWithValues: quantity ?? [])
                if q.isEmpty, f.perUse { q[f.dims[0].name] = 1 }
                var sum: Int128 = 0
                for d in f.dims { sum += O.credits(q[d.name] ?? 0, d) ?? 1 }
                charged = max(1, sum)
            }
            if g.chance(0.05) { charged += Int128(g.int(1...5)) }
            after = balanced(-Int64(charged))
            let e = O.Entry(
                id: "e\(k)", seconds: seconds, offsetMinutes: offset, kind: "charge",
                amount: -Int64(charged), feature: feature, quantity: quantity, device: device,
                refundOf: nil, balanceAfter: after)
            entries.append(e)
            charges.append(e)
        }
        // Written out of time order, with some lines repeated.
        var lines: [O.Entry] = []
        for e in entries {
            lines.append(e)
            if g.chance(0.02) { lines.append(e) }
        }
        for k in stride(from: lines.count - 1, to: 0, by: -1) {
            lines.swapAt(k, g.int(0...k))
        }
        return lines
    }

    // MARK: Files

    static func rfc3339(_ seconds: Int64, offset: Int) -> String {
        let t = seconds + Int64(offset) * 60
        let days = Int(t / 86_400)
        let sec = Int(t % 86_400)
        // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let zone =
            offset == 0
            ? "Z" : (offset > 0 ? "+" : "-") + two(abs(offset) / 60) + ":" + two(abs(offset) % 60)
        return
            "\(y)-\(two(m))-\(two(d))T\(two(sec / 3600)):\(two(sec % 3600 / 60)):\(two(sec % 60))\(zone)"
    }

    static func json(_ e: O.Entry) -> String {
        var parts = [
            "\"id\":\"\(e.id)\"", "\"at\":\"\(rfc3339(e.seconds, offset: e.offsetMinutes))\"",
            "\"kind\":\"\(e.kind)\"", "\"amount\":\(e.amount)",
        ]
        if let f = e.feature { parts.append("\"feature\":\"\(f)\"") }
        if let q = e.quantity {
            parts.append(
                "\"quantity\":{" + q.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}")
        }
        if let r = e.refundOf { parts.append("\"refundOf\":\"\(r)\"") }
        if let d = e.device { parts.append("\"device\":\"\(d)\"") }
        if let b = e.balanceAfter { parts.append("\"balanceAfter\":\(b)") }
        return "{" + parts.joined(separator: ",") + "}"
    }

    static func json(_ c: O.Card) -> String {
        let features = c.features.map { f in
            let dims = f.dims.map { d in
                let cost =
                    d.meter.map { "{\"provider\":\"\($0.sheet)\",\"meter\":\"\($0.key)\"}" }
                    ?? "{\"none\":\"runs on the device\"}"
                return
                    "{\"name\":\"\(d.name)\",\"unit\":\"\(d.unit)\",\"credits\":\(d.credits),\"per\":\(d.per),\"rounding\":\"\(d.rounding)\",\"cost\":\(cost)}"
            }
            return
                "{\"key\":\"\(f.key)\",\"name\":\"\(f.key)\",\"dimensions\":[\(dims.joined(separator: ","))]}"
        }
        return """
            {"kind":"card","id":"\(c.id)","version":\(c.version),"effective":"\(c.effective)","title":"generated",
             "creditUnit":{"name":"credit","priceStep":1},"features":[\(features.joined(separator: ","))],
             "grants":[],"packs":[{"productId":"p100","type":"consumable","credits":100,"prices":[{"currency":"CNY","amount":"5"}]}]}
            """
    }

    static func json(_ s: O.Sheet) -> String {
        let meters = s.meters.map { m in
            var fields = [
                "\"key\":\"\(m.key)\"", "\"unit\":\"\(m.unit)\"", "\"per\":\"\(m.per)\"",
            ]
            fields.append(
                "\"variants\":["
                    + m.prices.enumerated().map {
                        "{\"name\":\"v\($0.offset)\",\"price\":\"\(decimal($0.element))\"}"
                    }.joined(separator: ",") + "]")
            if let i = m.increment { fields.append("\"increment\":\"\(i)\"") }
            if let mn = m.minimum { fields.append("\"minimum\":\"\(mn)\"") }
            return "{" + fields.joined(separator: ",") + "}"
        }
        var schedule = ""
        if let sc = s.schedule {
            let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
            func clock(_ v: Int) -> String {
                let h = v / 3600
                let m = v % 3600 / 60
                return (h < 10 ? "0\(h)" : "\(h)") + ":" + (m < 10 ? "0\(m)" : "\(m)")
            }
            let off = sc.offsetMinutes
            let zone =
                (off < 0 ? "-" : "+") + String(format: "%02d:%02d", abs(off) / 60, abs(off) % 60)
            let windows = sc.windows.map { w in
                "{\"period\":\"\(w.period)\",\"days\":[\(w.days.map { "\"\(names[$0 - 1])\"" }.joined(separator: ","))],\"from\":\"\(clock(w.from))\",\"until\":\"\(clock(w.until))\"}"
            }
            let mult = sc.multipliers.sorted { $0.key < $1.key }.map {
                "\"\($0.key)\":\"\(decimal($0.value))\""
            }
            schedule =
                ",\"schedule\":{\"utcOffset\":\"\(zone)\",\"default\":\"\(sc.defaultPeriod)\",\"windows\":[\(windows.joined(separator: ","))],\"multipliers\":{\(mult.joined(separator: ","))}}"
        }
        return """
            {"kind":"provider","id":"\(s.id)","name":"\(s.id)","currency":"\(s.currency)","reviewed":"2026-01-01",
             "source":"https://example.invalid/generated","meters":[\(meters.joined(separator: ","))]\(schedule)}
            """
    }

    static func decimal(_ q: O.Q) -> String {
        // Every generated price is a terminating decimal with at most 2 places.
        let scaled = q.n * 100 / q.d
        let sign = scaled < 0 ? "-" : ""
        let m = scaled.magnitude
        let frac = m % 100
        return "\(sign)\(m / 100).\(frac < 10 ? "0" : "")\(frac)"
    }

    // MARK: The property

    @Test(
        "replay agrees with the brute-force re-pricer",
        arguments: [(1, false), (2, true), (3, false), (4, true), (5, false), (6, true)])
    func agrees(seed: UInt64, against: Bool) throws {
        var g = Generator(state: 0xC0FFEE &+ seed &* 7919)
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let cards = dir.url.appendingPathComponent("RateCards")
        try FileManager.default.createDirectory(
            at: cards.appendingPathComponent("providers"), withIntermediateDirectories: true)
        for name in ["fx.json", "commission.json"] {
            try FileManager.default.copyItem(
                atPath: repositoryCards + "/" + name,
                toPath: cards.appendingPathComponent(name).path)
        }
        let sheets = Self.sheets(&g)
        for s in sheets.values {
            try Self.json(s).write(
                to: cards.appendingPathComponent("providers/\(s.id).json"), atomically: true,
                encoding: .utf8)
        }
        let old = Self.card(&g, version: 1, removing: nil)
        let new = Self.card(&g, version: 2, removing: "gone")
        try Self.json(old).write(
            to: cards.appendingPathComponent("gen-v1.json"), atomically: true, encoding: .utf8)
        let newPath = dir.url.appendingPathComponent("gen-v2.json").path
        try Self.json(new).write(toFile: newPath, atomically: true, encoding: .utf8)
        let lines = Self.ledger(&g, card: old, count: 1200)
        let ledgerPath = dir.url.appendingPathComponent("ledger.jsonl").path
        try (lines.map(Self.json).joined(separator: "\n") + "\n").write(
            toFile: ledgerPath, atomically: true, encoding: .utf8)

        let report = try ReplayRun.run(
            ReplayRequest(
                inputs: [TakingsInput(path: ledgerPath)], cards: [cards.path], new: newPath,
                against: against ? "gen@1" : nil,
                creditValue: Money(try Exact(1, over: 100), Currency(code: "CNY")!)))
        let want = O.expected(
            lines: lines, old: against ? old : nil, ledgerCard: old, new: new, sheets: sheets,
            usdToCNY: Self.usdToCNY)

        #expect(report.input.entries == want.entries)
        #expect(report.input.duplicates == want.duplicates)
        #expect(report.input.rejected == 0)
        #expect(
            Set(report.features.compactMap(\.feature)) == Set(want.features.keys),
            "features")
        for row in report.features {
            let key = try #require(row.feature)
            let w = try #require(want.features[key])
            #expect(row.requests == w.requests, "\(key) requests")
            #expect(row.notRepriced == w.notRepriced, "\(key) not re-priced")
            #expect(row.creditsBefore == w.creditsBefore, "\(key) credits before")
            #expect(row.creditsAfter == w.creditsAfter, "\(key) credits after")
            #expect(row.costBefore == w.costBefore.exact(), "\(key) cost before")
            #expect(row.costAfter == w.costAfter.exact(), "\(key) cost after")
            #expect(row.declinedBefore == w.declinedBefore, "\(key) declined before")
            #expect(row.declinedAfter == w.declinedAfter, "\(key) declined after")
        }
        // The same run partitioned by device (`--memory`): the same report, named findings
        // and all, through the library and through the binary.
        let size = try FileManager.default.attributesOfItem(atPath: ledgerPath)[.size] as! Int
        #expect(ReplaySpill.partitions(inputBytes: size, memoryLimit: 4096) > 1)
        let bounded = try ReplayRun.run(
            ReplayRequest(
                inputs: [TakingsInput(path: ledgerPath)], cards: [cards.path], new: newPath,
                against: against ? "gen@1" : nil,
                creditValue: Money(try Exact(1, over: 100), Currency(code: "CNY")!),
                memoryLimit: 4096))
        #expect(bounded.render(.json) == report.render(.json))
        #expect(bounded.named == report.named)
        // On 1, 2 and several threads, in memory and partitioned: the same report as the
        // one-thread run in memory (its whole JSON, and the named findings in order).
        func run(threads: Int, memory: Int? = nil) throws -> ReplayReport {
            try ReplayRun.run(
                ReplayRequest(
                    inputs: [TakingsInput(path: ledgerPath)], cards: [cards.path], new: newPath,
                    against: against ? "gen@1" : nil,
                    creditValue: Money(try Exact(1, over: 100), Currency(code: "CNY")!),
                    memoryLimit: memory, threads: threads))
        }
        let one = try run(threads: 1)
        for (threads, memory) in [(1, 4096), (2, nil), (3, nil), (5, nil), (2, 4096), (3, 4096)] {
            let other = try run(threads: threads, memory: memory)
            #expect(
                other.render(.json) == one.render(.json),
                "\(threads) threads, memory \(memory.map(String.init) ?? "uncapped")")
            #expect(other.named == one.named, "\(threads) threads, named")
            #expect(other.render(.table) == one.render(.table))
        }
        #expect(report.render(.json) == one.render(.json))
        let cli = [
            "replay", ledgerPath, "--cards", cards.path, "--card", newPath, "--credit-value",
            "CNY 0.01",
        ]
        let inMemory = try runMargin(cli)
        let partitioned = try runMargin(cli + ["--memory", "1K"])
        #expect(inMemory.stdout.contains("Replay under gen@2"))
        #expect(partitioned.stdout == inMemory.stdout)
        #expect(partitioned.stderr == inMemory.stderr)
        #expect(partitioned.status == inMemory.status)
        for extra in [
            ["--threads", "1"], ["--threads", "2"], ["--threads", "3", "--memory", "1K"],
        ] {
            let other = try runMargin(cli + extra)
            #expect(other.stdout == inMemory.stdout, "\(extra)")
            #expect(other.stderr == inMemory.stderr, "\(extra)")
            #expect(other.status == inMemory.status, "\(extra)")
        }
        #expect(report.balances.counts.declinedBefore == want.declinedBefore)
        #expect(report.balances.counts.declinedAfter == want.declinedAfter)
        #expect(report.balances.counts.leftBefore == want.leftBefore)
        #expect(report.balances.counts.leftAfter == want.leftAfter)
        // Every rule is exercised: declines on both sides, something removed, a feature
        // no card has, something that changed price.
        #expect(want.declinedBefore > 0 && want.declinedAfter > 0)
        #expect(want.refundsBeforeCharge > 0)
        #expect(want.otherDeviceBeforeCharge > 0 && want.otherDeviceAfterCharge > 0)
        #expect(want.features["gone"].map { $0.notRepriced == $0.requests } == true)
        #expect(want.features["ghost"].map { $0.notRepriced == $0.requests } == true)
        #expect(want.features.values.contains { $0.creditsBefore != $0.creditsAfter })
    }
}
