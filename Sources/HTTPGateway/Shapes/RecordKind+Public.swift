import RnmAPI

extension RecordKind {
    /// What the API says for an unknown id of this kind (`Character not found`).
    var notFoundMessage: String {
        rawValue.prefix(1).uppercased() + rawValue.dropFirst() + " not found"
    }
}
