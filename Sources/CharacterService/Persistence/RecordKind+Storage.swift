import RnmAPI

extension RecordKind {
    /// The SQLite table holding this kind.
    var table: String { rawValue }

    /// The lowercased column each of its filters is matched against offline (`nameKey`, …).
    static func filterColumn(_ filter: String) -> String { filter + "Key" }
}
