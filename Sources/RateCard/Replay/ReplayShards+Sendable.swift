/// Unchecked Sendable: between two `handOff` calls the reading thread writes only
/// `filling`, and each shard thread `s` reads only `applying[s]` and writes only
/// `ledgers[s]`; `wait()` (the group) orders the two. The shards' shared names, cache and
/// cost table are given to them only once reading is done, and then only read.
extension ReplayShards: @unchecked Sendable {}
