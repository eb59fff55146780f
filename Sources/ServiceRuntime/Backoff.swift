/// Capped exponential backoff with full jitter: attempt n waits a random time up to
/// min(cap, base × 2ⁿ).
public struct Backoff: Sendable {
    public var base: Duration = .milliseconds(10)
    public var cap: Duration = .milliseconds(250)
    public private(set) var attempt = 0

    public init(base: Duration = .milliseconds(10), cap: Duration = .milliseconds(250)) {
        self.base = base
        self.cap = cap
    }

    /// The next wait, and one more attempt counted.
    public mutating func next() -> Duration {
        defer { attempt += 1 }
        let ceiling = min(cap, base * (1 << min(attempt, 20)))
        let nanoseconds = ceiling.components.seconds * 1_000_000_000 + ceiling.components.attoseconds / 1_000_000_000
        return .nanoseconds(Int64.random(in: (nanoseconds / 2)...max(nanoseconds / 2, nanoseconds)))
    }
}
