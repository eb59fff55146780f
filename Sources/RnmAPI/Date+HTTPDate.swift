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
