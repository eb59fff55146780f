/// Capped exponential backoff with full jitter: attempt n waits a random time up to
/// min(cap, base × 2ⁿ).
struct Backoff: Sendable {
    var base: Duration = .milliseconds(10)
    var cap: Duration = .milliseconds(250)
    private(set) var attempt = 0

    /// The next wait, and one more attempt counted.
    mutating func next() -> Duration {
        defer { attempt += 1 }
        let ceiling = min(cap, base * (1 << min(attempt, 20)))
        let nanoseconds = ceiling.components.seconds * 1_000_000_000 + ceiling.components.attoseconds / 1_000_000_000
        return .nanoseconds(Int64.random(in: (nanoseconds / 2)...max(nanoseconds / 2, nanoseconds)))
    }
}
