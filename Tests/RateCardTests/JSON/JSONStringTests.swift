import Foundation
import Testing

@testable import RateCard

/// Issue 25: one JSON string escaper behind every JSON the tool writes.
@Suite struct JSONStringTests {
    /// Every control character, quotes, backslashes, non-ASCII and an emoji.
    static let samples: [String] =
        (0..<0x20).map { String(UnicodeScalar(UInt8($0))) } + [
            "plain", "say \"hi\"", "back\\slash", "é and e\u{301}", "日本", "🧾", "",
            "mixed\u{1}\"\\\n\u{7F}end",
        ]

    @Test func theThreeWritersAgreeByteForByte() {
        for s in Self.samples {
            var canonical: [UInt8] = []
            CanonicalJSON.writeString(s, to: &canonical)
            let fromOutput = JSONOutput.quote(s)
            let fromLedger = TakingsJSONWriter.string(s)
            #expect(Array(fromOutput.utf8) == canonical, "\(Array(s.utf8))")
            #expect(fromLedger == fromOutput, "\(Array(s.utf8))")
        }
    }

    @Test func escapesAreRFC8785s() {
        #expect(JSONString.quoted("\u{8}\u{9}\u{A}\u{C}\u{D}") == #""\b\t\n\f\r""#)
        #expect(JSONString.quoted("\u{0}\u{1F}") == #""\u0000\u001f""#)
        #expect(JSONString.quoted("\u{7F}é") == "\"\u{7F}é\"")
    }

    /// Foundation's parser, an independent reader, gives back every string.
    @Test func foundationReadsBackEveryString() throws {
        for s in Self.samples {
            let data = Data(("[" + JSONString.quoted(s) + "]").utf8)
            let back = try JSONSerialization.jsonObject(with: data) as? [String]
            #expect(back?.first.map { Array($0.utf8) } == Array(s.utf8))
        }
    }
}
