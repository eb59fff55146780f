import NIOCore
import Synchronization

/// Values kept by key (compared byte for byte: ``ExactText``) until they expire, within a byte
/// budget (oldest stored goes first), and all dropped at once on ``removeAll()``. A store made
/// with a generation older than the last ``removeAll()`` is ignored: a value computed from data
/// that changed meanwhile never lands.
/// Shared by the services' reply cache and the HTTPGateway's micro-cache and GraphQL documents.
public final class ExpiringCache<Value: Sendable>: Sendable {
    public struct Entry: Sendable {
        public var value: Value
        public var storedAt: ContinuousClock.Instant
        public var expires: ContinuousClock.Instant
        var size: Int
    }

    private struct State {
        // Keys compared byte for byte (``ExactText``).
        var entries: [ExactText: Entry] = [:]
        /// Keys in the order stored (a key stored again appears again; its old position is
        /// skipped when eviction reaches it).
        var order: [(key: ExactText, storedAt: ContinuousClock.Instant)] = []
        var head = 0
        var bytes = 0
        var generation: UInt64 = 0
    }

    /// The budget: the values' sizes, as given to ``store(_:for:size:expires:generation:now:)``, plus their keys.
    public let maxBytes: Int
    private let state = Mutex(State())

    public init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    /// Bumped by every ``removeAll()``; read it before computing a value to store.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// Bytes held now.
    public var bytes: Int { state.withLock { $0.bytes } }

    /// Positions held for eviction, those already passed included (for tests: it must stay
    /// proportional to the entries).
    var positions: Int { state.withLock { $0.order.count } }

    /// The entry for `key` while it has not expired (an expired one is dropped).
    public func entry(for key: String, now: ContinuousClock.Instant = .now) -> Entry? {
        let key = ExactText(key)
        return state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            guard now < entry.expires else {
                state.entries[key] = nil
                state.bytes -= entry.size
                return nil
            }
            return entry
        }
    }

    /// Whether a value of `size` bytes under `key` is small enough to be kept (a quarter of the
    /// budget at most): ask before paying for what only a kept value needs (a gzipped copy, a tag).
    public func fits(_ size: Int, key: String) -> Bool {
        maxBytes > 0 && Self.charged(size, key: key) <= maxBytes / 4
    }

    /// What a value of `size` bytes under `key` counts against the budget: its key and the
    /// entry's bookkeeping too.
    private static func charged(_ size: Int, key: String) -> Int {
        size + key.utf8.count + 64
    }

    /// Keeps `value` for `key` until `expires`, unless it is over a quarter of the budget, or
    /// a ``removeAll()`` came after `generation` was read.
    public func store(
        _ value: Value, for key: String, size: Int, expires: ContinuousClock.Instant,
        generation: UInt64? = nil, now: ContinuousClock.Instant = .now
    ) {
        guard fits(size, key: key), expires > now else { return }
        let size = Self.charged(size, key: key)
        let key = ExactText(key)
        state.withLock { state in
            if let generation, generation != state.generation { return }
            // The same key stored again at the same instant (``ResponseCache``'s alias, stored
            // again on every repeat Hummingbird's side answers) keeps the position it has: a
            // second one would match it too, and the rebuild below, keeping every position that
            // matches, would then run on every store, over as many positions as repeats.
            var placed = false
            if let old = state.entries[key] {
                state.bytes -= old.size
                placed = old.storedAt == now
            }
            state.entries[key] = Entry(value: value, storedAt: now, expires: expires, size: size)
            state.bytes += size
            if !placed { state.order.append((key, now)) }
            while state.bytes > maxBytes, state.head < state.order.count {
                let (oldest, storedAt) = state.order[state.head]
                state.head += 1
                if let entry = state.entries[oldest], entry.storedAt == storedAt {
                    state.entries[oldest] = nil
                    state.bytes -= entry.size
                }
            }
            // Positions of values replaced, expired or evicted pile up in `order`, before `head`
            // (evicted: every key new, as a client sending a different URL each time makes them)
            // and after it (replaced, expired): rebuild it from the live entries once it holds
            // more than twice as many, so its length stays proportional to what is kept. Counted
            // from `head` only, the evicted keys' strings were never let go.
            if state.order.count > 2 * state.entries.count + 64 {
                state.order = state.order[state.head...].filter { position in
                    state.entries[position.key]?.storedAt == position.storedAt
                }
                state.head = 0
            }
        }
    }

    /// Drops every entry (the data they came from changed).
    public func removeAll() {
        state.withLock { state in
            state.generation &+= 1
            guard !state.entries.isEmpty || !state.order.isEmpty else { return }
            state.entries.removeAll(keepingCapacity: true)
            state.order.removeAll(keepingCapacity: true)
            state.head = 0
            state.bytes = 0
        }
    }
}
