import Messaging
import NIOCore
import RnmAPI
import Synchronization
import TestSupport

/// Requests of one kind, sent over their own connections.
struct Workload: Sendable {
    /// Names the outcomes (e.g. "characters").
    var name: String
    /// Connections, each with one request in flight at a time.
    var connections: Int
    /// The n-th request's method and params (JSON text).
    var request: @Sendable (Int) -> (method: String, params: String)
}

/// What one request came to.
struct Outcome: Sendable {
    enum Result: Sendable, Equatable {
        case ok
        /// An error reply (or the client's own error: deadline, connection closed).
        case rpcError(Int, String)
        /// Anything else (could not connect, ...).
        case transport(String)

        /// An RPC error by its code; any other error as a transport failure during `step`.
        init(_ error: any Error, while step: String) {
            if let error = error as? RPCError {
                self = .rpcError(error.code.rawValue, error.message)
            } else {
                self = .transport("\(step): \(error)")
            }
        }
    }

    var workload: String
    var started: ContinuousClock.Instant
    var latency: Duration
    var result: Result

    var isOK: Bool { result == .ok }
    var code: Int? { if case .rpcError(let code, _) = result { code } else { nil } }
    var ended: ContinuousClock.Instant { started + latency }
}

/// Keeps a socket busy: every connection of every workload sends its next request as soon as
/// the previous one is answered, reconnecting when its connection drops, until stopped.
final class LoadGenerator: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let completedCount = Atomic<Int>(0)
    private let recorded = Mutex<[Outcome]>([])
    private let workers = Mutex<[Task<Void, Never>]>([])

    /// Starts the load on `socketPath`; each request may take up to `timeout`.
    init(socketPath: String, workloads: [Workload], timeout: Duration = .seconds(5)) {
        let tasks = workloads.flatMap { workload in
            (0..<workload.connections).map { index in
                Task {
                    await self.work(socketPath: socketPath, workload: workload, first: index * 1000, timeout: timeout)
                }
            }
        }
        workers.withLock { $0 = tasks }
    }

    /// Requests answered so far (successfully or not).
    var completed: Int { completedCount.load(ordering: .relaxed) }

    /// The outcomes so far.
    var outcomes: [Outcome] { recorded.withLock { $0 } }

    /// Waits until `count` more requests have completed, at most `seconds`.
    func waitForMore(_ count: Int, seconds: Double = 30) async throws {
        let target = completed + count
        try await waitUntil(seconds, "\(count) more requests", pollEvery: .milliseconds(5)) { self.completed >= target }
    }

    /// Stops sending and returns every outcome.
    func stop() async -> [Outcome] {
        stopped.store(true, ordering: .relaxed)
        for task in workers.withLock({ $0 }) { await task.value }
        return outcomes
    }

    private func work(socketPath: String, workload: Workload, first: Int, timeout: Duration) async {
        var client: RPCClient?
        var sequence = first
        while !stopped.load(ordering: .relaxed) {
            let started = ContinuousClock.now
            if client?.isActive != true {
                do {
                    client = try await RPCClient.connect(socketPath: socketPath, service: "gateway")
                } catch {
                    record(
                        Outcome(
                            workload: workload.name, started: started, latency: .now - started,
                            result: .init(error, while: "connect")))
                    try? await Task.sleep(for: .milliseconds(5))
                    continue
                }
            }
            let (method, params) = workload.request(sequence)
            sequence += 1
            let result: Outcome.Result
            do {
                let reply = try await client!.call(method: method, params: ByteBuffer(string: params), timeout: timeout)
                result = reply.rpcError.map { .init($0, while: "call") } ?? .ok
            } catch {
                result = .init(error, while: "call")
            }
            record(Outcome(workload: workload.name, started: started, latency: .now - started, result: result))
        }
        await client?.close()
    }

    private func record(_ outcome: Outcome) {
        recorded.withLock { $0.append(outcome) }
        completedCount.add(1, ordering: .relaxed)
    }
}

extension Workload {
    /// `characters.get` over ids 1...20 (the first list page, cached by ``RnmSystem/warm()``).
    static func cachedCharacters(connections: Int) -> Workload {
        Workload(name: "characters", connections: connections) { n in
            ("characters.get", #"{"id":\#(n % 20 + 1)}"#)
        }
    }

    /// `universities.get` over the cached UAE list.
    static func cachedUniversities(connections: Int) -> Workload {
        let names = UniversityFixtures.records(country: defaultUniversityCountry).compactMap { $0["name"] as? String }
        return Workload(name: "universities", connections: connections) { n in
            ("universities.get", #"{"name":\#(jsonString(names[n % names.count]))}"#)
        }
    }
}

/// `text` as a JSON string literal.
func jsonString(_ text: String) -> String {
    String(decoding: try! JSONCoding.encoder.encode(text), as: UTF8.self)
}

extension RnmSystem {
    /// Fills the caches the cached workloads read: the first character page, the UAE list.
    func warm() async throws {
        let client = try await connect()
        _ = try await client.call(RPCMethods.charactersList, .init())
        _ = try await client.call(RPCMethods.universitiesList, .init())
        await client.close()
    }
}
