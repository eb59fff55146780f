/// A moment as every screen shows it: readable, in UTC and saying so ("26 Nov 2026, 19:07 UTC"),
/// inside `<time datetime="…">` with the exact timestamp kept (the `time` partial). The page's
/// script rewrites it in the reader's own time zone; without the script this text stands.
/// Made from the protocol's and the upstreams' RFC 3339 timestamps, read as text (no calendar:
/// they are UTC already, and a `Date` would drop an upstream's milliseconds).
struct TimeText {
    /// The timestamp as given, for `datetime`.
    var iso: String
    /// What a person reads.
    var text: String

    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Anything that is not `YYYY-MM-DDTHH:MM[:SS[.fff]]Z` is shown as it is.
    init(_ iso: String) {
        self.iso = iso
        text = Self.readable(iso) ?? iso
    }

    /// "26 Nov 2026, 19:07 UTC", or nil for a text not in the layout.
    static func readable(_ iso: String) -> String? {
        let bytes = Array(iso.utf8)
        guard bytes.count >= 17, bytes.last == UInt8(ascii: "Z"), bytes[4] == UInt8(ascii: "-"),
            bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60
        else { return nil }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(day) \(months[month - 1]) \(year), \(two(hour)):\(two(minute)) UTC"
    }
}
