import Foundation
import RnmAPI
import Synchronization

/// Ids the upstream said do not exist (a 404, or left out of a multi-id answer), with when it
/// said so: while that is fresh (the max age) they are answered "not found" without asking
/// again, as a shared cache keeps a 404 (RFC 9111 §4.2.2). At most `capacity` are kept, the
/// oldest forgotten first; a record stored since is found in the cache before this is asked.
final class AbsentIDs: Sendable {
    private struct Key: Hashable {
        var kind: RecordKind
        var id: Int
    }

    private struct State {
        var checkedAt: [Key: Date] = [:]
        /// Insertion order, for forgetting the oldest; `head` is the first still in use.
        var order: [Key] = []
        var head = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Those of `ids` said absent at a time `isFresh` accepts.
    func absent(_ kind: RecordKind, _ ids: some Sequence<Int>, isFresh: (Date) -> Bool) -> Set<Int> {
        guard capacity > 0 else { return [] }
        return state.withLock { state in
            Set(ids.filter { id in state.checkedAt[Key(kind: kind, id: id)].map(isFresh) ?? false })
        }
    }

    /// `ids` were answered by the upstream: they exist (a forced refresh may find one noted
    /// absent; its record may not have been stored).
    func forget(_ kind: RecordKind, _ ids: some Collection<Int>) {
        guard capacity > 0, !ids.isEmpty else { return }
        state.withLock { state in
            for id in ids { state.checkedAt[Key(kind: kind, id: id)] = nil }
        }
    }

    /// `ids` were asked at `checkedAt` and not answered: they do not exist.
    func note(_ kind: RecordKind, _ ids: some Collection<Int>, checkedAt: Date) {
        guard capacity > 0, !ids.isEmpty else { return }
        state.withLock { state in
            for id in ids {
                let key = Key(kind: kind, id: id)
                if state.checkedAt.updateValue(checkedAt, forKey: key) == nil { state.order.append(key) }
            }
            while state.checkedAt.count > capacity, state.head < state.order.count {
                state.checkedAt[state.order[state.head]] = nil
                state.head += 1
            }
            // The forgotten prefix is dropped once it is half the array: amortised O(1).
            if state.head > state.order.count / 2 {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }
}
