import Messaging

/// The cache key of a list's filters: a canonical JSON array of `[name, value]` pairs in the
/// API's filter order (values already trimmed and lowercased), or "" for no filter. Values are
/// JSON strings, so no value can spell another set of filters (`rick&status=dead` stays one name).
enum FilterKey {
    static func encode(_ filters: [(String, String)]) -> String {
        guard !filters.isEmpty else { return "" }
        return "[" + filters.map { "[\(JSONText.quoted($0.0)),\(JSONText.quoted($0.1))]" }.joined(separator: ",") + "]"
    }
}
