import ServiceKit
import Synchronization
import TestSupport
import Testing

/// `SingleFlight`, the one place that keeps identical cold reads from reaching the upstream twice.
@Suite("Single flight")
struct SingleFlightTests {
    /// A cache and a count of the work done, as a service's database and upstream would be.
    final class Store: Sendable {
        let value = Mutex<Int?>(nil)
        let works = Atomic(0)
        func read() -> Int? { value.withLock { $0 } }
        func work(_ result: Int) -> Int {
            works.add(1, ordering: .relaxed)
            value.withLock { $0 = result }
            return result
        }
    }

    @Test("callers that join a run in flight share its result: the work is done once")
    func joins() async throws {
        let store = Store()
        let flights = SingleFlight<String, Int>()
        let gate = AsyncStream<Void>.makeStream()
        async let first = flights.run("k") {
            for await _ in gate.stream { break }
            return store.work(1)
        }
        // Joiners wait on the first run, which is held until they are all in. The first must be in
        // flight before they start: a task's start order is not its creation order, and a joiner
        // that ran first would lead with work that is not held.
        try await waitUntil(10, "the first caller is in flight") { await flights.runs(for: "k") >= 1 }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<9 { group.addTask { try await flights.run("k") { store.work(2) } } }
            try await waitUntil(10, "the 10 callers are in flight") { await flights.runs(for: "k") >= 10 }
            gate.continuation.yield()
            for try await value in group { #expect(value == 1) }
        }
        #expect(try await first == 1)
        #expect(store.works.load(ordering: .relaxed) == 1)
    }

    @Test("a caller that missed the cache just before an identical run stored its result takes that result")
    func reusesWhatARunJustStored() async throws {
        let store = Store()
        let flights = SingleFlight<String, Int>()
        // B reads the cache: nothing yet.
        #expect(store.read() == nil)
        // A's run fetches, stores and ends before B asks.
        #expect(try await flights.run("k", reusing: { store.read() }) { store.work(1) } == 1)
        // B asks now: it finds A's result stored instead of fetching again.
        #expect(try await flights.run("k", reusing: { store.read() }) { store.work(2) } == 1)
        #expect(store.works.load(ordering: .relaxed) == 1)
    }

    @Test("a forced run (a refresh) does the work even when the result is stored")
    func forcedRunsWork() async throws {
        let store = Store()
        let flights = SingleFlight<String, Int>()
        #expect(try await flights.run("k", reusing: { store.read() }) { store.work(1) } == 1)
        #expect(try await flights.run("k", forced: true, reusing: { store.read() }) { store.work(2) } == 2)
        #expect(store.works.load(ordering: .relaxed) == 2)
    }

    @Test("an error is shared by the callers in flight (10: the work done once), and the next run tries again")
    func errorsAreNotKept() async throws {
        struct Failure: Error {}
        let store = Store()
        let flights = SingleFlight<String, Int>()
        let gate = AsyncStream<Void>.makeStream()
        // The first run fails once the 9 others have joined it.
        let first = Task {
            try await flights.run("k") {
                for await _ in gate.stream { break }
                _ = store.work(1)
                throw Failure()
            }
        }
        // As above: the first run must lead, so the joiners start once it is in flight.
        try await waitUntil(10, "the first caller is in flight") { await flights.runs(for: "k") >= 1 }
        let joiners = (0..<9).map { _ in Task { try await flights.run("k") { store.work(2) } } }
        try await waitUntil(10, "the 10 callers are in flight") { await flights.runs(for: "k") >= 10 }
        gate.continuation.yield()
        for caller in [first] + joiners {
            await #expect(throws: Failure.self) { try await caller.value }
        }
        #expect(store.works.load(ordering: .relaxed) == 1, "the failing work was done once for the 10")
        #expect(try await flights.run("k") { store.work(3) } == 3)
        #expect(store.works.load(ordering: .relaxed) == 2)
    }
}
