import Foundation
import Testing

/// Inputs a data engineer feeds from real exports, through the built binary: what a
/// wave-3 QA hunt found wrong, pinned where the user sees it.
@Suite("Ledger edge inputs: pnl and replay through the binary")
struct LedgerEdgeInputCLITests {
    static func charge(_ id: String, at: String, balanceAfter: Int) -> String {
        #"{"id":""# + id + #"","at":""# + at
            + #"","kind":"charge","amount":-26,"feature":"asr","quantity":{"second":76},"device":"A","balanceAfter":"#
            + "\(balanceAfter)}"
    }

    /// Two charges in the same second (an export with second precision): the chain
    /// 0 → −26 → −52 is whole, whichever of the two is "latest"; it used to be a
    /// `balance-chain` warning (an error and exit 1 under `--strict`) when the tie was
    /// broken toward the first, which says −26.
    @Test("two entries at the latest instant do not break a whole balance chain")
    func tiedLatestEntries() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        for (name, order) in [("ab.jsonl", [0, 1]), ("ba.jsonl", [1, 0])] {
            let lines = [
                Self.charge("c1", at: "2026-11-02T10:00:00+08:00", balanceAfter: -26),
                Self.charge("c2", at: "2026-11-02T10:00:00+08:00", balanceAfter: -52),
            ]
            try dir.write(name, order.map { lines[$0] }.joined(separator: "\n") + "\n")
            try expectMargin(
                ["pnl", dir.path + "/" + name, "--card", "osg", "--window", "all", "--strict"],
                exits: 0, stderr: .lacks("balance-chain"))
        }
        // A tie does not hide a break: a balanceAfter off by 2 is still found.
        try dir.write(
            "broken.jsonl",
            [
                Self.charge("c1", at: "2026-11-02T10:00:00+08:00", balanceAfter: -26),
                Self.charge("c2", at: "2026-11-02T10:00:00+08:00", balanceAfter: -50),
            ].joined(separator: "\n") + "\n")
        try expectMargin(
            ["pnl", dir.path + "/broken.jsonl", "--card", "osg", "--window", "all", "--strict"],
            exits: 1,
            stderr: .contains(
                "broken.jsonl:1:1: error: device \"A\": balance chain broken: the balanceAfter values of its 2 entries do not follow from their amounts"
            ))
        // Nor does a later entry of a whole chain make a tie earlier in it matter.
        try dir.write(
            "later.jsonl",
            [
                Self.charge("c1", at: "2026-11-02T10:00:00+08:00", balanceAfter: -26),
                Self.charge("c2", at: "2026-11-02T10:00:00+08:00", balanceAfter: -52),
                Self.charge("c3", at: "2026-11-02T10:00:01+08:00", balanceAfter: -70),
            ].joined(separator: "\n") + "\n")
        try expectMargin(
            ["pnl", dir.path + "/later.jsonl", "--card", "osg", "--window", "all", "--strict"],
            exits: 1,
            stderr: .contains(
                "later.jsonl:3:1: error: device \"A\": balance chain broken: its latest entry says balanceAfter -70, but its 3 amounts sum to -78"
            ))
    }

    /// The lines below pnl's table are figures for people too: a negative outstanding
    /// balance is signed with the same minus as the table.
    @Test("pnl's outstanding balance line uses the minus of the table")
    func outstandingBalanceMinus() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write(
            "l.jsonl",
            [
                Self.charge("c1", at: "2026-11-02T10:00:00+08:00", balanceAfter: -26),
                Self.charge("c2", at: "2026-11-02T10:00:01+08:00", balanceAfter: -52),
            ].joined(separator: "\n") + "\n")
        let args = ["pnl", dir.path + "/l.jsonl", "--card", "osg", "--window", "all"]
        try expectMargin(
            args + ["--credit-value", "CNY 0.01"], exits: 0,
            stdout: .contains(
                "outstanding balance: \u{2212}52 credits, CNY \u{2212}0.52 at CNY 0.01 per credit"))
        try expectMargin(
            args + ["--credit-value", "CNY 0.01", "--format", "markdown"], exits: 0,
            stdout: .contains("- outstanding balance: \u{2212}52 credits, CNY \u{2212}0.52"))
        try expectMargin(
            args + ["--credit-value", "CNY 0.01", "--format", "csv"], exits: 0,
            stdout: .lacks("\u{2212}"))
    }

    /// Apple states a refund as a revocation: a transaction with a negative price is not
    /// Apple's. It was read, and reported as a price off the card ("Apple GBP -0.99 per
    /// unit"); it is now bad input at its field, exit 2, in memory and partitioned.
    @Test(
        "reconcile: a negative transaction price is bad input at its field",
        arguments: [[], ["--memory", "1K"]])
    func negativeApplePrice(options: [String]) throws {
        let a = "Tests/RateCardTests/Fixtures/Apple"
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let first = try String(contentsOfFile: a + "/transactions.jsonl", encoding: .utf8)
            .split(separator: "\n")[0]
        try dir.write(
            "t.jsonl",
            first.replacingOccurrences(of: #""price":990"#, with: #""price":-990"#) + "\n")
        try expectMargin(
            [
                "reconcile", a + "/ledger.jsonl", "--cards", a + "/cards", "--transactions",
                dir.path + "/t.jsonl",
            ] + options,
            exits: 2,
            stderr: .contains(
                dir.path
                    + "/t.jsonl:1:406: error: price: -990 milliunits is negative: a transaction's price is 0 or more (a refund is its revocationDate)"
            ))
    }

    /// A roll-up row's problem with one field is said at that field's column, as an
    /// entry's is (it was at column 1 of the line).
    @Test("roll-up rows: a bad field is named at its column")
    func rollupColumns() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let rows = [
            #"{"rollup": {"period": "2026-11", "feature": "asr", "charges": -1, "charged": "10"}}"#,
            #"{"rollup": {"period": "2026-13", "feature": "asr", "charges": 1, "charged": "10"}}"#,
            #"{"rollup": {"period": "2026-11", "feature": "asr", "charges": 1, "charged": 1.5}}"#,
            #"{"rollup": {"period": "0001-01", "tz": "+14:00", "feature": "asr", "charges": 1}}"#,
        ]
        try dir.write("r.jsonl", rows.joined(separator: "\n") + "\n")
        func column(_ row: String, _ key: String) -> Int {
            let r = row.range(of: "\"\(key)\": ")!
            return row.utf8.distance(from: row.startIndex, to: r.upperBound) + 1
        }
        let path = dir.path + "/r.jsonl"
        try expectMargin(
            ["pnl", path, "--card", "osg", "--window", "all"], exits: 0,
            stderr: .contains(
                "\(path):1:\(column(rows[0], "charges")): error: charges: a roll-up counts and sums are zero or more, found -1 [wrong-sign]",
                "\(path):2:\(column(rows[1], "period")): error: period: \"2026-13\" is not a day",
                "\(path):3:\(column(rows[2], "charged")): error: charged: 1.5 is not a whole number",
                "\(path):4:\(column(rows[3], "period")): error: period: 0001-01 at +14:00 starts before 0001-01-01T00:00:00Z"
            ))
    }
}
