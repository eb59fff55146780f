#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// The protocol's timestamps (`fetchedAt`, health's times) are one fixed layout in UTC, whole
// seconds. They are written and read with the C library's calendar arithmetic (`gmtime_r`,
// `timegm`), not Foundation's format styles: in a process that loads Foundation (the
// services, for URLSession), a format style builds a calendar in the current time zone, and
// that loads ICU and its time-zone data — about 4 MB of every service's memory, for a layout
// that needs none of it (BENCHMARKS.md, "RSS").
extension Date {
    /// RFC 3339 in UTC, whole seconds, e.g. `2026-11-21T11:51:32Z`.
    public var rfc3339: String {
        // Years 0001...9999 only (the layout has four digits); anything else is clamped.
        var seconds = time_t(
            min(max(timeIntervalSince1970.isFinite ? timeIntervalSince1970 : 0, -62_135_596_800), 253_402_300_799)
                .rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return Self.digits(Int(parts.tm_year) + 1900, 4) + "-" + Self.digits(Int(parts.tm_mon) + 1, 2) + "-"
            + Self.digits(Int(parts.tm_mday), 2) + "T" + Self.digits(Int(parts.tm_hour), 2) + ":"
            + Self.digits(Int(parts.tm_min), 2) + ":" + Self.digits(Int(parts.tm_sec), 2) + "Z"
    }

    /// Reads what ``rfc3339`` writes (`YYYY-MM-DDTHH:MM:SSZ`); nil for anything else.
    public init?(rfc3339 text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int32? {
            var value: Int32 = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int32(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday) = (year - 1900, month - 1, day)
        (parts.tm_hour, parts.tm_min, parts.tm_sec) = (hour, minute, second)
        self.init(timeIntervalSince1970: TimeInterval(timegm(&parts)))
        // timegm moves an impossible date on (February 31 becomes March 3): not a date.
        guard rfc3339 == text else { return nil }
    }

    private static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}

// HTTP dates (`Retry-After`, `Last-Modified`) read with the C library's `timegm`, for the same
// reason as `Date+RFC3339.swift`: a Foundation date formatter loads ICU into the process.
extension Date {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Reads an HTTP date in its preferred layout (RFC 9110 §5.6.7, IMF-fixdate), e.g.
    /// `Sun, 06 Nov 1994 08:49:37 GMT`; nil for anything else.
    public init?(httpDate text: String) {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[0].count == 4, fields[0].hasSuffix(","), fields[5] == "GMT",
            let day = Int32(fields[1]), let month = Self.months.firstIndex(of: String(fields[2])),
            let year = Int32(fields[3])
        else { return nil }
        let clock = fields[4].split(separator: ":")
        guard clock.count == 3, let hour = Int32(clock[0]), let minute = Int32(clock[1]), let second = Int32(clock[2]),
            (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday) = (year - 1900, Int32(month), day)
        (parts.tm_hour, parts.tm_min, parts.tm_sec) = (hour, minute, second)
        self.init(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
