import Foundation
import RnmAPI

extension Freshness {
    /// An answer from the cache because the upstream failed with `error`.
    public static func stale(at date: Date, because error: UpstreamError) -> Freshness {
        stale(at: date, because: error.description)
    }
}
