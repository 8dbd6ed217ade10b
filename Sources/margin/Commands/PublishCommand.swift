import RateCard

/// `margin publish CARD`: freezes a card version by recording its digest in the lock.
enum PublishCommand: Command {
    static let name = "publish"
    static let summary =
        "Record a card version as published (its SHA-256 in the lock); a published version never changes."
    static let usage =
        "margin publish CARD [--cards DIR] [--lock FILE] [--fx BASE/QUOTE=RATE] [--commission RATES] [--tax CUR=RATE]"
    static let parser = ArgumentParser([
        Common.cardsOption,
        ArgumentParser.Option(
            "lock", value: "FILE", help: "The publish lock (default: DIR/published.lock)."),
        Common.fxOption, Common.commissionOption, Common.taxOption,
    ])

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        guard args.positionals.count == 1, let card = args.positionals.first else {
            throw UsageError(
                args.positionals.isEmpty
                    ? "give the card file to publish" : "give one card file at a time")
        }
        let options = try args.checkOptions()
        let dir = Common.cardsDirectory(args)
        let lockPath =
            args.value("lock") ?? (dir.hasSuffix("/") ? dir : dir + "/") + PublishLock.fileName
        switch try CardPublisher.publish(
            cardPath: card, cardsDirectory: dir, lockPath: lockPath, options: options)
        {
        case .recorded(let entry):
            io.err(
                "published \(entry.reference) (\(entry.file), sha256 \(entry.sha256.prefix(12))…) in \(lockPath)\n"
            )
        case .alreadyRecorded(let entry):
            io.err(
                "\(entry.reference) is already published with this content in \(lockPath); nothing to do\n"
            )
        }
        return 0
    }
}
