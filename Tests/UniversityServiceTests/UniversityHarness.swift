import Foundation
import Messaging
import RnmAPI
import ServiceKit
import ServiceRuntime
import TestSupport
@testable import UniversityService

/// A UniversityService on a temporary socket and database, against a local test upstream that
/// serves the real Hipo data.
struct UniversityHarness {
    let upstream: TestUpstream
    let server: RunningServer
    let client: RPCClient
    let databasePath: String

    static func start(
        maxAge: Int = 0, upstream existing: TestUpstream? = nil, databasePath: String? = nil
    ) async throws -> UniversityHarness {
        bypassProxies()
        _ = UniversityFixtures.world.count  // parse the 2 MB list once, outside any timed request
        let upstream =
            if let existing { existing } else { try await TestUpstream.start(route: UniversityFixtures.route) }
        let directory = temporaryDirectory()
        let configuration = CachingServiceConfiguration(
            socketPath: directory + "/universities.sock",
            databasePath: databasePath ?? directory + "/universities.sqlite",
            upstreamURL: upstream.baseURL,
            upstreamTimeoutMilliseconds: 5000,  // wide: the whole suite starts at once on two cores
            maxAgeSeconds: maxAge
        )
        let server = try await RunningServer.start(socketPath: configuration.socketPath) { onListening in
            try UniversityServiceApp.build(configuration: configuration, logger: testLogger(), onListening: onListening)
        }
        let client = try await server.connect()
        return UniversityHarness(
            upstream: upstream, server: server, client: client, databasePath: configuration.databasePath)
    }

    func list(_ country: String? = nil, name: String? = nil) async throws -> Fresh<UniversityList> {
        try await client.call(RPCMethods.universitiesList, .init(country: country, name: name), timeout: .seconds(30))
    }

    func get(_ name: String, country: String? = nil) async throws -> Fresh<UniversityDetail> {
        try await client.call(RPCMethods.universitiesGet, .init(name: name, country: country), timeout: .seconds(30))
    }

    func refresh(_ country: String? = nil) async throws -> Fresh<UniversityList> {
        try await client.call(RPCMethods.universitiesRefresh, .init(country: country), timeout: .seconds(10))
    }

    /// The error a call fails with (nil if it succeeds).
    func error(_ body: () async throws -> some Any) async -> RPCError? {
        await rpcError(of: body)
    }

    /// What the cache holds for `country`, straight from the database file.
    func cached(_ country: String) async throws -> (fetchedAt: Date, items: [Data])? {
        let database = try UniversityDatabase(path: databasePath)
        return try await database.country(key: UniversityCatalog.key(country)).map {
            ($0.fetchedAt, $0.items.map(\.json))
        }
    }

    func stop() async throws {
        await client.close()
        try await server.stop()
        await upstream.stop()
    }
}
