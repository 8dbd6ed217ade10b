/// A hint to the processor to load a cache line that a later access will need: LLVM's
/// `llvm.prefetch` intrinsic, which Swift reaches by the intrinsic's own name. Unlike a
/// load whose value is kept (the way the merge used to touch slots ahead), a prefetch
/// never waits for memory and never faults, so a loop can ask for the lines of the next
/// records and go on working on this one.
enum Prefetch {
    @_silgen_name("llvm.prefetch.p0")
    private static func intrinsic(
        _ address: UnsafeRawPointer, _ write: Int32, _ locality: Int32, _ dataCache: Int32)

    /// Asks for the cache line holding `address`, to be read soon (kept in all levels).
    @inline(__always)
    static func read(_ address: UnsafeRawPointer) {
        intrinsic(address, 0, 3, 1)
    }
}
