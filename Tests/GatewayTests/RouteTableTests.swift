import Foundation
import Logging
import Messaging
import RnmAPI
import ServiceKit
import ServiceRuntime
import TestSupport
import Testing
@testable import CharacterService
@testable import Gateway
@testable import UniversityService

/// The route table (`RPCMethods.all`) is the one place that says which methods exist and who
/// answers them: each service registers exactly its rows, the Gateway answers its own, and the
/// protocol document names every one.
@Suite("Route table", .cleansUp)
struct RouteTableTests {
    static func rows(of service: ServiceName) -> Set<String> {
        Set(RPCMethods.all.filter { $0.owner == service.rawValue }.map(\.name))
    }

    static func configuration(_ name: String) -> CachingServiceConfiguration {
        let directory = temporaryDirectory()
        return CachingServiceConfiguration(
            socketPath: directory + "/\(name).sock", databasePath: directory + "/\(name).sqlite",
            upstreamURL: "http://127.0.0.1:9", maxAgeSeconds: 0)
    }

    @Test("each service's router registers exactly the table's methods it owns")
    func servicesRegisterTheirRows() throws {
        let logger = Logger(label: "test")
        let characters = try CharacterServiceApp.router(configuration: Self.configuration("characters"), logger: logger)
        #expect(characters.methods == Self.rows(of: .characters))
        let universities = try UniversityServiceApp.router(
            configuration: Self.configuration("universities"), logger: logger)
        #expect(universities.methods == Self.rows(of: .universities))
        #expect(!Self.rows(of: .characters).isEmpty && !Self.rows(of: .universities).isEmpty)
    }

    @Test("the table has no method twice; the Gateway routes every row to its owner and answers its own")
    func gatewayRoutesEveryRow() async throws {
        #expect(Set(RPCMethods.all.map(\.name)).count == RPCMethods.all.count)
        for row in RPCMethods.all {
            #expect(RPCMethods.service(answering: row.name)?.rawValue == row.owner, "\(row.name)")
        }
        let harness = try await GatewayHarness.start()
        let client = try await harness.connect()
        for name in Self.rows(of: .gateway) {
            let reply = try await client.raw(name)
            #expect(reply.rpcError == nil, "the Gateway answers \(name) itself")
        }
        await client.close()
        try await harness.stop()
    }

    @Test("docs/PROTOCOL.md names every method of the table")
    func documented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let protocolText = try String(contentsOf: root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
        for row in RPCMethods.all {
            #expect(protocolText.contains("`\(row.name)`"), "\(row.name) is not in docs/PROTOCOL.md")
        }
    }
}
