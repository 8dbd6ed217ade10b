extension ArgumentParser.Option {
    /// `--cards DIR`, the rate-card folder of every command that reads cards.
    public static let cards = Self(
        "cards", value: "DIR", help: "The rate-card folder (default: RateCards).")
    /// `--format FORMAT`, one of `OutputFormat`'s words.
    public static let format = Self(
        "format", value: "FORMAT", help: "table (default), json, csv or markdown.")
    /// `--fx BASE/QUOTE=RATE`, repeatable: rates that replace the FX file's.
    public static let fx = Self(
        "fx", value: "BASE/QUOTE=RATE", repeatable: true,
        help: "Override an FX rate, e.g. USD/CNY=7.2 (1 USD = 7.2 CNY). Repeatable.")
}

extension ArgumentParser.Option {
    /// `--commission RATES`: the commission rates of every currency, for the commands that
    /// price packs.
    public static let commission = Self(
        "commission", value: "RATES",
        help:
            "Commission rates for every currency, e.g. 0.15,0.30 (default: the commission file, else 15% and 30%)."
    )
}
