import Testing

@testable import RateCard

/// A card with one feature per given dimension spec, and one provider sheet.
func engineFixture(
    dimensions: [(feature: String, credits: Int, per: Int, rounding: String, meter: String)],
    meters: [(key: String, per: String, price: String, increment: String?, minimum: String?)]
) throws -> (CardRepository, RateCard) {
    var features: [String: [String]] = [:]
    var order: [String] = []
    for (i, d) in dimensions.enumerated() {
        if features[d.feature] == nil { order.append(d.feature) }
        features[d.feature, default: []].append(
            """
            {"name": "d\(i)", "unit": "second", "credits": \(d.credits), "per": \(d.per), "rounding": "\(d.rounding)", "cost": {"provider": "p", "meter": "\(d.meter)"}}
            """)
    }
    let featureJSON = order.map {
        "{\"key\": \"\($0)\", \"dimensions\": [\(features[$0]!.joined(separator: ","))]}"
    }.joined(separator: ",")
    let card = """
        {"kind": "card", "id": "t", "version": 1, "effective": "2026-01-01T00:00:00Z", "creditUnit": {"name": "credit", "priceStep": 1},
         "features": [\(featureJSON)], "packs": []}
        """
    let meterJSON = meters.map { m in
        var s =
            "{\"key\": \"\(m.key)\", \"unit\": \"second\", \"per\": \"\(m.per)\", \"price\": \"\(m.price)\""
        if let inc = m.increment { s += ", \"increment\": \"\(inc)\"" }
        if let min = m.minimum { s += ", \"minimum\": \"\(min)\"" }
        return s + "}"
    }.joined(separator: ",")
    let sheet = """
        {"kind": "provider", "id": "p", "currency": "CNY", "reviewed": "2026-01-01", "source": "test", "meters": [\(meterJSON)]}
        """
    let repo = try repository(["card.json": card, "sheet.json": sheet])
    return (repo, repo.cards[0])
}

@Suite struct WorstCaseEngineTests {
    let cny = Currency(code: "CNY")!

    /// The worked case of docs/formats.md: the card charges 1 credit per started 3 s; the
    /// provider (CNY 4.5 an hour) bills per started 2 s, so a 3 s request is billed 4 s.
    @Test func roundingOnBothSidesWithAProviderIncrement() throws {
        let (repo, card) = try engineFixture(
            dimensions: [("asr", 1, 3, "up", "audio")], meters: [("audio", "3600", "4.5", "2", nil)]
        )
        let engine = try WorstCaseEngine(card: card, providers: repo.providers)
        let w = try engine.worstCase(credits: 3000, in: cny, fx: .empty)
        #expect(w.cost.amount == exact("15"))  // 3,000 requests × 4 s × CNY 0.00125
        let step = try #require(w.plan.first)
        #expect(
            step.count == 3000 && step.shape.quantity == 3 && step.shape.billedUnits == Exact(4))
    }

    /// With a 15 s minimum per request, the worst request is the shortest: 3 s charged 1
    /// credit, billed 15 s. 3,000 credits then cost CNY 56.25, five times the plain figure.
    @Test func roundingOnBothSidesWithAProviderMinimum() throws {
        let (repo, card) = try engineFixture(
            dimensions: [("asr", 1, 3, "up", "audio")],
            meters: [("audio", "3600", "4.5", "2", "15")])
        let engine = try WorstCaseEngine(card: card, providers: repo.providers)
        let w = try engine.worstCase(credits: 3000, in: cny, fx: .empty)
        #expect(w.cost.amount == exact("56.25"))
        #expect(w.plan.first?.shape.billedUnits == Exact(15))
    }

    /// A greedy fill by best cost per credit is not enough: 2-credit requests cost 1.00
    /// (0.50 a credit), 3-credit requests cost 1.40 (0.47 a credit). For 7 credits the
    /// worst case mixes them: 2 + 2 + 3 credits = 3.40, above 3 × 2-credit = 3.00.
    @Test func smallKnapsackBeatsGreedy() throws {
        let (repo, card) = try engineFixture(
            dimensions: [("a", 2, 1, "up", "m1"), ("b", 3, 1, "up", "m2")],
            meters: [("m1", "1", "1", nil, nil), ("m2", "1", "1.4", nil, nil)])
        let engine = try WorstCaseEngine(card: card, providers: repo.providers)
        let w = try engine.worstCase(credits: 7, in: cny, fx: .empty)
        #expect(w.cost.amount == exact("3.4"))
        #expect(w.unspent == 0)
        let w1 = try engine.worstCase(credits: 1, in: cny, fx: .empty)
        #expect(w1.cost.amount == .zero && w1.unspent == 1 && w1.plan.isEmpty)
    }

    @Test func roundingDownLetsShortRequestsGoFree() throws {
        let (repo, card) = try engineFixture(
            dimensions: [("asr", 1, 3, "down", "audio")],
            meters: [("audio", "3600", "4.5", nil, nil)])
        let engine = try WorstCaseEngine(card: card, providers: repo.providers)
        let free = try #require(engine.freeUsage.first)
        #expect(free.quantity == 2 && free.credits == 0)
        #expect(throws: WorstCaseError.unbounded([free])) {
            try engine.worstCase(credits: 10, in: cny, fx: .empty)
        }
        // Among charged requests, 5 s is the longest charged as one interval.
        let best = try #require(try engine.profiles.first?.best())
        #expect(best.quantity == 5 && best.credits == 1)
    }

    @Test func convertsCostsIntoThePriceCurrency() throws {
        let (repo, card) = try engineFixture(
            dimensions: [("asr", 1, 3, "up", "audio")], meters: [("audio", "3600", "4.5", nil, nil)]
        )
        let engine = try WorstCaseEngine(card: card, providers: repo.providers)
        let usd = Currency(code: "USD")!
        let fx = FXTable(
            date: nil, sourceNote: "t", placeholder: false,
            rates: [FXRate(base: usd, quote: cny, rate: exact("7.5"))],
            source: SourceFile(path: "fx"))
        #expect(try engine.worstCase(credits: 3000, in: usd, fx: fx).cost.amount == exact("1.5"))
        #expect(throws: WorstCaseError.self) {
            try engine.worstCase(credits: 3000, in: usd, fx: .empty)
        }
    }

    @Test func hugePacksAreErrorsNotTraps() throws {
        let (repo, card) = try engineFixture(
            dimensions: [("asr", 1, 3, "up", "audio")], meters: [("audio", "3600", "4.5", nil, nil)]
        )
        let engine = try WorstCaseEngine(card: card, providers: repo.providers)
        // 10^18 credits (beyond the loader's 10^15 ceiling) still computes exactly in the engine.
        let w = try engine.worstCase(credits: 1_000_000_000_000_000_000, in: cny, fx: .empty)
        #expect(w.cost.amount == exact("3750000000000000"))
    }
}

/// The engine against brute force on many generated cards and provider sheets.
@Suite struct WorstCasePropertyTests {
    let cny = Currency(code: "CNY")!

    @Test(arguments: 0..<60)
    func matchesBruteForce(seed: Int) throws {
        var rng = SplitMix(seed: UInt64(seed) &* 7919 &+ 11)
        let dimCount = rng.next(in: 1...3)
        var dims: [(feature: String, credits: Int, per: Int, rounding: String, meter: String)] = []
        var meters:
            [(key: String, per: String, price: String, increment: String?, minimum: String?)] = []
        for i in 0..<dimCount {
            // Two dimensions share feature "f" so that multi-dimension requests are searched.
            dims.append(
                (
                    i < 2 ? "f" : "g", rng.next(in: 1...4), rng.next(in: 1...5),
                    ["up", "up", "down", "exact"][rng.next(in: 0...3)], "m\(i)"
                ))
            meters.append(
                (
                    "m\(i)", String(rng.next(in: 1...10)),
                    "\(rng.next(in: 1...99)).\(rng.next(in: 0...9))",
                    rng.next(in: 0...1) == 0 ? nil : String(rng.next(in: 1...4)),
                    rng.next(in: 0...2) == 0 ? String(rng.next(in: 1...10)) : nil
                ))
        }
        let (repo, card) = try engineFixture(dimensions: dims, meters: meters)
        let engine = try WorstCaseEngine(card: card, providers: repo.providers)
        let costing = RequestCosting(providers: repo.providers)

        // Every request shape of every feature with quantities up to 40 units per dimension.
        var items: [(credits: Int128, cost: Exact)] = []
        var freeFound = false
        for feature in card.features {
            let names = feature.dimensions.map(\.name)
            var q = [Int](repeating: 0, count: names.count)
            while true {
                var idx = 0
                while idx < q.count {
                    q[idx] += 1
                    if q[idx] <= 40 { break }
                    q[idx] = 0
                    idx += 1
                }
                if idx == q.count { break }
                var quantities: [String: Exact] = [:]
                for (n, v) in zip(names, q) { quantities[n] = Exact(v) }
                // not whole intervals
                guard let credits = try? feature.credits(for: quantities) else { continue }
                let cost =
                    try costing.cost(of: feature, quantities: quantities, at: nil).first?.amount
                    ?? .zero
                if credits == 0 {
                    if cost.isPositive { freeFound = true }
                    continue
                }
                items.append((credits, cost))
            }
        }
        #expect(freeFound == !engine.freeUsage.isEmpty, "free usage detection")
        if freeFound {
            // Requests charged nothing can be repeated without end: the engine must refuse
            // to give a finite worst case.
            #expect(throws: WorstCaseError.self) {
                try engine.worstCase(credits: 10, in: cny, fx: .empty)
            }
            return
        }

        // The best cost per credit of any request equals the engine's.
        let bruteBest =
            items.map { try! $0.cost.divided(by: Exact(integer: $0.credits)) }.max() ?? .zero
        var engineBest = Exact.zero
        for p in engine.profiles {
            if let b = try p.best() { engineBest = max(engineBest, try b.costPerCredit()) }
        }
        #expect(bruteBest == engineBest)

        // Exact knapsack by brute force for small packs.
        let n = 24
        var table = [Exact](repeating: .zero, count: n + 1)
        for t in 1...n {
            table[t] = table[t - 1]
            for it in items where it.credits <= Int128(t) {
                let v = try table[t - Int(it.credits)].adding(it.cost)
                if table[t] < v { table[t] = v }
            }
        }
        for credits in 1...n {
            let w = try engine.worstCase(credits: Int128(credits), in: cny, fx: .empty)
            #expect(w.cost.amount == table[credits], "credits \(credits)")
            // The witness adds up: its steps' credits plus unspent equal the pack, its costs the total.
            let spent = w.plan.reduce(Int128(0)) { $0 + $1.count * $1.shape.credits }
            #expect(spent + w.unspent == Int128(credits))
            let total = try w.plan.reduce(Exact.zero) {
                try $0.adding($1.shape.cost.amount.multiplied(by: $1.count))
            }
            #expect(total == w.cost.amount)
            // Never below spending the pack on copies of any one request, never above the best rate.
            for it in items {
                #expect(try it.cost.multiplied(by: Int128(credits) / it.credits) <= w.cost.amount)
            }
            #expect(w.cost.amount <= (try engineBest.multiplied(by: Int128(credits))))
            // And never below any single feature's own worst case.
            for f in card.features {
                #expect(
                    try engine.worstCase(
                        credits: Int128(credits), feature: f.key, in: cny, fx: .empty
                    ).cost.amount <= w.cost.amount)
            }
        }
    }
}

@Suite struct MicroCreditWorstCaseTests {
    /// A micro-credit card priced in whole pence (3p per started minute = 30,000 per 60 s)
    /// with a metered provider and a GBP 5.00 pack of 5,000,000 micro-credits: the search
    /// runs in steps of 30,000, so it stays small and exact.
    @Test func searchesInStepsOfTheCommonDivisor() throws {
        let (repo, card) = try engineFixture(
            dimensions: [("transcript", 30000, 60, "up", "audio")],
            meters: [("audio", "3600", "0.36", "15", "30")])
        let engine = try WorstCaseEngine(card: card, providers: repo.providers)
        let w = try engine.worstCase(credits: 5_000_000, in: Currency(code: "CNY")!, fx: .empty)
        // 166 requests of 60 s (30,000 each) = 4,980,000; 20,000 micro-credits cannot be spent.
        #expect(w.unspent == 20_000)
        #expect(w.cost.amount == exact("0.996"))  // 166 × 60 s × CNY 0.0001
    }
}
