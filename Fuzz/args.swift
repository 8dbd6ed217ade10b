// Fuzz target `args`: the argument parser on NUL-separated arguments, with the options
// `margin` declares. An accepted command line, written back in a canonical form
// (`--flag`, `--name=value`, then `--` and the positionals), parses to the same result.
@testable import RateCard

private let parser = ArgumentParser([
    .init("cards", value: "DIR", help: "rate-card folder"),
    .init("format", value: "FORMAT", help: "output format"),
    .init("commission", value: "RATES", help: "commission rates"),
    .init("fx", value: "BASE/QUOTE=RATE", repeatable: true, help: "FX override"),
    .init("storekit", value: "FILE", repeatable: true, help: "StoreKit configuration"),
    .init("check", help: "verify only"),
    .init("help", help: "show help"),
])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let arguments = splitAtNUL(inputBytes(data, size)).map { String(decoding: $0, as: UTF8.self) }
    let parsed: ParsedArguments
    do {
        parsed = try parser.parse(arguments)
    } catch {
        require(!error.message.isEmpty, "empty usage message")
        return 0
    }
    _ = try? parsed.choice("format", default: OutputFormat.table)
    var canonical = parsed.flags.sorted().map { "--" + $0 }
    for name in parsed.values.keys.sorted() {
        canonical += parsed.values[name]!.map { "--\(name)=\($0)" }
    }
    canonical.append("--")
    canonical += parsed.positionals
    guard let again = try? parser.parse(canonical) else {
        require(false, "canonical form \(canonical) of \(arguments) is rejected")
        return 0
    }
    require(again == parsed, "canonical form \(canonical) of \(arguments) parses differently")
    return 0
}
