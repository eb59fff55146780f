import Foundation
import Logging
import PostgresNIO
import ServiceKit
import ServiceLifecycle
import Synchronization

/// The favorites in PostgreSQL (`RNM_FAVORITES_URL`): one list that every CharacterService
/// replica pointed at the database reads and writes, so that a favorite added through one is
/// listed by all at once. Each call asks the database (nothing of the list is kept here), and
/// answers within ``deadline`` or fails with a ``StorageFailure``: the rest of the service never
/// waits on it. Its client's connections are this ``Service``'s `run()`.
final class PostgresFavorites: FavoritesStore, Service {
    let client: PostgresClient
    let location: String
    /// The longest a favorites call waits for the database: an unreachable server would hold
    /// it for the client's connect timeout and its retries.
    let deadline: Duration
    private let logger: Logger
    /// Whether the table is known to exist (created at start, or by the first call after the
    /// database came back).
    private let schemaReady = Atomic(false)
    /// Whether health's check of a failing database is under way (one at a time).
    private let checking = Atomic(false)

    /// The advisory lock that makes replicas starting together create the table one at a time
    /// (`CREATE TABLE IF NOT EXISTS` alone can fail on a unique index when two race).
    static let schemaLock = 0x726E_6D66_6176

    init(url: PostgresURL, logger: Logger, deadline: Duration = .seconds(3)) {
        var clientLogger = logger
        // The client's own lines at notice and above only: its debug lines (each connection
        // attempt and query) would drown rnm's own when debugging, and the store logs failures.
        clientLogger.logLevel = max(logger.logLevel, .notice)
        client = PostgresClient(configuration: url.configuration, backgroundLogger: clientLogger)
        location = url.redacted
        self.deadline = deadline
        self.logger = logger
    }

    /// Runs the client until the service group shuts down, and creates the table at start
    /// when the database answers (else the first favorites call does).
    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.client.run() }
            group.addTask {
                do {
                    try await self.ready()
                    self.logger.info("favorites in PostgreSQL at \(self.location)")
                } catch {
                    self.logger.warning("favorites: \(error); the service answers all the same, and tries again")
                }
            }
        }
    }

    func setFavorite(id: Int, _ favorite: Bool, at date: Date) async throws {
        let addedAt = date.timeIntervalSince1970
        _ = try await call("the favorite \(id)", action: "store") {
            if favorite {
                try await $0.client.query(
                    try Self.statement(
                        "INSERT INTO rnm_favorite (id, added_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING", id,
                        addedAt),
                    logger: $0.logger)
            } else {
                try await $0.client.query(
                    try Self.statement("DELETE FROM rnm_favorite WHERE id = $1", id), logger: $0.logger)
            }
        }
    }

    func ids() async throws -> [Int] {
        try await call("the favorites", action: "read") {
            let rows = try await $0.client.query(
                "SELECT id FROM rnm_favorite ORDER BY added_at, id", logger: $0.logger)
            var ids: [Int] = []
            for try await id in rows.decode(Int.self) { ids.append(id) }
            return ids
        }
    }

    /// The count within ``healthDeadline`` while the database answers; while it does not, nil
    /// at once, and one check in the background (so that health says `ok` again when it is
    /// back, even if nobody asks for a favorite).
    func healthCount(recordingIn storage: StorageHealth) async -> Int? {
        @Sendable func count(_ deadline: Duration) async -> Int? {
            try? await storage.required("the favorites", action: "read", logged: false) {
                try await call("the favorites", action: "read", deadline: deadline) {
                    let rows = try await $0.client.query("SELECT count(*) FROM rnm_favorite", logger: $0.logger)
                    for try await count in rows.decode(Int.self) { return count }
                    return 0
                }
            }
        }
        guard storage.currentFailure != nil else { return await count(Self.healthDeadline) }
        if !checking.exchange(true, ordering: .acquiringAndReleasing) {
            Task {
                _ = await count(deadline)
                checking.store(false, ordering: .releasing)
            }
        }
        return nil
    }

    /// The longest health waits for the count: well inside the Gateway's probe
    /// (`RNM_HEALTH_TIMEOUT_MS`, 1 s at least).
    static let healthDeadline: Duration = .milliseconds(500)

    /// A statement with its values bound (`$1`, `$2`…): its SQL text is a constant, and no
    /// value is ever part of it. (PostgresNIO's string interpolation binds values too, but
    /// constant text is what the sources' SQL check can tell from a value spliced in.)
    private static func statement(_ sql: StaticString, _ values: any PostgresEncodable...) throws -> PostgresQuery {
        var binds = PostgresBindings(capacity: values.count)
        for value in values { try binds.append(value) }
        return PostgresQuery(unsafeSQL: sql.description, binds: binds)
    }

    /// The table, created if missing: once per process, again after a failed try.
    private func ready() async throws {
        guard !schemaReady.load(ordering: .acquiring) else { return }
        try await call("the favorites' table", action: "create") {
            // Looked for first: a role that may only read and write the table never asks to create.
            let found = try await $0.client.query("SELECT to_regclass('rnm_favorite') IS NOT NULL", logger: $0.logger)
            for try await exists in found.decode(Bool.self) where exists { return }
            try await $0.client.withTransaction(logger: $0.logger) { connection in
                try await connection.query(
                    try Self.statement("SELECT pg_advisory_xact_lock($1)", Self.schemaLock), logger: self.logger)
                // A name of its own (rnm_…): the database may be shared with other applications.
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS rnm_favorite (id bigint PRIMARY KEY, added_at double precision NOT NULL)
                    """,
                    logger: self.logger)
            }
        }
        schemaReady.store(true, ordering: .releasing)
    }

    /// `body` within the deadline, the table ready first; any failure a ``StorageFailure``.
    private func call<T: Sendable>(
        _ what: String, action: String, deadline: Duration? = nil,
        _ body: @escaping @Sendable (PostgresFavorites) async throws -> T
    ) async throws -> T {
        let deadline = deadline ?? self.deadline
        do {
            return try await DeadlineRace.run(limit: deadline) {
                if action != "create" { try await self.ready() }
                return try await body(self)
            }
        } catch let failure as StorageFailure {
            throw failure
        } catch {
            throw failure(error, what: what, action: action)
        }
    }

    /// `error` in words: the server's own message for a statement it refused, else that it
    /// cannot be reached. PostgresNIO's errors are not described (their text hides details on
    /// purpose); nothing here can hold the password, which stays in the client's configuration.
    private func failure(_ error: any Error, what: String, action: String) -> StorageFailure {
        let (state, reason): (String, String)
        if let error = error as? DeadlinePassed {
            (state, reason) = ("unreachable", "PostgreSQL did not answer within \(error.limit)")
        } else if let error = error as? PSQLError, let message = error.serverInfo?[.message] {
            let code = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            (state, reason) = ("failing", "PostgreSQL refused it: \(message)\(code)")
        } else if let error = error as? PSQLError {
            let cause = error.underlying.map { ": \($0)" } ?? ""
            (state, reason) = ("unreachable", "PostgreSQL cannot be reached (\(error.code))\(cause)")
        } else {
            (state, reason) = ("unreachable", "PostgreSQL cannot be reached (\(type(of: error)))")
        }
        return StorageFailure(
            state: state, what: what, reason: reason, path: location, action: action,
            retryWhen: state == "unreachable" ? "when PostgreSQL answers again" : "once PostgreSQL accepts it")
    }
}
