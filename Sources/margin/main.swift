import RateCard

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

exit(MarginCLI.run(Array(CommandLine.arguments.dropFirst())))
