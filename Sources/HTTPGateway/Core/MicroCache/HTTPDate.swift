#if canImport(Glibc)
    import Glibc
#endif
import Synchronization

/// An HTTP `Date` (RFC 9110, `Tue, 25 Nov 2026 16:00:00 GMT`), made once a second.
enum HTTPDate {
    private static let cached = Mutex<(second: Int, text: String)>((0, ""))

    static func now() -> String {
        var seconds = time(nil)
        let second = Int(seconds)
        if let text = cached.withLock({ $0.second == second ? $0.text : nil }) { return text }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 40)
        let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        let text = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        cached.withLock { $0 = (second, text) }
        return text
    }
}
