import Foundation
import Testing

@testable import RateCard

/// Every command's `--help` names each of its options in the usage lines too, so a
/// reader of the usage alone does not miss an option the parser accepts.
@Suite struct HelpTextTests {
    /// The command names `margin --help` lists.
    static func commands() throws -> [String] {
        let r = try runMargin(["--help"])
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "Commands:") else { return [] }
        return lines[(start + 1)...].prefix { !$0.isEmpty }.compactMap {
            $0.split(separator: " ").first.map(String.init)
        }
    }

    @Test func everyOptionIsInTheUsage() throws {
        let commands = try Self.commands()
        #expect(commands.count >= 10, "\(commands)")
        for command in commands {
            let r = try runMargin([command, "--help"])
            #expect(r.status == 0, "\(command)")
            let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            let start = try #require(lines.firstIndex { $0.hasPrefix("Usage: ") }, "\(command)")
            let usage = lines[start...].prefix { !$0.isEmpty }.joined(separator: " ")
            let options = lines.filter { $0.hasPrefix("  --") }.compactMap {
                $0.split(separator: " ").first.map(String.init)
            }
            #expect(!options.isEmpty, "\(command)")
            for option in options where option != "--help" {
                let named =
                    usage.contains(option + " ") || usage.contains(option + "]")
                    || usage.contains(option + "|") || usage.contains(option + "=")
                #expect(named, "margin \(command): \(option) is not in the usage line")
            }
        }
    }
}
