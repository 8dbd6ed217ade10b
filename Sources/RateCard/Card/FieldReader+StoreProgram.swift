extension FieldReader {
    /// A program's name at `field` (a card's `storeProgram`, a storefront regime's
    /// `program`); an unknown name is an error listing the programs, with a "did you mean".
    func storeProgram(_ node: JSONNode, _ field: String) -> StoreProgram? {
        guard let s = string(node, field) else { return nil }
        guard let p = StoreProgram(name: s) else {
            let words = StoreProgram.allCases.map(\.rawValue)
            let hint =
                FieldReader.didYouMean(s, in: words)
            error(
                "\(field): \"\(FieldReader.excerpt(s))\" is not a program (one of: \(words.joined(separator: ", ")))\(hint)",
                at: node.location)
            return nil
        }
        return p
    }
}
