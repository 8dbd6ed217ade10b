/// The App Store commission program a developer is enrolled in.
public enum StoreProgram: String, Sendable, Hashable, CaseIterable {
    /// The standard commission (30% on most storefronts).
    case standard
    /// The App Store Small Business Program (15% on most storefronts).
    case smallBusiness = "small-business"

    /// The program named `text` ("standard", "small-business"), or nil.
    init?(name text: String) {
        self.init(rawValue: text)
    }
}
