import RnmAPI

extension RecordKind {
    /// What the API says for an unknown id of this kind (`Character not found`).
    var notFoundMessage: String {
        rawValue.prefix(1).uppercased() + rawValue.dropFirst() + " not found"
    }

    /// What the API's clients get for ids neither cached nor checked: the upstream failed.
    func notCachedMessage(_ ids: [Int]) -> String {
        let named = ids.prefix(10).map(String.init).joined(separator: ",") + (ids.count > 10 ? ",…" : "")
        return "the upstream API is unavailable and \(rawValue) \(named) is not cached"
    }
}
