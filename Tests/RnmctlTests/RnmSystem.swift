import Foundation
import Messaging
import TestSupport

/// The whole system as users run it: the Gateway and both services as real processes,
/// against local test upstreams serving the real data; rnmctl run as a process.
final class RnmSystem: Sendable {
    let directory: String
    let characterFixtures: RickAndMortyFixtures
    let characterUpstream: TestUpstream
    let universityUpstream: TestUpstream
    let processes: [ChildProcess]

    var gatewaySocket: String { directory + "/gateway.sock" }

    init(directory: String, characterFixtures: RickAndMortyFixtures, characterUpstream: TestUpstream,
         universityUpstream: TestUpstream, processes: [ChildProcess]) {
        self.directory = directory
        self.characterFixtures = characterFixtures
        self.characterUpstream = characterUpstream
        self.universityUpstream = universityUpstream
        self.processes = processes
    }

    static func start() async throws -> RnmSystem {
        bypassProxies()
        let fixtures = RickAndMortyFixtures()
        let characterUpstream = try await TestUpstream.start(route: fixtures.route)
        let universityUpstream = try await TestUpstream.start(route: UniversityFixtures.route)
        let directory = temporaryDirectory()
        let environment = [
            "RNM_GATEWAY_SOCKET": directory + "/gateway.sock",
            "RNM_CHARACTERS_SOCKET": directory + "/characters.sock",
            "RNM_UNIVERSITIES_SOCKET": directory + "/universities.sock",
            "RNM_CHARACTERS_DB": directory + "/characters.sqlite",
            "RNM_UNIVERSITIES_DB": directory + "/universities.sqlite",
            "RNM_RICKANDMORTY_URL": characterUpstream.baseURL + "/api",
            "RNM_UNIVERSITIES_URL": universityUpstream.baseURL,
            "RNM_UPSTREAM_TIMEOUT_MS": "1500",
            "RNM_CHARACTERS_MAX_AGE": "0",
            "no_proxy": "127.0.0.1",
        ]
        let processes = try ["CharacterService", "UniversityService", "Gateway"].map {
            try ChildProcess($0, environment: environment)
        }
        try await waitUntil(15, "all sockets") {
            ["gateway", "characters", "universities"].allSatisfy { FileManager.default.fileExists(atPath: directory + "/\($0).sock") }
        }
        return RnmSystem(directory: directory, characterFixtures: fixtures, characterUpstream: characterUpstream,
                         universityUpstream: universityUpstream, processes: processes)
    }

    /// Runs `rnmctl` against this system.
    func rnmctl(_ arguments: String..., environment: [String: String] = [:]) async throws -> CommandOutput {
        try await ChildProcess.run("rnmctl", arguments,
                                   environment: ["RNM_GATEWAY_SOCKET": gatewaySocket, "COLUMNS": "40"].merging(environment) { $1 })
    }

    func stop() async throws {
        for process in processes { process.kill(SIGTERM) }
        for process in processes { _ = try await process.waitForExit(seconds: 10) }
        await characterUpstream.stop()
        await universityUpstream.stop()
    }
}
