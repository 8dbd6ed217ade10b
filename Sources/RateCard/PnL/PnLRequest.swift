/// What `margin pnl` is asked: which exports, over which window, and how credits become
/// money. `PnLRun.run(_:)` answers it with a `PnLReport`.
public struct PnLRequest: Sendable {
    /// The exports, in the order given.
    var inputs: [TakingsInput]
    /// The window and the series; an open end is closed by a cost sheet's period.
    var window: TakingsWindow
    var series: TakingsSeries?
    /// Any rejection makes the run exit 1.
    var strict: Bool
    /// The current time: the end of an open window when choosing the card versions in
    /// force (a version effective after now never valued anything yet).
    var now: Timestamp
    /// The rate-card folders or files, and FX rates that override the FX file's.
    var cards: [String]
    var fxOverrides: [FXRate]
    /// The card family that priced the takings; nil when the folder holds only one.
    var card: String?
    /// The reporting currency; nil for the providers' currency.
    var currency: Currency?
    /// A stated value per credit; nil to value conservatively from the packs.
    var creditValue: Money?
    /// A fixed-cost sheet (`--costs`).
    var costSheet: String?
    /// Reader settings (threads, block size); the window, series and strictness above win.
    var takingsOptions: TakingsOptions
    /// Apple's reports (and transactions) to value credits at what they really earned
    /// (`--proceeds`, `--transactions`); nil: the modelled value only.
    var proceeds: ProceedsSources? = nil
    /// `--format`.
    var format = OutputFormat.table

    /// Counters the run advances as it reads, for a progress display (nil: none).
    public var progress: TakingsProgress? {
        get { takingsOptions.progress }
        set { takingsOptions.progress = newValue }
    }

    init(
        inputs: [TakingsInput], window: TakingsWindow = .all, series: TakingsSeries? = nil,
        strict: Bool = false,
        now: Timestamp, cards: [String] = ["RateCards"], fxOverrides: [FXRate] = [],
        card: String? = nil,
        currency: Currency? = nil, creditValue: Money? = nil, costSheet: String? = nil,
        takingsOptions: TakingsOptions = TakingsOptions()
    ) {
        self.inputs = inputs
        self.window = window
        self.series = series
        self.strict = strict
        self.now = now
        self.cards = cards
        self.fxOverrides = fxOverrides
        self.card = card
        self.currency = currency
        self.creditValue = creditValue
        self.costSheet = costSheet
        self.takingsOptions = takingsOptions
    }
}
