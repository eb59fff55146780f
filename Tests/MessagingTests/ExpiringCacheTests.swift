@testable import Messaging
import NIOCore
import Testing

@Suite("ExpiringCache: expiry, the byte budget, and changes that void a value being computed")
struct ExpiringCacheTests {
    @Test("a value is there until it expires, then gone")
    func expiry() {
        let cache = ExpiringCache<Int>(maxBytes: 10_000)
        let now = ContinuousClock.now
        cache.store(1, for: "a", size: 10, expires: now + .seconds(1), now: now)
        #expect(cache.entry(for: "a", now: now + .milliseconds(999))?.value == 1)
        #expect(cache.entry(for: "a", now: now + .seconds(1)) == nil)
        #expect(cache.bytes == 0)
    }

    @Test("keys are compared as bytes: canonically equivalent spellings are two entries")
    func exactKeys() {
        let cache = ExpiringCache<Int>(maxBytes: 10_000)
        let now = ContinuousClock.now
        let composed = "name=\u{C1}rboles"
        let decomposed = "name=A\u{301}rboles"
        #expect(composed == decomposed)  // what `String` says, and why the cache does not ask it
        cache.store(1, for: composed, size: 10, expires: now + .seconds(1), now: now)
        #expect(cache.entry(for: decomposed, now: now) == nil)
        cache.store(2, for: decomposed, size: 10, expires: now + .seconds(1), now: now)
        #expect(cache.entry(for: composed, now: now)?.value == 1)
        #expect(cache.entry(for: decomposed, now: now)?.value == 2)
        #expect(ExactText(composed) != ExactText(decomposed))
        #expect(Set([ExactText(composed), ExactText(decomposed), ExactText(composed)]).count == 2)
    }

    @Test("past the budget the oldest go first; a value over a quarter of it is never kept")
    func budget() {
        let cache = ExpiringCache<Int>(maxBytes: 1000)
        let now = ContinuousClock.now
        for index in 0..<10 {
            cache.store(
                index, for: "k\(index)", size: 100, expires: now + .seconds(60), now: now + .milliseconds(index))
        }
        #expect(cache.bytes <= 1000)
        #expect(cache.entry(for: "k0", now: now) == nil)
        #expect(cache.entry(for: "k9", now: now)?.value == 9)
        cache.store(99, for: "big", size: 300, expires: now + .seconds(60), now: now)
        #expect(cache.entry(for: "big", now: now) == nil)
    }

    @Test("removeAll empties it, and a value computed before it is not stored after it")
    func generations() {
        let cache = ExpiringCache<Int>(maxBytes: 10_000)
        let now = ContinuousClock.now
        let before = cache.generation
        cache.store(1, for: "a", size: 10, expires: now + .seconds(60), generation: before, now: now)
        cache.removeAll()
        #expect(cache.entry(for: "a", now: now) == nil && cache.bytes == 0)
        cache.store(2, for: "b", size: 10, expires: now + .seconds(60), generation: before, now: now)
        #expect(cache.entry(for: "b", now: now) == nil)
        cache.store(3, for: "b", size: 10, expires: now + .seconds(60), generation: cache.generation, now: now)
        #expect(cache.entry(for: "b", now: now)?.value == 3)
    }
}

extension ExpiringCacheTests {
    @Test("storing the same few keys again and again, as they expire, keeps memory flat")
    func noGrowthUnderChurn() {
        let cache = ExpiringCache<Int>(maxBytes: 1_000_000)
        var now = ContinuousClock.now
        for round in 0..<20_000 {
            let key = "k\(round % 300)"
            _ = cache.entry(for: key, now: now)
            cache.store(round, for: key, size: 100, expires: now + .milliseconds(1), now: now)
            now += .milliseconds(1)
        }
        #expect(cache.positions <= 2 * 300 + 64 + 1)
        #expect(cache.bytes <= 300 * (100 + 64 + 5))
    }

    @Test("storing a new key each time, past the budget, keeps memory flat: the evicted keys are let go")
    func noGrowthWithNewKeys() {
        // A quarter of the budget per value at most; 100 values of 1,000 bytes fit.
        let cache = ExpiringCache<Int>(maxBytes: 100 * (1000 + 64 + 8))
        let now = ContinuousClock.now
        for round in 0..<20_000 {
            cache.store(round, for: "k\(round)", size: 1000, expires: now + .seconds(60), now: now)
        }
        #expect(cache.entry(for: "k19999", now: now)?.value == 19_999)
        #expect(cache.entry(for: "k0", now: now) == nil)
        // Before: 20,000 positions, each holding its evicted key.
        #expect(cache.positions <= 2 * 100 + 64 + 1, "\(cache.positions) positions for 100 entries")
    }

    @Test("a key stored again at the instant it holds (an alias repeated) keeps one position, not one a store")
    func oneStoreInstantOnePosition() {
        let cache = ExpiringCache<Int>(maxBytes: 1_000_000)
        let now = ContinuousClock.now
        cache.store(0, for: "answer", size: 100, expires: now + .seconds(60), now: now)
        for round in 0..<20_000 {
            cache.store(round, for: "alias", size: 0, expires: now + .seconds(60), now: now)
        }
        // Before: 20,000 positions, all kept by each rebuild, and a rebuild on every store.
        #expect(cache.positions <= 2 * 2 + 64 + 1, "\(cache.positions) positions for 2 entries")
        #expect(cache.entry(for: "alias", now: now)?.value == 19_999)
        #expect(cache.bytes == 100 + 6 + 64 + 5 + 64)
    }
}
