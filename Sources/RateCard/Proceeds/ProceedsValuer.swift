/// Values the credits the ledger's features spent at what those credits really earned,
/// first in, first out per account, and keeps the credits not yet spent (the liability)
/// with the breakage recognised on them. The rules are in docs/proceeds.md:
///
/// - Each account's entries (`device`; the entries that name none are one account; a refund
///   is its charge's) are
///   taken in time order; at one instant, grants and top-ups come before charges, then
///   refunds and revokes, then by id hash (the order does not depend on the input's).
/// - A grant or a top-up opens a lot: its credits and their value per credit (a top-up's
///   from its Apple transaction or its pack, `ProceedsRates`; a grant's is zero).
/// - A charge takes credits from the oldest lot with credits left; credits no lot holds are
///   valued at the rate of the period they were spent in. A refund `pnl` counts puts the
///   credits back into the lots they came from. A revoke takes credits from the lot of the
///   top-up its `paymentRef` names first, then first in, first out.
/// - A lot lapses `creditExpiry.days` after it opened (the card version in force then);
///   breakage (ASC 606-10-55-48, IFRS 15 B46) is recognised in proportion to use at the
///   rate the card expects, and what is left is recognised when the lot lapses.
struct ProceedsValuer {
    var rates: ProceedsRates
    let catalogue: ProductCatalogue
    let purchases: [String: Reconciler.Purchase]
    /// The storefront table that turns a transaction's alpha-3 `storefront` into the
    /// reports' alpha-2 country (nil: the card folder has none; transactions are then
    /// matched by currency alone).
    let storefronts: StorefrontTable?
    let window: TakingsWindow
    /// `--by`: the features' credits also per period.
    var series: TakingsSeries? = nil
    let now: Timestamp
    /// The rate of the card's modelled value (`pnl`'s estimate), for days no report covers.
    let modelled: Int

    init(
        rates: ProceedsRates, catalogue: ProductCatalogue,
        purchases: [String: Reconciler.Purchase], storefronts: StorefrontTable? = nil,
        window: TakingsWindow, now: Timestamp, modelledPerCredit: Exact
    ) {
        var rates = rates
        modelled = rates.intern(
            ProceedsRate(
                basis: .modelled, label: "the card's modelled value", perCredit: modelledPerCredit,
                currency: rates.currency))
        self.rates = rates
        self.catalogue = catalogue
        self.purchases = purchases
        self.storefronts = storefronts
        self.window = window
        self.now = now
    }

    /// One lot: credits added by one grant or top-up.
    struct Lot {
        /// Net of the credits revokes took back.
        var credits: Int128
        var used: Int128 = 0
        let rate: Int
        let free: Bool
        let entry: Int32
        /// When it lapses (UNIX seconds); nil: never.
        let expires: Int64?
        /// expectedBreakage ÷ (1 − expectedBreakage).
        let breakageFactor: Exact
        var lapsed = false
        var left: Int128 { credits - used }

        /// The breakage recognised on the lot so far, in credits (× the rate is money):
        /// min(left, used × b ÷ (1 − b)); all that is left once it lapsed.
        func breakage() throws -> Exact {
            if lapsed { return Exact(integer: left) }
            guard breakageFactor.isPositive else { return .zero }
            let proportional = try Exact(integer: used).multiplied(by: breakageFactor)
            return min(proportional, Exact(integer: left))
        }
    }

    /// A charge's credits, lot by lot (or unbacked, at a rate), kept for the refund of it.
    enum Piece {
        case lot(Int, Int128)
        case unbacked(rate: Int, Int128)
    }

    /// What the pass adds up.
    struct Tally {
        /// Per feature and rate: credits kept in the window (charged less given back).
        var used: [UInt32: [Int: Int128]] = [:]
        /// With `--by`: the same per period of the series (`CalendarPeriod.number`), each
        /// charge and refund in the period of its own time.
        var usedByPeriod: [Int64: [UInt32: [Int: Int128]]] = [:]
        /// Per rate: credits of lots opened (all time) and their count, by kind of lot.
        var opened: [Int: (lots: Int, credits: Int128)] = [:]
        /// Per rate: credits spent that no lot backs, in the window.
        var unbacked: [Int: Int128] = [:]
        var takenBack: Int128 = 0
        var takenBackBeyond: Int128 = 0
        /// At `now`, per rate: credits left in lots not lapsed, and the breakage recognised
        /// on them (credits × rate is money).
        var liabilityLeft: [Int: Int128] = [:]
        var liabilityBreakage: [Int: Exact] = [:]
        var liabilityLots = 0
        /// At `now`: credits left in free lots (grants) not lapsed.
        var liabilityFreeLeft: Int128 = 0
        /// Per rate: breakage recognised at the window's start and end (cumulative).
        var breakageAtStart: [Int: Exact] = [:]
        var breakageAtEnd: [Int: Exact] = [:]
        /// Per rate: credits that lapsed within the window.
        var lapsed: [Int: Int128] = [:]
        var refundsIgnored = 0
        /// Refunds `pnl` counts that are dated before their charge: taken right after it.
        var refundsBeforeCharge = 0
        var accounts = 0
    }

    /// The period of the series an entry counts in (nil: no series, or one it has no label
    /// for, counted in the window only, as in `pnl`).
    static func period(_ e: ProceedsEntry, _ series: TakingsSeries?) -> Int64? {
        guard let series else { return nil }
        let b = series.bucket(seconds: e.seconds)
        return b == TakingsSeries.outside ? nil : b
    }

    /// The refunds pnl counts, by the charge they take back: of a charge read, of its
    /// feature, no more than it, and the earliest of the charge's (by time, then id hash).
    /// Every other refund is counted in `ignored`.
    static func chosenRefunds(_ ledger: ProceedsLedger, ignored: inout Int) -> [Int32: Int32] {
        let entries = ledger.entries
        var chosen: [Int32: Int32] = [:]
        for (r, charge) in ledger.refunds {
            guard let c = ledger.index[charge], entries[Int(c)].kind == .charge,
                entries[Int(c)].feature == entries[Int(r)].feature,
                Int128(entries[Int(r)].amount) <= -Int128(entries[Int(c)].amount)
            else {
                ignored += 1
                continue
            }
            if let other = chosen[c] {
                ignored += 1
                if Self.key(entries[Int(r)]) < Self.key(entries[Int(other)]) { chosen[c] = r }
            } else {
                chosen[c] = r
            }
        }
        return chosen
    }

    /// What a checkpoint records of an account's lots: the breakage of the paid lots at the
    /// window's start and end, and at now the credits left (the liability) and its breakage.
    static func record(_ which: Checkpoint, _ lots: [Lot], _ tally: inout Tally) throws {
        switch which {
        case .start:
            for lot in lots where !lot.free {
                tally.breakageAtStart[lot.rate, default: .zero] =
                    try tally.breakageAtStart[lot.rate, default: .zero].adding(
                        lot.breakage())
            }
        case .now:
            for lot in lots where lot.free && !lot.lapsed && lot.left > 0 {
                tally.liabilityFreeLeft += lot.left
            }
            for lot in lots where !lot.free && !lot.lapsed && lot.left > 0 {
                tally.liabilityLots += 1
                tally.liabilityLeft[lot.rate, default: 0] += lot.left
                tally.liabilityBreakage[lot.rate, default: .zero] =
                    try tally.liabilityBreakage[lot.rate, default: .zero].adding(
                        lot.breakage())
            }
        case .end:
            for lot in lots where !lot.free {
                tally.breakageAtEnd[lot.rate, default: .zero] =
                    try tally.breakageAtEnd[lot.rate, default: .zero].adding(
                        lot.breakage())
            }
        }
    }

    mutating func run(_ ledger: ProceedsLedger) throws -> Tally {
        var tally = Tally()
        try run(ledger, into: &tally)
        return tally
    }

    /// One account's state while its entries are taken in order: its lots, the first lot
    /// with credits left (`head`: a refund moves it back), the lots each refunded charge
    /// drew from, and the next checkpoint to record. Every kind of entry reads and changes
    /// it, so it travels as one value.
    struct AccountState {
        var lots: [Lot] = []
        var head = 0
        var pieces: [Int32: [Piece]] = [:]
        var nextCheckpoint = 0
    }

    /// The order of the pass over one ledger: by account, then by the instant each entry is
    /// taken at, with the refunds `pnl` counts and the charges they take back.
    struct PassOrder {
        let entries: [ProceedsEntry]
        let refundOf: [Int32: Int32]
        let refunded: Set<Int32>
        /// Refunds dated before their charge, taken at the charge's instant instead.
        let moved: [Int32: (Int64, UInt32)]
        private(set) var order: [Int] = []

        init(_ ledger: ProceedsLedger, _ tally: inout Tally) {
            entries = ledger.entries
            let chosen = ProceedsValuer.chosenRefunds(ledger, ignored: &tally.refundsIgnored)
            var refundOf: [Int32: Int32] = [:]
            for (c, r) in chosen { refundOf[r] = c }
            self.refundOf = refundOf
            refunded = Set(chosen.keys)
            // A refund dated before its charge (clocks of two devices, a refund written with
            // the request's time) is counted by `pnl`; here it is taken at its charge's
            // instant, right after the charge, so that it puts back what the charge took.
            // Its value still counts in the window of its own time, as in `pnl`.
            var moved: [Int32: (Int64, UInt32)] = [:]
            for (r, c) in refundOf
            where ProceedsValuer.key(entries[Int(r)]) < ProceedsValuer.key(entries[Int(c)]) {
                moved[r] = (entries[Int(c)].seconds, entries[Int(c)].nanoseconds)
                tally.refundsBeforeCharge += 1
            }
            self.moved = moved
            order = entries.indices.sorted {
                let (a, b) = (account($0), account($1))
                if a != b { return a < b }
                return key($0) < key($1)
            }
        }

        /// A refund is taken in its charge's account, where the credits it puts back came
        /// from.
        func account(_ i: Int) -> UInt32 {
            refundOf[Int32(i)].map { entries[Int($0)].device } ?? entries[i].device
        }

        func key(_ i: Int) -> (Int64, UInt32, Int, UInt64) {
            let k = ProceedsValuer.key(entries[i])
            guard !moved.isEmpty, let m = moved[Int32(i)] else { return k }
            return (m.0, m.1, k.2, k.3)
        }
    }

    /// Values the accounts of `ledger` (the whole ledger, or one partition of it, whose
    /// accounts no other partition has) and adds what they come to to `tally`.
    mutating func run(_ ledger: ProceedsLedger, into tally: inout Tally) throws {
        let pass = PassOrder(ledger, &tally)
        let checkpoints = self.checkpoints
        var k = 0
        while k < pass.order.count {
            let device = pass.account(pass.order[k])
            var state = AccountState()
            tally.accounts += 1
            while k < pass.order.count, pass.account(pass.order[k]) == device {
                let i = Int32(pass.order[k])
                k += 1
                let (taken, takenNanoseconds, _, _) = pass.key(Int(i))
                try record(checkpoints, upTo: (taken, Int32(takenNanoseconds)), &state, &tally)
                try lapse(&state.lots, upTo: taken, &tally)
                try apply(i, ledger, pass, &state, &tally)
            }
            try record(checkpoints, upTo: nil, &state, &tally)
        }
    }

    /// The checkpoints: the window's start, now, the window's end (now when open), in time
    /// order.
    var checkpoints: [(Int64, Int32, Checkpoint)] {
        let start = window.since.map { ($0.seconds, $0.nanoseconds) }
        let end = (window.until ?? now)
        return
            ([start.map { ($0.0, $0.1, Checkpoint.start) }]
            + [(now.seconds, now.nanoseconds, .now), (end.seconds, end.nanoseconds, .end)])
            .compactMap { $0 }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
    }

    /// Records every checkpoint up to `t` (all that are left when nil) on the account's lots.
    private func record(
        _ checkpoints: [(Int64, Int32, Checkpoint)], upTo t: (Int64, Int32)?,
        _ state: inout AccountState, _ tally: inout Tally
    ) throws {
        while state.nextCheckpoint < checkpoints.count,
            t.map({
                (checkpoints[state.nextCheckpoint].0, checkpoints[state.nextCheckpoint].1) <= $0
            }) ?? true
        {
            let (s, _, which) = checkpoints[state.nextCheckpoint]
            try lapse(&state.lots, upTo: s, &tally)
            try Self.record(which, state.lots, &tally)
            state.nextCheckpoint += 1
        }
    }

    /// One entry of the account, by its kind.
    private mutating func apply(
        _ i: Int32, _ ledger: ProceedsLedger, _ pass: PassOrder, _ state: inout AccountState,
        _ tally: inout Tally
    ) throws {
        let e = pass.entries[Int(i)]
        let inWindow = window.contains(seconds: e.seconds, nanoseconds: e.nanoseconds)
        switch e.kind {
        case .grant, .topup: try open(i, e, ledger, &state, &tally)
        case .charge:
            let taken = try charge(e, inWindow: inWindow, &state, &tally)
            if pass.refunded.contains(i) { state.pieces[i] = taken }
        case .refund:
            guard let c = pass.refundOf[i] else { return }
            refund(e, of: c, inWindow: inWindow, &state, &tally)
        case .revoke: revoke(i, e, ledger, &state, &tally)
        }
    }

    /// A grant (free) or a top-up opens a lot, with its lapse and breakage rule.
    private mutating func open(
        _ i: Int32, _ e: ProceedsEntry, _ ledger: ProceedsLedger, _ state: inout AccountState,
        _ tally: inout Tally
    ) throws {
        let rate =
            e.kind == .grant
            ? rates.intern(.zero(.free, rates.currency))
            : try topupRate(i, e, ledger)
        let expiry = catalogue.version(at: e.at)?.creditExpiry
        var factor = Exact.zero
        if let b = expiry?.expectedBreakage, b.isPositive {
            factor = try b.divided(by: Exact.one.subtracting(b))
        }
        let credits = Int128(e.amount)
        state.lots.append(
            Lot(
                credits: credits, rate: rate, free: e.kind == .grant, entry: i,
                expires: expiry.map { e.seconds + Int64($0.days) * 86_400 },
                breakageFactor: factor))
        let o = tally.opened[rate] ?? (0, 0)
        tally.opened[rate] = (o.lots + 1, o.credits + credits)
    }

    /// A charge takes credits from the oldest lots with credits left; what no lot holds is
    /// valued at the period's rate. The pieces taken, for a refund of it.
    private mutating func charge(
        _ e: ProceedsEntry, inWindow: Bool, _ state: inout AccountState, _ tally: inout Tally
    ) throws -> [Piece] {
        var want = -Int128(e.amount)
        var taken: [Piece] = []
        while want > 0, state.head < state.lots.count {
            let head = state.head
            if state.lots[head].lapsed || state.lots[head].left <= 0 {
                state.head += 1
                continue
            }
            let x = min(want, state.lots[head].left)
            state.lots[head].used += x
            want -= x
            taken.append(.lot(head, x))
            if inWindow {
                tally.use(e, state.lots[head].rate, x, series)
            }
        }
        if want > 0 {
            let rate = try rates.periodRate(day: ProceedsRates.day(e.at)) ?? modelled
            taken.append(.unbacked(rate: rate, want))
            if inWindow {
                tally.use(e, rate, want, series)
                tally.unbacked[rate, default: 0] += want
            }
        }
        return taken
    }

    /// A refund puts the credits back into the lots its charge `c` took them from, the last
    /// taken first; credits no lot backed are only taken off.
    private func refund(
        _ e: ProceedsEntry, of c: Int32, inWindow: Bool, _ state: inout AccountState,
        _ tally: inout Tally
    ) {
        var back = Int128(e.amount)
        for piece in (state.pieces[c] ?? []).reversed() where back > 0 {
            switch piece {
            case .lot(let l, let x):
                let y = min(back, x)
                state.lots[l].used -= y
                state.head = min(state.head, l)
                back -= y
                if state.lots[l].lapsed, inWindow {
                    tally.lapsed[state.lots[l].rate, default: 0] += y
                }
                if inWindow {
                    tally.use(e, state.lots[l].rate, -y, series)
                }
            case .unbacked(let rate, let x):
                // No lot to put them back into: the credits' value is reversed.
                let y = min(back, x)
                back -= y
                if inWindow {
                    tally.use(e, rate, -y, series)
                    tally.unbacked[rate, default: 0] -= y
                }
            }
        }
    }

    /// A revoke takes credits back from the lot of the top-up its `paymentRef` names first,
    /// then first in, first out; what the account did not hold is counted beyond.
    private func revoke(
        _ i: Int32, _ e: ProceedsEntry, _ ledger: ProceedsLedger, _ state: inout AccountState,
        _ tally: inout Tally
    ) {
        var want = -Int128(e.amount)
        if let ref = ledger.paymentRefs[i],
            let l = state.lots.indices.last(where: {
                !state.lots[$0].free && ledger.paymentRefs[state.lots[$0].entry] == ref
            }), !state.lots[l].lapsed
        {
            let x = min(want, state.lots[l].left)
            state.lots[l].credits -= x
            want -= x
        }
        var l = state.head
        while want > 0, l < state.lots.count {
            if !state.lots[l].lapsed, state.lots[l].left > 0 {
                let x = min(want, state.lots[l].left)
                state.lots[l].credits -= x
                want -= x
            }
            l += 1
        }
        tally.takenBack += -Int128(e.amount) - want
        tally.takenBackBeyond += want
    }

    enum Checkpoint { case start, now, end }

    /// Lapses the lots whose time is up at `seconds`; counts those that lapse inside the
    /// window.
    private func lapse(_ lots: inout [Lot], upTo seconds: Int64, _ tally: inout Tally) throws {
        for l in lots.indices where !lots[l].lapsed {
            guard let t = lots[l].expires, t <= seconds else { continue }
            lots[l].lapsed = true
            if window.contains(seconds: t, nanoseconds: 0)
                && t < (window.until ?? now).seconds
            {
                tally.lapsed[lots[l].rate, default: 0] += lots[l].left
            }
        }
    }

    /// A top-up's value per credit: its Apple transaction's product, country (its
    /// storefront's, in the reports' alpha-2), currency and day when Apple has it; the
    /// product and currency over every country when the reports have no row of that
    /// country (or the storefront has no code); nothing when Apple refunded it or charged
    /// nothing. Else the card's pack of those credits (and the recorded price's currency),
    /// else the period's.
    private mutating func topupRate(_ i: Int32, _ e: ProceedsEntry, _ ledger: ProceedsLedger)
        throws -> Int
    {
        if let ref = ledger.paymentRefs[i], let p = purchases[ref] {
            let t = p.current
            if t.environment != .production { return rates.intern(.zero(.sandbox, rates.currency)) }
            if t.isRevoked { return rates.intern(.zero(.refunded, rates.currency)) }
            let day = ProceedsRates.day(t.purchaseDate)
            if let storefront = t.storefront,
                let country = storefronts?.countryCode(ofTerritory: storefront),
                let r = try rates.productRate(
                    t.productId, country: country, currency: t.currency, day: day)
            {
                return r
            }
            if let r = try rates.productRate(t.productId, currency: t.currency, day: day) {
                return r
            }
        } else if let product = pack(credits: e.amount, price: ledger.prices[i], at: e.at),
            let r = try rates.productRate(
                product, currency: ledger.prices[i]?.currency, day: ProceedsRates.day(e.at))
        {
            return r
        }
        return try rates.periodRate(day: ProceedsRates.day(e.at)) ?? modelled
    }

    /// The one pack of the version in force at `at` that grants `credits` (and has a
    /// price in `price`'s currency, when the top-up recorded one).
    private func pack(credits: Int64, price: Money?, at: Timestamp) -> String? {
        guard let v = catalogue.version(at: at) else { return nil }
        let fits = v.packs.filter { pack in
            pack.credits == Int128(credits)
                && (price.map { p in pack.prices.contains { $0.price.currency == p.currency } }
                    ?? true)
        }
        return fits.count == 1 ? fits[0].productId : nil
    }

    static func key(_ e: ProceedsEntry) -> (Int64, UInt32, Int, UInt64) {
        let rank: Int =
            switch e.kind {
            case .grant, .topup: 0
            case .charge: 1
            case .refund: 2
            case .revoke: 3
            }
        return (e.seconds, e.nanoseconds, rank, e.idHash)
    }
}

extension ProceedsValuer.Tally {
    /// Counts `credits` of `e`'s feature at `rate` (negative: given back), in the window and
    /// in the entry's own period of the series.
    mutating func use(_ e: ProceedsEntry, _ rate: Int, _ credits: Int128, _ series: TakingsSeries?)
    {
        used[e.feature, default: [:]][rate, default: 0] += credits
        if let p = ProceedsValuer.period(e, series) {
            usedByPeriod[p, default: [:]][e.feature, default: [:]][rate, default: 0] += credits
        }
    }
}
