import GRDB
import Messaging

/// A write the database refused, named for people: what was being stored, and why in words
/// (the disk full, the file read-only or damaged) rather than an SQLite code.
public struct StorageFailure: Error, Sendable, Equatable, CustomStringConvertible, RPCErrorConvertible {
    /// `full`, `read-only`, `damaged`, `failing` (another I/O error), or `unreachable` (a
    /// database server that does not answer).
    public let state: String
    /// What was being stored: "page 2 of characters", "the favorite 1".
    public let what: String
    /// Why, in words, with SQLite's own message.
    public let reason: String
    /// The database file, or a database server's address (never with its password).
    public let path: String
    /// What failed: "store", or "read" (a list that lives only in the database, the favorites).
    public let action: String
    /// When the request may succeed if sent again, said in its error.
    public let retryWhen: String

    /// A failure of a store that is not an SQLite file (a database server): its own words.
    public init(
        state: String, what: String, reason: String, path: String, action: String = "store",
        retryWhen: String = "once it can be written"
    ) {
        (self.state, self.what, self.reason, self.path) = (state, what, reason, path)
        (self.action, self.retryWhen) = (action, retryWhen)
    }

    init(_ error: DatabaseError, what: String, path: String, action: String = "store") {
        let sqlite = error.message ?? "\(error.resultCode)"
        (state, reason) =
            switch error.resultCode {
            case .SQLITE_FULL: ("full", "the disk is full (\(sqlite))")
            case .SQLITE_READONLY, .SQLITE_PERM: ("read-only", "the database cannot be written (\(sqlite))")
            case .SQLITE_CORRUPT, .SQLITE_NOTADB: ("damaged", "the database file is damaged (\(sqlite))")
            default: ("failing", "the database cannot be written: \(sqlite)")
            }
        self.what = what
        self.path = path
        self.action = action
        self.retryWhen = "once it can be written"
    }

    public var description: String { "cannot \(action) \(what): \(reason), at \(path)" }

    /// Whether `error` says the database cannot be written (the disk, the file), rather than a
    /// mistake in a statement, which is a bug and stays one (-32603, logged).
    static func isStorage(_ error: DatabaseError) -> Bool {
        [
            .SQLITE_FULL, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_IOERR, .SQLITE_CORRUPT, .SQLITE_NOTADB,
            .SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_CANTOPEN,
        ].contains(error.resultCode)
    }

    public func rpcError(service: String) -> RPCError {
        RPCError(
            .storageUnavailable, description + "; try again \(retryWhen)",
            service: service)
    }
}
