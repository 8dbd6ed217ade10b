/// `margin publish CARD`: record one card version as published, its digest in the lock
/// (`CardPublisher`), with the same `--fx`, `--commission` and `--tax` as `check`.
public struct PublishRequest: Sendable {
    /// The card file to publish.
    var card: String
    /// The rate-card folder the card is checked with (`--cards`).
    var cardsDirectory: String
    /// The publish lock (`--lock`; `published.lock` in the folder by default).
    var lockPath: String
    var options: CardChecker.Options

    /// The request the command line makes: exactly one card file; bad values are usage
    /// errors.
    public init(arguments args: ParsedArguments) throws {
        guard args.positionals.count == 1, let card = args.positionals.first else {
            throw UsageError(
                args.positionals.isEmpty
                    ? "give the card file to publish" : "give one card file at a time")
        }
        options = try args.checkOptions()
        self.card = card
        cardsDirectory = args.value("cards") ?? "RateCards"
        let folder = cardsDirectory.hasSuffix("/") ? cardsDirectory : cardsDirectory + "/"
        lockPath = args.value("lock") ?? folder + PublishLock.fileName
    }

    /// What `margin publish` prints: what it recorded (or that it was already recorded),
    /// on stderr; a refused card is a `CardPublisher.Failure`.
    public func output(bold: Bool) throws -> CommandOutput {
        switch try CardPublisher.publish(
            cardPath: card, cardsDirectory: cardsDirectory, lockPath: lockPath, options: options)
        {
        case .recorded(let entry):
            CommandOutput([
                .message(
                    "published \(entry.reference) (\(entry.file), sha256 \(entry.sha256.prefix(12))…) in \(lockPath)\n"
                )
            ])
        case .alreadyRecorded(let entry):
            CommandOutput([
                .message(
                    "\(entry.reference) is already published with this content in \(lockPath); nothing to do\n"
                )
            ])
        }
    }
}
