import Foundation
import Testing

/// The replay gate where it cannot judge, through the binary: a candidate that sells no
/// priced pack, a folder with a subscription-only card, usage that none of the card's
/// features prices, and limits that are not numbers. Each is said (the file, the card, the
/// option), never a pass on nothing nor advice to use an option the command lacks.
@Suite("Replay gate: the cases it cannot judge")
struct ReplayGateEdgeCLITests {
    static let ledger = ReplayGateCLITests.ledger
    static let candidate = ReplayGateCLITests.candidate

    /// The candidate with `packs` emptied, written into `dir`.
    static func withoutPacks(_ dir: TemporaryFolder) throws -> String {
        let text = try String(contentsOfFile: candidate, encoding: .utf8)
        let start = try #require(text.range(of: "\"packs\": ["))
        let end = try #require(
            text.range(of: "],\n  \"notes\"", range: start.upperBound..<text.endIndex))
        try dir.write(
            "osg-v11.json", String(text[..<start.upperBound]) + String(text[end.lowerBound...]))
        return dir.path + "/osg-v11.json"
    }

    @Test(
        "diff --usage with a NEW that sells no pack: exit 2, and no advice to give --credit-value")
    func diffWithoutPacks() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let new = try Self.withoutPacks(dir)
        try expectMargin(
            ["diff", "osg@10", new, "--usage", Self.ledger], exits: 2,
            stderr: .contains(
                "margin: error: cannot value a credit: card osg@11 sells no pack with a positive price: the replay values a credit by the candidate's packs; replay this usage with 'margin replay FILE… --card NEW --credit-value MONEY' instead"
            ))
        // margin replay, which takes --credit-value, still says to give it.
        try expectMargin(
            ["replay", Self.ledger, "--card", new], exits: 2,
            stderr: .contains(
                "cannot value a credit: card osg@11 sells no pack with a positive price: give --credit-value"
            ))
        try expectMargin(
            ["replay", Self.ledger, "--card", new, "--credit-value", "CNY 0.01"], exits: 0)
    }

    @Test(
        "check --replay over a folder with a subscription-only card: its margin is said to be unjudged, not exit 2"
    )
    func subscriptionOnlyCard() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let cards = try dir.copyRepositoryCards()
        try FileManager.default.copyItem(
            atPath: packageRoot.appendingPathComponent("docs/examples/plans/talk-v1.json").path,
            toPath: cards + "/talk-v1.json")
        // talk@1's own usage: one asr charge of 76 s, 26 credits as talk@1 charges it.
        try dir.write(
            "talk.jsonl",
            #"{"id":"t1","at":"2026-12-02T10:00:00+08:00","kind":"charge","amount":-26,"feature":"asr","quantity":{"second":76},"device":"A","card":"talk@1"}"#
                + "\n")
        let talk = dir.path + "/talk.jsonl"
        try expectMargin(
            ["check", cards, "--replay", talk, "--max-margin-drop", "5"], exits: 1,
            stderr: .contains(
                "\(cards)/talk-v1.json:1:1: error: on the replayed usage, the overall margin under talk@1 cannot be judged against --max-margin-drop 5: cannot value a credit: card talk@1 sells no pack with a positive price [replay-margin-drop]"
            ))
        // The credit limit needs no value: judged, and passes (the same credits).
        try expectMargin(
            ["check", cards, "--replay", talk, "--max-credit-change", "0%"], exits: 0,
            stderr: .all(
                .lacks("cannot value a credit", "replay-credit-change", "replay-margin-drop"),
                .contains("[unpublished-card]", "0 errors")))
        // osg's usage (every charge `card: osg@10`) is not talk@1's, though the features'
        // keys are the same: talk is not judged by it, and osg passes as before.
        try expectMargin(
            [
                "check", cards, "--replay", Self.ledger, "--max-credit-change", "10%",
                "--max-margin-drop", "5",
            ], exits: 0,
            stderr: .all(
                .lacks("talk@1 cannot be judged", "replay-credit-change", "replay-margin-drop"),
                .contains("0 errors")))
    }

    @Test("diff --usage gate on usage none of the features prices fails: the limits judged nothing")
    func nothingRepriced() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write(
            "other.jsonl",
            #"{"id":"c1","at":"2026-11-02T10:00:00+08:00","kind":"charge","amount":-26,"feature":"tts","quantity":{"second":76},"device":"A","card":"osg@10"}"#
                + "\n")
        let args = ["diff", "osg@10", Self.candidate, "--usage", dir.path + "/other.jsonl"]
        try expectMargin(
            args + ["--max-credit-change", "10%"], exits: 1,
            stderr: .contains(
                "\(Self.candidate):1:1: error: on the replayed usage, no charge could be re-priced under osg@11 against osg@10 (1 not re-priced of 1): the limits judged nothing [replay-nothing-repriced]"
            ))
        // Without a limit there is no gate: the section is shown, exit 0.
        try expectMargin(args, exits: 0, stderr: .lacks("replay-nothing-repriced"))
    }

    @Test(
        "limits that are not numbers name their option and its unit",
        arguments: ["-5", "abc", "5 points"])
    func badLimits(text: String) throws {
        try expectMargin(
            ["check", "RateCards", "--replay", Self.ledger, "--max-margin-drop", text], exits: 2,
            stderr: .contains(
                "--max-margin-drop \(text): expected percentage points of 0 or more, such as 5 (the fall of the margin, 25% → 20% is 5)"
            ))
        try expectMargin(
            ["check", "RateCards", "--replay", Self.ledger, "--max-credit-change", text], exits: 2,
            stderr: .contains(
                "--max-credit-change \(text): expected a percentage of 0 or more, such as 10%"))
    }
}

/// A candidate that removes a feature the usage charges: the gate names the feature (its
/// requests and the credits charged), since no limit can judge charges it cannot price.
@Suite("Replay gate: a removed feature the usage charges")
struct ReplayGateRemovedFeatureCLITests {
    @Test("diff --usage and check --replay fail on osg@11 without llm")
    func removedFeature() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let card = try ReplayGateCLITests.candidateWithoutLLM()
        try dir.write("osg-v11.json", card)
        let new = dir.path + "/osg-v11.json"
        let message =
            "error: on the replayed usage, feature llm has 3 requests (508 credits charged), but osg@11 has no feature \"llm\""
        try expectMargin(
            [
                "diff", "osg@10", new, "--usage", ReplayGateCLITests.ledger,
                "--max-credit-change", "1000%",
            ], exits: 1,
            stderr: .contains(
                "\(new):1:1: \(message) (osg@10 has it): none can be re-priced, past any limit [replay-credit-change]"
            ))
        let cards = try dir.copyRepositoryCards()
        try dir.write("RateCards/osg-v11.json", card)
        try expectMargin(
            ["check", cards, "--replay", ReplayGateCLITests.ledger, "--max-margin-drop", "1000"],
            exits: 1,
            stderr: .contains(
                "\(cards)/osg-v11.json:1:1: \(message) (the ledger's versions have it): none can be re-priced, past any limit [replay-credit-change]"
            ))
    }
}
