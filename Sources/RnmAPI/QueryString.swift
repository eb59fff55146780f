/// A URL's query as rnm writes one (the upstreams' request URLs, the web app's links): each key
/// and value percent-encoded, only RFC 3986's unreserved characters kept as they are.
public enum QueryString {
    /// `path?k=v&…`; `path` alone when there are no pairs.
    public static func append(_ pairs: [(String, String)], to path: String) -> String {
        guard !pairs.isEmpty else { return path }
        return path + "?" + pairs.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
    }

    /// `text` percent-encoded byte by byte (UTF-8).
    public static func encode(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
