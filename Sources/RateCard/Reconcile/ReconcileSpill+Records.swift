/// The records of a partitioned reconciliation on their way through the files, each
/// written whole and read back equal (`ReconcileSpillTests`).
extension ReconcileSpill {
    // MARK: Ledger entries (`.rec`)

    func write(_ e: ReconcileLedger.Scanned) {
        var w = SpillWriter()
        w.int(e.sequence)
        w.int(e.key.h0)
        w.int(e.key.h1)
        w.int(e.content)
        w.int(UInt32(e.input))
        w.int(Int64(e.line))
        switch e.payload {
        case .none:
            w.int(UInt8(0))
        case .topup(let c):
            w.int(UInt8(1))
            write(c, &w)
        case .revoke(let c):
            w.int(UInt8(2))
            write(c, &w)
        case .spend(let device, let s):
            w.int(UInt8(3))
            w.string(device)
            Self.write(s, &w)
        }
        append(TakingsSpill.partition(of: e.key.h0, count: partitions), Self.entries, w.bytes)
    }

    /// The entries of partition `p`, in input order (its file deleted).
    func entries(_ p: Int) throws(TakingsInputError) -> [ReconcileLedger.Scanned] {
        var r = SpillReader(try take(p, Self.entries))
        var out: [ReconcileLedger.Scanned] = []
        while !r.atEnd {
            let sequence = r.int(Int64.self)
            let key = ReconcileLedger.IDKey(h0: r.int(UInt64.self), h1: r.int(UInt64.self))
            let content = r.int(UInt64.self)
            let input = Int(r.int(UInt32.self))
            let line = Int(r.int(Int64.self))
            let payload: ReconcileLedger.Scanned.Payload
            switch r.int(UInt8.self) {
            case 0: payload = .none
            case 1: payload = .topup(try credit(&r, p, Self.entries))
            case 2: payload = .revoke(try credit(&r, p, Self.entries))
            case 3:
                let device = r.string() ?? ""
                payload = .spend(device, Self.spend(&r))
            default: throw damaged(p, Self.entries)
            }
            guard r.ok, input < ledgerPaths.count else { throw damaged(p, Self.entries) }
            out.append(
                ReconcileLedger.Scanned(
                    sequence: sequence, key: key, content: content, input: input, line: line,
                    payload: payload))
        }
        return out
    }

    // MARK: Top-ups and revokes (`.req`)

    /// A top-up or revoke kept, to the partition of its payment reference.
    func write(credit c: ReconcileLedger.Credit, isTopup: Bool, sequence: Int64) {
        var w = SpillWriter()
        w.int(sequence)
        w.flag(isTopup)
        write(c, &w)
        append(partition(of: c.paymentRef ?? ""), Self.credits, w.bytes)
    }

    /// Partition `p`'s top-ups and revokes, each in input order (its file deleted).
    func credits(_ p: Int) throws(TakingsInputError) -> (
        topups: [ReconcileLedger.Credit], revokes: [ReconcileLedger.Credit]
    ) {
        var r = SpillReader(try take(p, Self.credits))
        var topups: [(Int64, ReconcileLedger.Credit)] = []
        var revokes: [(Int64, ReconcileLedger.Credit)] = []
        while !r.atEnd {
            let sequence = r.int(Int64.self)
            let isTopup = r.flag()
            let c = try credit(&r, p, Self.credits)
            guard r.ok else { throw damaged(p, Self.credits) }
            if isTopup { topups.append((sequence, c)) } else { revokes.append((sequence, c)) }
        }
        return (
            topups.sorted { $0.0 < $1.0 }.map(\.1), revokes.sorted { $0.0 < $1.0 }.map(\.1)
        )
    }

    private func write(_ c: ReconcileLedger.Credit, _ w: inout SpillWriter) {
        w.string(c.id)
        w.timestamp(c.at)
        w.int(c.credits)
        w.string(c.paymentRef)
        w.string(c.device)
        w.string(c.price?.currency.code)
        w.exact(c.price?.amount)
        w.int(UInt32(ledgerPaths.firstIndex(of: c.place.path) ?? 0))
        w.int(Int64(c.place.line))
    }

    private func credit(_ r: inout SpillReader, _ p: Int, _ file: TakingsSpill.File)
        throws(TakingsInputError) -> ReconcileLedger.Credit
    {
        let id = r.string() ?? ""
        let at = r.timestamp()
        let credits = r.int(Int64.self)
        let ref = r.string()
        let device = r.string()
        let code = r.string()
        let amount = r.exact()
        let input = Int(r.int(UInt32.self))
        let line = Int(r.int(Int64.self))
        guard r.ok, let at, input < ledgerPaths.count else { throw damaged(p, file) }
        var price: Money?
        if let code {
            guard let c = Currency(code: code), let amount else { throw damaged(p, file) }
            price = Money(amount, c)
        }
        return ReconcileLedger.Credit(
            id: id, at: at, credits: credits, paymentRef: ref, device: device, price: price,
            place: ReconcileLedger.Place(path: ledgerPaths[input], line: line))
    }

    // MARK: Spending (`.rf`)

    func write(spend s: ReconcileLedger.Spend, device: String) {
        var w = SpillWriter()
        w.string(device)
        Self.write(s, &w)
        append(partition(of: device), Self.spending, w.bytes)
    }

    /// The spending of `devices` that fall in partition `p` (its file deleted).
    func spending(_ p: Int, of devices: Set<String>) throws(TakingsInputError) -> [String:
        [ReconcileLedger.Spend]]
    {
        var r = SpillReader(try take(p, Self.spending))
        var out: [String: [ReconcileLedger.Spend]] = [:]
        while !r.atEnd {
            let device = r.string() ?? ""
            let s = Self.spend(&r)
            guard r.ok else { throw damaged(p, Self.spending) }
            if devices.contains(device) { out[device, default: []].append(s) }
        }
        return out
    }

    private static func write(_ s: ReconcileLedger.Spend, _ w: inout SpillWriter) {
        w.int(s.seconds)
        w.int(s.amount)
        w.exact(s.cost)
    }

    private static func spend(_ r: inout SpillReader) -> ReconcileLedger.Spend {
        let seconds = r.int(Int64.self)
        let amount = r.int(Int64.self)
        return ReconcileLedger.Spend(seconds: seconds, amount: amount, cost: r.exact())
    }

    // MARK: Apple's records (`.cs`)

    /// A transaction record, or a notification with its transaction, to the partition of
    /// its transaction id.
    func write(_ t: AppleTransaction) {
        var w = SpillWriter()
        w.int(UInt8(1))
        write(t, &w)
        append(partition(of: t.transactionId), Self.apple, w.bytes)
    }

    func write(_ n: AppleNotification) {
        guard let t = n.transaction else { return }
        var w = SpillWriter()
        w.int(UInt8(2))
        w.string(n.notificationType)
        w.string(n.subtype)
        w.string(n.notificationUUID)
        w.timestamp(n.signedDate)
        place(n.place, &w)
        write(t, &w)
        append(partition(of: t.transactionId), Self.apple, w.bytes)
    }

    /// Partition `p`'s transaction records and notifications, each in the order read.
    func appleRecords(_ p: Int) throws(TakingsInputError) -> AppleRecords {
        var r = SpillReader(try take(p, Self.apple))
        var records = AppleRecords()
        while !r.atEnd {
            switch r.int(UInt8.self) {
            case 1:
                records.transactions.append(try transaction(&r, p))
            case 2:
                let type = r.string() ?? ""
                let subtype = r.string()
                let uuid = r.string()
                let signed = r.timestamp()
                let at = try place(&r, p)
                let t = try transaction(&r, p)
                records.notifications.append(
                    AppleNotification(
                        notificationType: type, subtype: subtype, notificationUUID: uuid,
                        signedDate: signed, transaction: t, place: at))
            default: throw damaged(p, Self.apple)
            }
        }
        return records
    }

    private func write(_ t: AppleTransaction, _ w: inout SpillWriter) {
        w.string(t.transactionId)
        w.string(t.originalTransactionId)
        w.string(t.productId)
        w.timestamp(t.purchaseDate)
        w.int(t.quantity)
        w.string(t.type)
        w.string(t.storefront)
        w.string(t.currency?.code)
        w.optional(t.priceMilliunits)
        w.timestamp(t.revocationDate)
        w.optional(t.revocationReason)
        w.string(t.appAccountToken)
        w.string(t.environment.rawValue)
        w.timestamp(t.signedDate)
        place(t.place, &w)
    }

    private func transaction(_ r: inout SpillReader, _ p: Int) throws(TakingsInputError)
        -> AppleTransaction
    {
        let id = r.string()
        let original = r.string()
        let product = r.string()
        let purchase = r.timestamp()
        let quantity = r.int(Int64.self)
        let type = r.string()
        let storefront = r.string()
        let code = r.string()
        let price = r.optional(Int64.self)
        let revocation = r.timestamp()
        let reason = r.optional(Int64.self)
        let token = r.string()
        let environment = r.string().flatMap(AppleTransaction.Environment.init(rawValue:))
        let signed = r.timestamp()
        let at = try place(&r, p)
        guard r.ok, let id, let product, let purchase, let type, let environment else {
            throw damaged(p, Self.apple)
        }
        var currency: Currency?
        if let code {
            guard let c = Currency(code: code) else { throw damaged(p, Self.apple) }
            currency = c
        }
        return AppleTransaction(
            transactionId: id, originalTransactionId: original, productId: product,
            purchaseDate: purchase, quantity: quantity, type: type, storefront: storefront,
            currency: currency, priceMilliunits: price, revocationDate: revocation,
            revocationReason: reason, appAccountToken: token, environment: environment,
            signedDate: signed, place: at)
    }

    /// A place as the index of its file among `applePaths`, its line and column.
    private func place(_ at: ApplePlace, _ w: inout SpillWriter) {
        w.int(UInt32(applePaths.firstIndex(of: at.path) ?? 0))
        w.int(Int64(at.line))
        w.int(Int64(at.column))
    }

    private func place(_ r: inout SpillReader, _ p: Int) throws(TakingsInputError) -> ApplePlace {
        let file = Int(r.int(UInt32.self))
        let line = Int(r.int(Int64.self))
        let column = Int(r.int(Int64.self))
        guard r.ok, file < applePaths.count else { throw damaged(p, Self.apple) }
        return ApplePlace(path: applePaths[file], line: line, column: column)
    }
}
