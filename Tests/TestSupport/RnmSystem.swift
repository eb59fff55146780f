import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import Messaging
import Synchronization

/// The whole system as users run it: the Gateway and both services as real child processes,
/// against local test upstreams serving the real data. Any process can be killed and restarted.
public final class RnmSystem: Sendable {
    /// One of the three long-running processes.
    public enum Role: String, CaseIterable, Sendable, CustomStringConvertible {
        case characters, universities, gateway

        /// The executable's name.
        public var executable: String {
            switch self {
            case .characters: "CharacterService"
            case .universities: "UniversityService"
            case .gateway: "Gateway"
            }
        }

        /// The health method it answers itself.
        public var healthMethod: String { rawValue + ".health" }

        public var description: String { executable }
    }

    public let directory: String
    public let characterFixtures: RickAndMortyFixtures
    public let characterUpstream: TestUpstream
    public let universityUpstream: TestUpstream
    /// The environment every process gets.
    public let environment: [String: String]
    private let processes = Mutex<[Role: ChildProcess]>([:])

    public var gatewaySocket: String { socket(.gateway) }

    private init(
        directory: String, characterFixtures: RickAndMortyFixtures, characterUpstream: TestUpstream,
        universityUpstream: TestUpstream, environment: [String: String]
    ) {
        self.directory = directory
        self.characterFixtures = characterFixtures
        self.characterUpstream = characterUpstream
        self.universityUpstream = universityUpstream
        self.environment = environment
    }

    /// Starts the upstreams and `roles` (all three by default); `settings` override the
    /// environment (`RNM_...` variables, proxies).
    public static func start(settings: [String: String] = [:], roles: [Role] = Role.allCases) async throws -> RnmSystem
    {
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
            // The upstreams run in this test process, which the rest of the suite can load
            // enough to delay their answers past a second; tests of timeouts set their own.
            "RNM_UPSTREAM_TIMEOUT_MS": "10000",
            "RNM_CHARACTERS_MAX_AGE": "0",
            "no_proxy": "127.0.0.1",
        ].merging(settings) { $1 }
        let system = RnmSystem(
            directory: directory, characterFixtures: fixtures, characterUpstream: characterUpstream,
            universityUpstream: universityUpstream, environment: environment)
        for role in roles {
            try system.launch(role)
        }
        for role in roles {
            try await system.waitUntilReady(role)
        }
        return system
    }

    /// Starts a system, runs `body` with it, and stops it whatever happens: a failing check
    /// never leaks a process or a socket.
    public static func with<T>(
        settings: [String: String] = [:], roles: [Role] = Role.allCases,
        _ body: (RnmSystem) async throws -> T
    ) async throws -> T {
        let system = try await start(settings: settings, roles: roles)
        do {
            let value = try await body(system)
            try await system.stop()
            return value
        } catch {
            try? await system.stop()
            throw error
        }
    }

    /// The socket `role` listens on.
    public func socket(_ role: Role) -> String { directory + "/\(role.rawValue).sock" }

    /// The database file of a service.
    public func database(_ role: Role) -> String { directory + "/\(role.rawValue).sqlite" }

    /// The running process of `role`, if any.
    public func process(_ role: Role) -> ChildProcess? { processes.withLock { $0[role] } }

    /// Where `role`'s log (its stderr) is kept (each start of it begins the file anew).
    public func logPath(_ role: String) -> String { directory + "/\(role).log" }

    /// What `role` has logged so far.
    public func log(_ role: String) -> String {
        (try? String(contentsOfFile: logPath(role), encoding: .utf8)) ?? ""
    }

    /// Starts `role` without waiting for it; its log goes to ``logPath(_:)``.
    public func launch(_ role: Role) throws {
        let process = try ChildProcess(role.executable, environment: environment, logPath: logPath(role.rawValue))
        processes.withLock { $0[role] = process }
    }

    /// Starts `role` and returns how long it took to answer its health method.
    @discardableResult
    public func restart(_ role: Role, seconds: Double = 10) async throws -> Duration {
        let started = ContinuousClock.now
        try launch(role)
        try await waitUntilReady(role, seconds: seconds)
        return ContinuousClock.now - started
    }

    /// Waits until `role` answers its health method on a new connection (a socket file left
    /// by a killed process does not count).
    public func waitUntilReady(_ role: Role, seconds: Double = 10) async throws {
        let path = socket(role)
        try await waitUntil(seconds, "\(role) ready", pollEvery: .milliseconds(2)) {
            guard let client = try? await RPCClient.connect(socketPath: path, service: role.rawValue) else {
                return false
            }
            let reply = try? await client.call(method: role.healthMethod, params: nil, timeout: .seconds(2))
            await client.close()
            return reply?.result != nil
        }
    }

    /// Starts an HTTP front against this system's Gateway (its log at ``logPath(_:)`` of `http`)
    /// and waits until it answers; returns it and its port. It listens on a port of its own
    /// choosing (`127.0.0.1:0`), read from its "listening" line (logged at info, which is set
    /// unless `settings` or the system's set a level): a port chosen here and handed to it could
    /// be another test's by the time it binds, and another front's answer taken for its own.
    /// Its links say port 0 unless `settings` give `RNM_PUBLIC_URL`.
    public func launchHTTP(settings: [String: String] = [:]) async throws -> (process: ChildProcess, port: Int) {
        let http = try ChildProcess(
            "HTTPGateway",
            environment: ["RNM_LOG_LEVEL": "info"].merging(environment) { $1 }
                .merging(["RNM_HTTP_ADDRESS": "127.0.0.1:0"]) { $1 }.merging(settings) { $1 },
            logPath: logPath("http"))
        try await waitUntil(30, "the HTTP front says where it listens (\(logPath("http")))") {
            self.listeningPort() != nil || !http.isRunning
        }
        guard let port = listeningPort() else {
            throw ChildProcessError(message: "the HTTP front exited: \(log("http"))")
        }
        try await waitUntil(10, "the HTTP front answers") {
            (try? await HTTPProbe.request(port: port, target: "/api"))?.status == 200
        }
        return (http, port)
    }

    /// The port in the HTTP front's own "listening" line (text or JSON), once it is logged: its
    /// `address`, not its public URL (which says the port it was given, 0), nor Hummingbird's
    /// "Server started and listening" lines (the metrics listener's too).
    private func listeningPort() -> Int? {
        let own = #/(?:\] listening$|"message":"listening")/#
        let address = #/address[=":]+\[IPv[46]\][^/]*/[^ "]*:([0-9]+)/#
        let line = log("http").split(separator: "\n").first { $0.contains(own) }
        return line?.firstMatch(of: address).flatMap { Int($0.output.1) }
    }

    /// Sends `signal` to `role` (SIGKILL by default: a crash).
    public func kill(_ role: Role, _ signal: Int32 = SIGKILL) {
        process(role)?.kill(signal)
    }

    /// Resident memory of `role`, in bytes (from /proc).
    public func residentBytes(_ role: Role) -> Int? {
        guard let pid = process(role)?.pid,
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { return nil }
        return kilobytes * 1024
    }

    /// A client connection to `role`'s socket.
    public func connect(_ role: Role = .gateway) async throws -> RPCClient {
        try await RPCClient.connect(socketPath: socket(role), service: role.rawValue)
    }

    /// Runs `rnmctl` against this system.
    public func rnmctl(_ arguments: String..., environment: [String: String] = [:]) async throws -> CommandOutput {
        try await rnmctl(arguments: arguments, environment: environment)
    }

    /// Runs `rnmctl` with `arguments` against this system (at 40 columns unless `COLUMNS` is given).
    public func rnmctl(
        arguments: [String], environment: [String: String] = [:], currentDirectory: String? = nil
    ) async throws -> CommandOutput {
        try await ChildProcess.run(
            "rnmctl", arguments,
            environment: ["RNM_GATEWAY_SOCKET": gatewaySocket, "COLUMNS": "40"].merging(environment) { $1 },
            currentDirectory: currentDirectory)
    }

    /// SIGTERM to every process, then waits for them and stops the upstreams.
    public func stop() async throws {
        let running = processes.withLock { $0.filter(\.value.isRunning) }
        for process in running.values { process.kill(SIGTERM) }
        for (role, process) in running {
            do {
                _ = try await process.waitForExit(seconds: 10)
            } catch {
                // What the process was doing is in its log: its last lines, in the failure itself
                // (CI keeps nothing else of a run).
                let tail = log(role.rawValue).split(separator: "\n").suffix(8).joined(separator: "\n")
                throw ChildProcessError(message: "\(error); the end of its log:\n\(tail)")
            }
        }
        await characterUpstream.stop()
        await universityUpstream.stop()
    }
}
