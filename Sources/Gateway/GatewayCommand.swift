import ArgumentParser
import Messaging
import RnmAPI
import ServiceRuntime

/// `Gateway`: the one socket clients talk to; routes each request to its service.
public struct GatewayCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "Gateway",
        abstract: "Routes rnm requests from clients to the CharacterService and the UniversityService."
    )

    @Option(help: "Socket clients connect to (env RNM_GATEWAY_SOCKET).")
    var socket: String?

    @Option(name: .customLong("characters-socket"), help: "The CharacterService's socket (env RNM_CHARACTERS_SOCKET).")
    var charactersSocket: String?

    @Option(name: .customLong("universities-socket"), help: "The UniversityService's socket (env RNM_UNIVERSITIES_SOCKET).")
    var universitiesSocket: String?

    @Option(name: .customLong("request-timeout-ms"), help: "Deadline of one request; progress restarts it (env RNM_REQUEST_TIMEOUT_MS, default 15000).")
    var requestTimeout: Int?

    @Option(name: .customLong("max-in-flight"), help: "Requests in flight over all clients; more get -32005 (env RNM_MAX_IN_FLIGHT, default 4096).")
    var maxInFlight: Int?

    @OptionGroup var common: CommonOptions

    public init() {}

    public func run() async throws {
        let logger = try common.makeLogger(label: "rnm.gateway")
        let configuration = GatewayConfiguration(
            socketPath: Setting.gatewaySocket.resolve(socket, default: DefaultPaths.socket(for: .gateway)),
            charactersSocketPath: Setting.charactersSocket.resolve(charactersSocket, default: DefaultPaths.socket(for: .characters)),
            universitiesSocketPath: Setting.universitiesSocket.resolve(universitiesSocket, default: DefaultPaths.socket(for: .universities)),
            requestTimeout: .milliseconds(try Setting.requestTimeoutMilliseconds.resolveInteger(requestTimeout, default: 15000, range: 1...3_600_000)),
            maxInFlight: try Setting.maxInFlight.resolveInteger(maxInFlight, default: Defaults.gatewayMaxInFlight, range: 1...1_000_000),
            limits: try common.resolvedServerLimits(defaultMaxInFlightPerConnection: Defaults.gatewayMaxInFlightPerConnection,
                                                    defaultConnectionBufferBytes: Defaults.connectionBufferBytes)
        )
        let services = GatewayApp.build(configuration: configuration, logger: logger)
        try await ServiceRunner.run(services, logger: logger)
    }
}
