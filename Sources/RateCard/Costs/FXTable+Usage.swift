extension FXTable {
    /// True when a figure resting on `used` rests on a rate of this file while the file is
    /// a placeholder (a rate given on the command line is the user's own, not the file's).
    func restsOnPlaceholder(_ used: [FXRate]) -> Bool {
        placeholder && used.contains { !$0.fromCommandLine }
    }

    /// `fx` of the packs' and plans' JSON: the file, and every rate used with where it
    /// came from.
    func json(used: [FXRate]) -> JSONOutput {
        var o: [String: JSONOutput] = [
            "file": .string(source.path), "placeholder": .bool(placeholder),
            "source": .string(sourceNote),
            "used": .array(
                used.map {
                    .object([
                        "base": .string($0.base.code), "quote": .string($0.quote.code),
                        "rate": .decimal($0.rate),
                        "from": .string($0.fromCommandLine ? "command line" : "file"),
                    ])
                }),
            "restsOnPlaceholder": .bool(restsOnPlaceholder(used)),
        ]
        if let d = date { o["date"] = .string(d.description) }
        return .object(o)
    }
}
