/// Finds the names closest to one that was not found, for "did you mean" hints.
enum NameMatcher {
    /// Up to `limit` names from `candidates`, closest first: names containing the query (or
    /// contained in it) first, then by edit distance; ties keep the candidates' order.
    static func closest(to query: String, in candidates: [String], limit: Int = 3) -> [String] {
        let needle = Array(query.lowercased().unicodeScalars)
        guard !needle.isEmpty else { return [] }
        var seen = Set<String>()
        let scored = candidates.enumerated().compactMap { index, name -> (Int, Int, String)? in
            guard seen.insert(name).inserted else { return nil }
            let lowered = name.lowercased()
            let hay = Array(lowered.unicodeScalars)
            let contains = lowered.contains(query.lowercased()) || query.lowercased().contains(lowered)
            let distance = editDistance(needle, hay)
            return ((contains ? 0 : 1_000_000) + distance, index, name)
        }
        return scored.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.prefix(limit).map(\.2)
    }

    /// Levenshtein distance over Unicode scalars.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
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
