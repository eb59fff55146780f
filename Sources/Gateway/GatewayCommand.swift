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

    @Option(name: Setting.gatewaySocket.flagName(in: .gateway), help: Setting.gatewaySocket.help)
    var socket: String?

    @Option(name: Setting.charactersSocket.flagName(in: .gateway), help: Setting.charactersSocket.help)
    var charactersSocket: String?

    @Option(name: Setting.universitiesSocket.flagName(in: .gateway), help: Setting.universitiesSocket.help)
    var universitiesSocket: String?

    @Option(name: Setting.requestTimeoutMilliseconds.flagName, help: Setting.requestTimeoutMilliseconds.help)
    var requestTimeout: Int?

    @Option(name: Setting.healthTimeoutMilliseconds.flagName, help: Setting.healthTimeoutMilliseconds.help)
    var healthTimeout: Int?

    @Option(name: Setting.maxInFlight.flagName, help: Setting.maxInFlight.help)
    var maxInFlight: Int?

    @OptionGroup var common: CommonOptions

    public init() {}

    public func run() async throws {
        let logger = try common.makeLogger(label: "rnm.gateway")
        let configuration = GatewayConfiguration(
            socketPath: DefaultPaths.gatewaySocket(flag: socket),
            charactersSocketPath: Setting.charactersSocket.resolve(
                charactersSocket, default: DefaultPaths.socket(for: .characters)),
            universitiesSocketPath: Setting.universitiesSocket.resolve(
                universitiesSocket, default: DefaultPaths.socket(for: .universities)),
            requestTimeout: .milliseconds(try Setting.requestTimeoutMilliseconds.resolveInteger(requestTimeout)),
            healthTimeout: .milliseconds(try Setting.healthTimeoutMilliseconds.resolveInteger(healthTimeout)),
            maxInFlight: try Setting.maxInFlight.resolveInteger(maxInFlight),
            limits: try common.resolvedServerLimits(in: .gateway),
            instruments: try common.makeInstruments()
        )
        let services = GatewayApp.build(configuration: configuration, logger: logger)
        try await ServiceRunner.run(services, logger: logger)
    }
}
