import Messaging

/// The cache key of a list's filters: a canonical JSON array of `[name, value]` pairs in the
/// API's filter order (values already trimmed and lowercased), or "" for no filter. Values are
/// JSON strings, so no value can spell another set of filters (`rick&status=dead` stays one name).
enum FilterKey {
    static func encode(_ filters: [(String, String)]) -> String {
        guard !filters.isEmpty else { return "" }
        return "[" + filters.map { "[\(JSONText.quoted($0.0)),\(JSONText.quoted($0.1))]" }.joined(separator: ",") + "]"
    }

    /// The key version 1 of the database wrote (`name=rick&status=dead`), re-encoded. Keys
    /// whose values held `&` or `=` were ambiguous then; they are read the way the old code
    /// wrote them.
    static func upgrade(_ legacy: String) -> String {
        guard !legacy.isEmpty else { return "" }
        return encode(legacy.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        })
    }
}
