/// The option values several commands share, read in one place so that a command names
/// the result, not each option's value type.
extension ParsedArguments {
    /// `--fx`, every rate that replaces the FX file's.
    func fxOverrides() throws(UsageError) -> [FXRate] {
        try FXRate.overrides(values("fx", as: FXRate.self))
    }

    /// `--tax`, the sales-tax rates by currency.
    func taxRates() throws(UsageError) -> [Currency: Exact] {
        try SalesTaxRate.table(values("tax", as: SalesTaxRate.self))
    }

    /// `--commission`, the rates for every currency; nil without it.
    func commissionRates() throws(UsageError) -> [Exact]? {
        try value("commission", as: CommissionRates.self)?.rates
    }

    /// `--input-format`, the ledger format `replay` and `reconcile` are forced to read; nil
    /// without it (detected).
    func inputFormat() throws(UsageError) -> TakingsFormat? {
        guard let f = value("input-format") else { return nil }
        guard let v = TakingsFormat(rawValue: f) else {
            throw UsageError(
                "unknown input format '\(f)' (one of: \(TakingsFormat.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        return v
    }

    /// What `check` and `publish` share with `packs`: `--lock`, `--fx`, `--commission`,
    /// `--tax` and `--now`.
    func checkOptions() throws(UsageError) -> CardChecker.Options {
        var options = CardChecker.Options(lockPath: value("lock"))
        options.fxOverrides = try fxOverrides()
        options.commissionRates = try commissionRates()
        options.taxRates = try taxRates()
        if let now = try value("now", as: Timestamp.self) { options.now = now }
        return options
    }
}
