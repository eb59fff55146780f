import Synchronization

/// Runs work with a deadline that holds whatever the work does: at the deadline the caller is
/// answered and the work cancelled and left to end on its own. (A task group would wait for its
/// child, and a database call does not always end promptly when cancelled.)
final class DeadlineRace<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)

    private init() {}

    /// `body`'s result, or ``DeadlinePassed`` after `limit`.
    static func run(limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let race = DeadlineRace()
        return try await withCheckedThrowingContinuation { continuation in
            race.continuation.withLock { $0 = continuation }
            let work = Task {
                do { race.finish(.success(try await body())) } catch { race.finish(.failure(error)) }
            }
            Task {
                try? await Task.sleep(for: limit)
                race.finish(.failure(DeadlinePassed(limit: limit)))
                work.cancel()
            }
        }
    }

    private func finish(_ result: Result<T, any Error>) {
        let waiting = continuation.withLock { value in
            defer { value = nil }
            return value
        }
        waiting?.resume(with: result)
    }
}

/// What ``DeadlineRace`` throws when its limit passes first.
struct DeadlinePassed: Error {
    let limit: Duration
}
