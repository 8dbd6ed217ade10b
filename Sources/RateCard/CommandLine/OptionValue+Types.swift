/// The option values that parse themselves: one reading and one message per kind of value,
/// whichever command takes it.

extension FXRate: OptionValue {
    static let expected = "BASE/QUOTE=RATE with ISO 4217 codes, e.g. USD/CNY=7.2"

    /// `USD/CNY=7.2`: 1 USD = 7.2 CNY, a positive decimal, credited to the command line.
    init(optionText text: String) throws(OptionValueProblem) {
        let parts = text.split(separator: "=", maxSplits: 1)
        let pair = parts.first?.split(separator: "/") ?? []
        guard parts.count == 2, pair.count == 2, let base = Currency(code: String(pair[0])),
            let quote = Currency(code: String(pair[1])), base != quote
        else { throw .unexpected }
        guard let rate = try? Exact(decimal: parts[1]), rate.isPositive else {
            throw OptionValueProblem("the rate must be a positive decimal")
        }
        self.init(base: base, quote: quote, rate: rate, fromCommandLine: true)
    }

    /// The `--fx` rates as given; a pair given twice, either way round (`USD/CNY=7` and
    /// `USD/CNY=8`, or `CNY/USD=0.14`), is bad usage: only one of them could be used, and the
    /// other would be dropped in silence.
    static func overrides(_ rates: [FXRate]) throws(UsageError) -> [FXRate] {
        for (i, r) in rates.enumerated() {
            for earlier in rates[..<i]
            where Set([earlier.base, earlier.quote]) == Set([r.base, r.quote]) {
                throw UsageError(
                    "--fx: \(r.base.code)/\(r.quote.code) is given twice (\(earlier) and \(r)); give each pair once"
                )
            }
        }
        return rates
    }
}

/// `--tax GBP=0.20`: a sales tax removed from tax-inclusive prices in a currency.
struct SalesTaxRate: OptionValue, Hashable {
    let currency: Currency
    /// From 0 to below 1.
    let rate: Exact

    static let expected = "CUR=RATE with an ISO 4217 code, e.g. GBP=0.20"

    init(optionText text: String) throws(OptionValueProblem) {
        let parts = text.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, let c = Currency(code: String(parts[0])) else { throw .unexpected }
        guard let rate = try? Exact(decimal: parts[1]), !rate.isNegative, rate < .one else {
            throw OptionValueProblem("the rate must be a decimal from 0 to below 1 (0.20 for 20%)")
        }
        currency = c
        self.rate = rate
    }

    /// The rates by currency; a currency given twice is bad usage.
    static func table(_ rates: [SalesTaxRate]) throws(UsageError) -> [Currency: Exact] {
        var out: [Currency: Exact] = [:]
        for r in rates {
            guard out[r.currency] == nil else {
                throw UsageError("--tax: \(r.currency.code) is given twice")
            }
            out[r.currency] = r.rate
        }
        return out
    }
}

/// `--commission 0.15,0.30` or `15%,30%`: commission rates, each from 0 to below 1.
struct CommissionRates: OptionValue, Hashable {
    let rates: [Exact]

    static let expected = "a list of rates such as 0.15,0.30 or 15%,30%"

    init(optionText text: String) throws(OptionValueProblem) {
        var out: [Exact] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            var s = String(part)
            let percent = s.hasSuffix("%")
            if percent { s.removeLast() }
            guard var v = try? Exact(decimal: s) else {
                throw OptionValueProblem("'\(part)' is not a rate (write 0.15 or 15%)")
            }
            if percent { v = (try? v.divided(by: Exact(100))) ?? v }
            guard !v.isNegative, v < .one else {
                throw OptionValueProblem("'\(part)' must be from 0 to below 1 (0.15 or 15%)")
            }
            // A rate given twice would print every row twice, as if two rates.
            guard !out.contains(v) else {
                throw OptionValueProblem("'\(part)' is the same rate as one given before it")
            }
            out.append(v)
        }
        rates = out
    }
}

extension Money: OptionValue {
    static let expected = "a currency and an amount, e.g. 'CNY 0.005'"

    /// "CNY 0.005", "CNY=0.005" or "0.005 CNY".
    init(optionText text: String) throws(OptionValueProblem) {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "=" }).map(String.init)
        guard parts.count == 2 else { throw .unexpected }
        let (code, amount) =
            Currency(code: parts[0]) != nil ? (parts[0], parts[1]) : (parts[1], parts[0])
        guard let c = Currency(code: code) else {
            // XOF is ISO 4217 all the same: say what margin knows, not what ISO does.
            throw OptionValueProblem(
                "neither '\(parts[0])' nor '\(parts[1])' is a currency margin knows (the ISO 4217 codes of the App Store's storefronts and the providers' sheets)"
            )
        }
        guard let a = try? Exact(decimal: amount), !a.isNegative else {
            throw OptionValueProblem("'\(amount)' is not a non-negative decimal")
        }
        self.init(a, c)
    }
}

/// `--memory 256M`: bytes, or a number with K, M, G or T (powers of 1024; `B`, `iB` allowed).
struct ByteSize: OptionValue, Hashable {
    let bytes: Int

    static let expected = "a size such as 256M or 2G"

    init(optionText text: String) throws(OptionValueProblem) {
        let units: [Character: Int] = ["K": 10, "M": 20, "G": 30, "T": 40]
        var digits = Substring(text.uppercased())
        if digits.hasSuffix("B") || digits.hasSuffix("IB") {
            digits = digits.dropLast(digits.hasSuffix("IB") ? 2 : 1)
        }
        var shift = 0
        if let last = digits.last, let s = units[last] {
            shift = s
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let n = Int(digits), n > 0,
            n <= Int.max >> shift
        else { throw .unexpected }
        bytes = n << shift
    }
}

/// `--threads 2`: a count of worker threads, 1 to 64.
struct ThreadCount: OptionValue, Hashable {
    let count: Int

    static let expected = "a number of threads from 1 to 64"

    init(optionText text: String) throws(OptionValueProblem) {
        guard text.allSatisfy(\.isASCII), let n = Int(text), (1...64).contains(n) else {
            throw .unexpected
        }
        count = n
    }
}

extension Timestamp: OptionValue {
    static let expected = "an RFC 3339 time with an offset, e.g. 2026-12-01T00:00:00Z"

    init(optionText text: String) throws(OptionValueProblem) {
        do { self = try Timestamp(rfc3339: text) } catch {
            throw OptionValueProblem("\(error)")
        }
    }
}

extension Currency: OptionValue {
    static let expected = "a known ISO 4217 currency code"

    init(optionText text: String) throws(OptionValueProblem) {
        guard let c = Currency(code: text) else {
            throw OptionValueProblem("not a known ISO 4217 code")
        }
        self = c
    }
}
