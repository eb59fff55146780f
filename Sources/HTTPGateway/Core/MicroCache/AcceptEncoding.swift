/// What `Accept-Encoding` says of gzip.
enum AcceptEncoding {
    /// Whether `header` takes gzip: `gzip` (or `*`) listed without `q=0`.
    static func takesGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        for part in header.split(separator: ",") {
            let fields = part.split(separator: ";").map { String($0).trimmingWhitespace.lowercased() }
            guard let coding = fields.first, coding == "gzip" || coding == "*" else { continue }
            let quality = fields.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) }
            if quality != 0 { return true }
        }
        return false
    }
}
