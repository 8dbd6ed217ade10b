/// The storefront options shared by `margin storefronts` and `margin check`, parsed from
/// their command-line text.
struct StorefrontArguments: Sendable, Hashable {
    /// `--price-points PRODUCT_ID=FILE`, in the order given.
    var bindings: [(productId: String, path: String)]
    /// `--at`: the day prices and regimes are taken at.
    var date: CalendarDate
    /// `--program`; nil: the card's `storeProgram`, else standard.
    var program: StoreProgram?

    static func == (lhs: StorefrontArguments, rhs: StorefrontArguments) -> Bool {
        lhs.bindings.map { "\($0.productId)=\($0.path)" }
            == rhs.bindings.map { "\($0.productId)=\($0.path)" } && lhs.date == rhs.date
            && lhs.program == rhs.program
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bindings.map { "\($0.productId)=\($0.path)" })
        hasher.combine(date)
        hasher.combine(program)
    }

    /// Parses the options' text; `today` is the default for `--at`.
    init(pricePoints: [String], at: String?, program: String?, today: CalendarDate)
        throws(UsageError)
    {
        var bindings: [(productId: String, path: String)] = []
        for text in pricePoints {
            guard let eq = text.firstIndex(of: "="), eq != text.startIndex,
                text.index(after: eq) != text.endIndex
            else {
                throw UsageError(
                    "--price-points \(text): expected PRODUCT_ID=FILE, e.g. 3000tks=prices/3000tks-equalizations.json"
                )
            }
            bindings.append((String(text[..<eq]), String(text[text.index(after: eq)...])))
        }
        self.bindings = bindings
        if let at {
            if let d = CalendarDate(at) {
                date = d
            } else if let t = try? Timestamp(rfc3339: at) {
                date = t.local(offsetMinutes: 0).date
            } else {
                throw UsageError("--at \(at): expected a date YYYY-MM-DD or an RFC 3339 time")
            }
        } else {
            date = today
        }
        if let program {
            self.program = try StoreProgram(choosing: program)
        } else {
            self.program = nil
        }
    }
}

extension StorefrontArguments {
    /// `--price-points`, `--at` (today, UTC, without it) and `--program`.
    init(arguments args: ParsedArguments) throws(UsageError) {
        try self.init(
            pricePoints: args.all("price-points"), at: args.value("at"),
            program: args.value("program"), today: Timestamp.current.local(offsetMinutes: 0).date)
    }
}
