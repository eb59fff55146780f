import Synchronization

/// `GET /metrics` asks four processes: scrapes that arrive while one is under way share its
/// answer instead of each asking them all again (a flood of scrapes costs the services one at a
/// time). Sequential scrapes each ask afresh, so that a counter read twice shows what happened
/// between the reads.
final class SharedScrape: Sendable {
    private let running = Mutex<Task<String, Never>?>(nil)
    private let make: @Sendable () async -> String

    init(_ make: @escaping @Sendable () async -> String) {
        self.make = make
    }

    func text() async -> String {
        let task = running.withLock { running -> Task<String, Never> in
            if let running { return running }
            let task = Task { await make() }
            running = task
            return task
        }
        let text = await task.value
        running.withLock { if $0 == task { $0 = nil } }
        return text
    }
}
