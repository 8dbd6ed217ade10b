/// The option values several commands share, read in one place so that a command names
/// the result, not each option's value type.
extension ParsedArguments {
    /// `--fx`, every rate that replaces the FX file's.
    public func fxOverrides() throws(UsageError) -> [FXRate] {
        try values("fx", as: FXRate.self)
    }

    /// `--tax`, the sales-tax rates by currency.
    public func taxRates() throws(UsageError) -> [Currency: Exact] {
        try SalesTaxRate.table(values("tax", as: SalesTaxRate.self))
    }

    /// `--commission`, the rates for every currency; nil without it.
    public func commissionRates() throws(UsageError) -> [Exact]? {
        try value("commission", as: CommissionRates.self)?.rates
    }

    /// What `check` and `publish` share with `packs`: `--lock`, `--fx`, `--commission`,
    /// `--tax` and `--now`.
    public func checkOptions() throws(UsageError) -> CardChecker.Options {
        var options = CardChecker.Options(lockPath: value("lock"))
        options.fxOverrides = try fxOverrides()
        options.commissionRates = try commissionRates()
        options.taxRates = try taxRates()
        if let now = try value("now", as: Timestamp.self) { options.now = now }
        return options
    }
}
