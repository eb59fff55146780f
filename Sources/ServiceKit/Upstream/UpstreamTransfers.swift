import Foundation
import Synchronization
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `URLSession` delegate of a ``URLSessionFetcher``: collects each transfer's body up to
/// the size limit and decides which redirects may be followed.
final class UpstreamTransfers: NSObject, URLSessionDataDelegate, Sendable {
    /// Scheme, host and port: what a redirect must keep to be followed.
    struct Origin: Equatable, Sendable {
        var scheme: String?
        var host: String?
        var port: Int?

        init(_ url: URL) {
            scheme = url.scheme?.lowercased()
            host = url.host?.lowercased()
            port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
        }
    }

    private struct Transfer {
        var outcome: TransferOutcome
        var body = Data()
        var refusedRedirect: String?
    }

    private let origin: Origin?
    private let maxBodyBytes: Int
    private let transfers = Mutex<[Int: Transfer]>([:])

    init(origin: Origin?, maxBodyBytes: Int) {
        self.origin = origin
        self.maxBodyBytes = maxBodyBytes
    }

    /// Starts following `task`; its result arrives through the returned outcome.
    func register(_ task: URLSessionTask) -> TransferOutcome {
        let outcome = TransferOutcome()
        transfers.withLock { $0[task.taskIdentifier] = Transfer(outcome: outcome) }
        return outcome
    }

    /// Stops following `task` (its outcome was delivered, one way or another).
    func forget(_ task: URLSessionTask) {
        transfers.withLock { _ = $0.removeValue(forKey: task.taskIdentifier) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        if let target = request.url, let origin, Origin(target) == origin {
            completionHandler(request)
            return
        }
        let target =
            request.url.map { "\($0.scheme ?? "?")://\($0.host ?? "?")\($0.port.map { ":\($0)" } ?? "")" }
            ?? "no location"
        let following = transfers.withLock { transfers -> Bool in
            guard transfers[task.taskIdentifier] != nil else { return false }
            transfers[task.taskIdentifier]?.refusedRedirect = target
            return true
        }
        // A transfer already abandoned (deadline, cancellation) was cancelled: answering its
        // redirect now would reach a task that no longer waits for the answer.
        guard following else { return }
        // No new request: the transfer ends with the redirect itself, which `complete` fails.
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if response.expectedContentLength > Int64(maxBodyBytes) {
            fail(dataTask, with: .tooLarge(limit: maxBodyBytes))
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let tooLarge = transfers.withLock { transfers -> Bool in
            guard var transfer = transfers[dataTask.taskIdentifier] else { return false }
            guard transfer.body.count + data.count <= maxBodyBytes else { return true }
            transfers[dataTask.taskIdentifier] = nil  // no copy-on-write while appending
            transfer.body.append(data)
            transfers[dataTask.taskIdentifier] = transfer
            return false
        }
        if tooLarge { fail(dataTask, with: .tooLarge(limit: maxBodyBytes)) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let target = transfer.refusedRedirect {
            transfer.outcome.finish(.failure(UpstreamError.redirected(to: target)))
        } else if let error {
            transfer.outcome.finish(.failure(error))
        } else if let response = task.response as? HTTPURLResponse {
            transfer.outcome.finish(.success((transfer.body, response)))
        } else {
            transfer.outcome.finish(.failure(UpstreamError.badPayload("not an HTTP response")))
        }
    }

    private func fail(_ task: URLSessionTask, with error: UpstreamError) {
        let outcome = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier)?.outcome }
        if outcome?.finish(.failure(error)) == true { task.cancel() }
    }
}

/// The result of one transfer, delivered once: by libcurl, the deadline or cancellation,
/// whichever comes first.
final class TransferOutcome: Sendable {
    private struct State {
        var continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>?
        var early: Result<(Data, HTTPURLResponse), any Error>?
        var done = false
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>) {
        let early = state.withLock { state -> Result<(Data, HTTPURLResponse), any Error>? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    /// Delivers `result` unless one was delivered already; true when this one counted.
    @discardableResult
    func finish(_ result: Result<(Data, HTTPURLResponse), any Error>) -> Bool {
        let continuation = state.withLock { state -> CheckedContinuation<(Data, HTTPURLResponse), any Error>?? in
            guard !state.done else { return .none }
            state.done = true
            guard let continuation = state.continuation else {
                state.early = result
                return .some(nil)
            }
            state.continuation = nil
            return .some(continuation)
        }
        guard let continuation else { return false }
        continuation?.resume(with: result)
        return true
    }
}
