import Foundation
import GRDB
import Logging
import Messaging
import RnmAPI
import Synchronization

/// What a service's writes found of its database: ok, or why they fail (the disk full, the file
/// read-only or damaged), since when. Reads treat a store as best effort: an answer fetched is
/// sent even when it cannot be kept (as nginx and Squid treat cache writes); writes that are
/// the request's point (a sync, a favorite) fail with -32007 naming the disk.
public final class StorageHealth: Sendable {
    /// The database file, named in errors.
    public let path: String
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var failure: StorageFailure?
        var failingSince: Date?
        var failedWrites = 0
        var setAside: String?
        var standIn: String?
    }

    public init(path: String = "the cache database", logger: Logger = Logger(label: "rnm.storage")) {
        self.path = path
        self.logger = logger
    }

    /// Writes that failed since the service started: a sync compares it before and after, so
    /// that pages it could not keep never make a mirror "complete".
    public var failedWrites: Int { state.withLock { $0.failedWrites } }

    /// The error for the last failed write, if writes are failing now.
    public var currentFailure: StorageFailure? { state.withLock { $0.failure } }

    /// Stores what a read fetched; a database that cannot take it is logged and reported,
    /// and the read goes on with what it fetched.
    public func bestEffort(_ what: @autoclosure () -> String, _ write: () async throws -> Void) async throws {
        do {
            try await write()
            recordSuccess()
        } catch let error as DatabaseError where StorageFailure.isStorage(error) {
            let failure = record(error, storing: what())
            logger.warning("not stored: \(failure.what): \(failure.reason) (\(path)); answered all the same")
        }
    }

    /// A write that is the request's point: its failure is the answer, -32007 naming the disk.
    /// Also a read of data that lives only there (`action` "read": the favorites). A store that
    /// is not a file (a database server) throws its own ``StorageFailure``, recorded the same
    /// way; `logged` false records it without a line (health, asked every few seconds).
    public func required<T>(
        _ what: @autoclosure () -> String, action: String = "store", logged: Bool = true,
        _ write: () async throws -> T
    ) async throws -> T {
        do {
            let value = try await write()
            recordSuccess()
            return value
        } catch let error as DatabaseError where StorageFailure.isStorage(error) {
            let failure = record(StorageFailure(error, what: what(), path: path, action: action))
            if logged { logger.error("\(failure.what) failed: \(failure.reason) (\(path))") }
            throw failure
        } catch let failure as StorageFailure {
            record(failure)
            if logged { logger.error("\(failure.what) failed: \(failure.reason) (\(failure.path))") }
            throw failure
        }
    }

    /// Says, from now on, what opening the database took: a damaged file moved away, a
    /// stand-in for a file that cannot be written.
    public func note(_ opening: DatabaseOpening) {
        state.withLock { state in
            if let path = opening.setAside {
                state.setAside = [state.setAside, path].compactMap { $0 }.joined(separator: ", ")
            }
            if let standIn = opening.standIn { state.standIn = standIn }
        }
    }

    /// For `*.health`: several databases (a cache, the favorites) as one, the first failing
    /// one's state and reason first.
    public static func report(_ healths: [StorageHealth]) -> ServiceHealth.Storage {
        let reports = healths.map(\.report)
        var combined =
            reports.first { $0.state != "ok" } ?? reports.first
            ?? .init(
                state: "ok", lastError: nil, failingSince: nil, failedWrites: 0, setAside: nil)
        combined.failedWrites = reports.reduce(0) { $0 + $1.failedWrites }
        let setAside = reports.compactMap(\.setAside)
        combined.setAside = setAside.isEmpty ? nil : setAside.joined(separator: ", ")
        return combined
    }

    /// For `*.health`.
    public var report: ServiceHealth.Storage {
        state.withLock { state in
            ServiceHealth.Storage(
                state: state.failure?.state ?? (state.standIn == nil ? "ok" : "read-only"),
                lastError: state.failure?.description
                    ?? state.standIn.map { "\(path) cannot be written; kept in \($0) until the service stops" },
                failingSince: state.failingSince?.rfc3339, failedWrites: state.failedWrites,
                setAside: state.setAside, standIn: state.standIn)
        }
    }

    private func recordSuccess() {
        state.withLock { state in
            guard state.failure != nil else { return }
            state.failure = nil
            state.failingSince = nil
        }
    }

    private func record(_ error: DatabaseError, storing what: String) -> StorageFailure {
        record(StorageFailure(error, what: what, path: path))
    }

    @discardableResult
    private func record(_ failure: StorageFailure) -> StorageFailure {
        state.withLock { state in
            if state.failure == nil { state.failingSince = Date() }
            state.failure = failure
            state.failedWrites += 1
        }
        return failure
    }
}
