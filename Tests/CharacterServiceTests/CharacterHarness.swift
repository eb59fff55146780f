import Foundation
import Logging
import Messaging
import NIOCore
import ServiceKit
import ServiceRuntime
import TestSupport
import GRDB
@testable import CharacterService

/// A CharacterService on a temporary socket and database, against a local test upstream that
/// serves the real Rick and Morty data.
struct CharacterHarness {
    let fixtures: RickAndMortyFixtures
    let upstream: TestUpstream
    let server: RunningServer
    let client: RPCClient
    let databasePath: String

    static func start(
        maxAge: Int = 600, upstream existing: (TestUpstream, RickAndMortyFixtures)? = nil,
        databasePath: String? = nil, upstreamMaxConnections: Int = Defaults.upstreamMaxConnections,
        upstreamTimeoutMilliseconds: Int = 5000,  // wide: the whole suite starts at once on two cores
        settings: CharacterSettings = CharacterSettings(), logger: Logger = testLogger()
    ) async throws -> CharacterHarness {
        bypassProxies()
        let fixtures = existing?.1 ?? RickAndMortyFixtures()
        let upstream = if let existing { existing.0 } else { try await TestUpstream.start(route: fixtures.route) }
        let directory = temporaryDirectory()
        let configuration = CachingServiceConfiguration(
            socketPath: directory + "/characters.sock",
            databasePath: databasePath ?? directory + "/characters.sqlite",
            upstreamURL: upstream.baseURL + "/api",
            upstreamTimeoutMilliseconds: upstreamTimeoutMilliseconds,
            maxAgeSeconds: maxAge,
            upstreamMaxConnections: upstreamMaxConnections
        )
        let server = try await RunningServer.start(socketPath: configuration.socketPath) { onListening in
            try CharacterServiceApp.build(
                configuration: configuration, settings: settings, logger: logger, onListening: onListening)
        }
        let client = try await server.connect()
        return CharacterHarness(
            fixtures: fixtures, upstream: upstream, server: server, client: client,
            databasePath: configuration.databasePath)
    }

    func call<P, R>(_ method: RPCMethod<P, R>, _ params: P) async throws -> R {
        try await client.call(method, params, timeout: .seconds(20))
    }

    /// The error a call fails with (nil if it succeeds).
    func error(_ body: () async throws -> some Any) async -> RPCError? {
        await rpcError(of: body)
    }

    /// Upstream requests whose path starts with `prefix`.
    func requests(_ prefix: String) -> [UpstreamRequest] {
        upstream.requests.filter { $0.path.hasPrefix("/api/" + prefix) }
    }

    /// Every row of the cache, table by table, as text: to check a failure changed nothing.
    func databaseDump() async throws -> [String] {
        let database = try CharacterDatabase(path: databasePath)
        return try await database.pool.read { db in
            var rows: [String] = []
            for table in ["character", "location", "episode", "listPage", "image", "favorite"] {
                for row in try GRDB.Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1, 2") {
                    rows.append("\(table): \(row)")
                }
            }
            return rows
        }
    }

    func stop() async throws {
        await client.close()
        try await server.stop()
        await upstream.stop()
    }
}

/// The fixture records of a kind.
func fixture(_ kind: String) -> [[String: Any]] { RickAndMortyFixtures.records(kind) }
