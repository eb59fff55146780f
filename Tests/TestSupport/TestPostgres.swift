import Foundation
import Logging
import PostgresNIO
import Testing

/// The PostgreSQL the favorites tests run against: `RNM_TEST_POSTGRES_URL` (`.ci/run` and
/// `scripts/test` start one and set it). Each test gets a schema of its own, so that tests
/// running at once never see each other's favorites.
public enum TestPostgres {
    /// The database's URL, if one is given.
    public static var url: String? {
        ProcessInfo.processInfo.environment["RNM_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether a run without a database must fail rather than skip (`.ci/run` sets it).
    public static var required: Bool { ProcessInfo.processInfo.environment["RNM_TEST_POSTGRES_REQUIRED"] == "1" }

    /// The URL of a new, empty schema (libpq's `options` sets the connection's search_path to
    /// it); nil, said loudly, when no database is given: a known issue in the test's result
    /// ("passed with 1 known issue"), or a failure where a database is required.
    public static func freshURL(
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String? {
        guard let url else {
            let why = Comment(
                rawValue: "PostgreSQL tests SKIPPED: RNM_TEST_POSTGRES_URL is unset (scripts/test starts a "
                    + "throwaway PostgreSQL when its binaries are installed)")
            if required {
                Issue.record(why, sourceLocation: sourceLocation)
            } else {
                withKnownIssue(why) { Issue.record(why, sourceLocation: sourceLocation) }
            }
            return nil
        }
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try await execute("CREATE SCHEMA \(schema)", on: url)
        let separator = url.contains("?") ? "&" : "?"
        return url + separator + "options=-c%20search_path%3D\(schema)"
    }

    /// Runs one statement on `url`'s database (a schema for a test, nothing with values).
    static func execute(_ sql: String, on url: String) async throws {
        guard let parts = URLComponents(string: url), let user = parts.user else {
            throw DeadlineExceeded(what: "RNM_TEST_POSTGRES_URL is not a postgres:// URL with a user")
        }
        let database = String(parts.path.drop { $0 == "/" })
        let configuration = PostgresConnection.Configuration(
            host: parts.host ?? "127.0.0.1", port: parts.port ?? 5432, username: user, password: parts.password,
            database: database.isEmpty ? nil : database, tls: .disable)
        let connection = try await PostgresConnection.connect(
            configuration: configuration, id: 1, logger: Logger(label: "rnm.test.postgres"))
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "rnm.test.postgres"))
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// `url` with its host and port replaced (to go through a ``TCPProxy``).
    public static func url(_ url: String, port: Int) -> String {
        guard var parts = URLComponents(string: url) else { return url }
        parts.host = "127.0.0.1"
        parts.port = port
        return parts.string ?? url
    }

    /// `url`'s host and port.
    public static func address(_ url: String) -> (host: String, port: Int) {
        let parts = URLComponents(string: url)
        return (parts?.host ?? "127.0.0.1", parts?.port ?? 5432)
    }

    /// `url`'s password, to check logs never hold it.
    public static func password(_ url: String) -> String? { URLComponents(string: url)?.password }
}
