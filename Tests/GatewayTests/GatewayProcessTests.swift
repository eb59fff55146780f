import Foundation
import Messaging
import NIOCore
import RnmAPI
import TestSupport
import Testing

/// The real processes: UniversityService and CharacterService as child processes, the Gateway
/// in this process.
@Suite("Gateway with real service processes", .cleansUp)
struct GatewayProcessTests {
    struct System {
        let directory: String
        let upstream: TestUpstream
        var universities: ChildProcess
        var characters: ChildProcess
        let harness: GatewayHarness

        static func start() async throws -> System {
            bypassProxies()
            let upstream = try await TestUpstream.start(route: UniversityFixtures.route)
            let directory = temporaryDirectory()
            let universities = try startUniversities(directory: directory, upstream: upstream)
            let characters = try ChildProcess(
                "CharacterService",
                arguments: ["--socket", directory + "/characters.sock", "--database", directory + "/characters.sqlite"])
            try await waitUntil(10, "service sockets") {
                FileManager.default.fileExists(atPath: directory + "/universities.sock")
                    && FileManager.default.fileExists(atPath: directory + "/characters.sock")
            }
            let harness = try await GatewayHarness.start(backends: false, directory: directory)
            return System(
                directory: directory, upstream: upstream, universities: universities, characters: characters,
                harness: harness)
        }

        static func startUniversities(directory: String, upstream: TestUpstream) throws -> ChildProcess {
            try ChildProcess(
                "UniversityService",
                arguments: [
                    "--socket", directory + "/universities.sock", "--database", directory + "/universities.sqlite",
                    "--upstream-url", upstream.baseURL, "--upstream-timeout-ms", "5000",
                ], environment: ["no_proxy": "127.0.0.1"])
        }

        func stop() async throws {
            universities.kill(SIGTERM)
            characters.kill(SIGTERM)
            try await harness.gateway.stop()
            await upstream.stop()
        }
    }

    @Test(
        """
        kill -9 a service with requests in flight: they fail at once with -32003, the other service keeps answering, \
        a restart is served again without touching the Gateway
        """
    )
    func killAndRestart() async throws {
        var system = try await System.start()
        let client = try await system.harness.connect()
        #expect(try await client.call(RPCMethods.universitiesList, .init()).count == 37)

        system.upstream.latency = .seconds(3)  // keep list requests in flight at the service
        let inFlight = (0..<10).map { _ in
            Task { try await client.raw("universities.refresh", "{}", timeout: .seconds(20)).rpcError }
        }
        let upstream = system.upstream
        try await waitUntil(5, "requests reach the upstream") { upstream.requestCount >= 2 }
        let killedAt = ContinuousClock.now
        system.universities.kill(SIGKILL)
        for task in inFlight {
            let error = try await task.value
            #expect(error?.code == .serviceUnavailable)
            #expect(error?.message.contains("universities") == true)
        }
        // Promptly: not after the upstream's 3 s nor the 20 s request timeout (the bound is wide:
        // the whole suite shares two cores; it took 1.7 s once in CI's run).
        #expect(ContinuousClock.now - killedAt < .seconds(5), "in-flight requests must fail promptly")

        // While it is down: fail fast, and characters is not affected.
        let downStarted = ContinuousClock.now
        let down = try await client.raw("universities.list", "{}", timeout: .seconds(20))
        #expect(down.rpcError?.code == .serviceUnavailable)
        #expect(
            ContinuousClock.now - downStarted < .seconds(5),
            "fails at once, not after the 20 s timeout (generous: the whole suite shares two cores)")
        #expect(try await client.call(RPCMethods.charactersHealth, NoParams()).service == "characters")
        let health = try await client.call(RPCMethods.gatewayHealth, NoParams())
        #expect(health.status == "degraded")
        #expect(health.services["universities"]?.status == "down")
        #expect(health.services["universities"]?.lastError?.isEmpty == false)
        #expect(health.services["characters"]?.status == "up")

        // Restart: served again soon after its socket is up (the Gateway's reconnect backoff),
        // cache intact. (A wide bound: under the whole suite it took 1.26 s once.)
        system.upstream.latency = .zero
        system.upstream.fault = .status(503)
        system.universities = try System.startUniversities(directory: system.directory, upstream: system.upstream)
        let socket = system.directory + "/universities.sock"
        try await waitUntil(10, "universities socket") { FileManager.default.fileExists(atPath: socket) }
        let upAt = ContinuousClock.now
        try await waitUntil(5, "served again") {
            (try? await client.raw("universities.list", "{}").result) != nil
        }
        #expect(ContinuousClock.now - upAt < .seconds(5))
        let stale = try await client.call(RPCMethods.universitiesList, .init())
        #expect(stale.count == 37)
        #expect(stale.freshness.stale)
        #expect(try await client.call(RPCMethods.gatewayHealth, NoParams()).status == "ok")
        await client.close()
        try await system.stop()
    }

    @Test("SIGTERM: a service finishes its requests in flight, removes its socket and exits 0")
    func sigtermDrains() async throws {
        let system = try await System.start()
        let client = try await system.harness.connect()
        system.upstream.latency = .milliseconds(600)
        // Five different countries, so that each one is certainly in flight at the service
        // (identical requests would share one upstream call) before the signal.
        let countries = ["United Arab Emirates", "Japan", "France", "Germany", "India"]
        let inFlight = countries.map { country in
            Task { try await client.call(RPCMethods.universitiesList, .init(country: country), timeout: .seconds(10)) }
        }
        try await waitUntil(5, "every request reaches the upstream") {
            Set(system.upstream.requests.compactMap { $0.query["country"] }).isSuperset(of: countries)
        }
        system.universities.kill(SIGTERM)
        for (country, task) in zip(countries, inFlight) {
            #expect(try await task.value.count == UniversityFixtures.records(country: country).count)
        }
        #expect(UniversityFixtures.records(country: "United Arab Emirates").count == 37)
        #expect(try await system.universities.waitForExit(seconds: 5) == 0)
        #expect(!FileManager.default.fileExists(atPath: system.directory + "/universities.sock"))
        await client.close()
        try await system.stop()
    }
}
