/// Finds the names closest to one that was not found, for "did you mean" hints.
///
/// Its cost is bounded whatever the input: only the first ``maxScalars`` characters of the
/// query and of each name are compared, so the United States' 2,300 names against any query
/// take a few milliseconds.
enum NameMatcher {
    /// Characters of the query and of each candidate that are compared.
    static let maxScalars = 64

    /// Up to `limit` names from `candidates`, closest first: names containing the query (or
    /// contained in it) first, then by edit distance; ties keep the candidates' order.
    static func closest(to query: String, in candidates: [String], limit: Int = 3) -> [String] {
        let loweredQuery = query.lowercased()
        let needle = Array(loweredQuery.unicodeScalars.prefix(maxScalars))
        guard !needle.isEmpty else { return [] }
        var seen = Set<String>()
        var previous = [Int](repeating: 0, count: maxScalars + 1)
        var current = previous
        let scored = candidates.enumerated().compactMap { index, name -> (Int, Int, String)? in
            guard seen.insert(name).inserted else { return nil }
            let lowered = name.lowercased()
            let hay = Array(lowered.unicodeScalars.prefix(maxScalars))
            let contains = lowered.contains(loweredQuery) || loweredQuery.contains(lowered)
            let distance = editDistance(needle, hay, &previous, &current)
            return ((contains ? 0 : 1_000_000) + distance, index, name)
        }
        return scored.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.prefix(limit).map(\.2)
    }

    /// Levenshtein distance over Unicode scalars, in two rows the caller provides (at least
    /// `b.count + 1` long), so that scoring many names allocates nothing per name.
    static func editDistance(
        _ a: [Unicode.Scalar], _ b: [Unicode.Scalar], _ previous: inout [Int], _ current: inout [Int]
    ) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        for j in 0...b.count { previous[j] = j }
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
