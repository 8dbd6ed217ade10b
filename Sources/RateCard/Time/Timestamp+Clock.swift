import Foundation

extension Timestamp {
    /// The current time, to the second: the default of every `--now`.
    static var current: Timestamp {
        Timestamp(seconds: Int64(Date().timeIntervalSince1970))
    }
}
