import Foundation
import Messaging
import NIOCore
import TestSupport
import Testing

extension FaultSuite {
    /// Scenario 5: bytes no client should send, against the Gateway and each service.
    @Suite("5. protocol abuse")
    struct ProtocolAbuse {
        /// What a case must come to.
        enum Expected: Sendable {
            /// This error code, and the connection stays usable.
            case error(Int)
            /// An error frame (any code) and/or the connection closed.
            case errorOrClose
            /// An error of this code, then the connection closed.
            case errorThenClose(Int)
            /// A normal answer or an error of this code; the connection stays usable.
            case answerOr(Int)
        }

        static func cases(role: RnmSystem.Role) -> [(name: String, bytes: [UInt8], expected: Expected)] {
            var random = SeededRandom(seed: 8)
            let health = role.healthMethod
            func frame(_ text: String) -> [UInt8] { frameBytes(Array(text.utf8)) }
            return [
                ("random bytes", (0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) }, .errorOrClose),
                (
                    "header over the limit", [0x00, 0x20, 0x00, 0x00] + Array(repeating: 0x7B, count: 64),
                    .errorThenClose(-32600)
                ),
                ("length 0", [0, 0, 0, 0], .errorThenClose(-32600)),
                ("invalid UTF-8", frameBytes([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D]), .error(-32700)),
                ("JSON that is not an object", frame("42"), .error(-32600)),
                (
                    "deeply nested JSON",
                    frame(String(repeating: #"{"a":"#, count: 5000) + "1" + String(repeating: "}", count: 5000)),
                    .error(-32700)
                ),
                ("batch", frame(#"[{"jsonrpc":"2.0","id":1,"method":"\#(health)"}]"#), .error(-32600)),
                (
                    "huge id",
                    frame(
                        #"""
                        {"jsonrpc":"2.0","id":123456789012345678901234567890123456789012345678901234567890,\#
                        "method":"\#(health)"}
                        """#
                    ), .answerOr(-32600)
                ),
                ("wrong jsonrpc", frame(#"{"jsonrpc":"1.0","id":1,"method":"\#(health)"}"#), .error(-32600)),
                (
                    "unknown method", frame(#"{"jsonrpc":"2.0","id":1,"method":"\#(role.rawValue).nope"}"#),
                    .error(-32601)
                ),
                (
                    "half-sent frame, then silence", [0, 0, 0, 100] + Array(#"{"jsonrpc""#.utf8),
                    .errorThenClose(-32600)
                ),
            ]
        }

        @Test(
            "abuse: each case gets a clear error or a closed connection, and the process keeps serving others",
            arguments: RnmSystem.Role.allCases)
        func abuse(_ role: RnmSystem.Role) async throws {
            let system = try await RnmSystem.start(settings: [
                "RNM_FRAME_TIMEOUT_MS": "500", "RNM_CHARACTERS_MAX_AGE": "600",
            ])
            let socket = system.socket(role)
            let bystander = try await system.connect(role)
            var errors = 0, closes = 0
            var halfFrameClosedAfter = Duration.zero

            for (name, bytes, expected) in Self.cases(role: role) {
                let connection = try await RawConnection(socketPath: socket)
                let sent = ContinuousClock.now
                try await connection.sendRaw(bytes)
                let reply = try await connection.next(seconds: 5)
                switch expected {
                case .error(let code):
                    #expect(
                        reply?.errorCode?.rawValue == code,
                        "\(role), \(name): error \(code), got \(String(describing: reply?.rpcError))")
                    #expect(reply?.rpcError?.message.isEmpty == false)
                    try await expectAnswers(connection, role: role, name)
                    errors += 1
                case .answerOr(let code):
                    #expect(
                        reply?.result != nil || reply?.errorCode?.rawValue == code,
                        "\(role), \(name): \(String(describing: reply?.rpcError))")
                    try await expectAnswers(connection, role: role, name)
                    errors += reply?.result == nil ? 1 : 0
                case .errorThenClose(let code):
                    #expect(
                        reply?.errorCode?.rawValue == code,
                        "\(role), \(name): error \(code), got \(String(describing: reply?.rpcError))")
                    #expect(reply?.rpcError?.message.isEmpty == false)
                    try await connection.waitForClose(seconds: 5)
                    if name.hasPrefix("half-sent") { halfFrameClosedAfter = ContinuousClock.now - sent }
                    errors += 1
                    closes += 1
                case .errorOrClose:
                    if let reply { #expect(reply.error != nil, "\(role), \(name): an error, not an answer") }
                    try await connection.waitForClose(seconds: 5)
                    closes += 1
                }
                connection.close()
                #expect(
                    try await bystander.call(method: role.healthMethod, params: nil, timeout: .seconds(5)).result
                        != nil,
                    "\(role) keeps serving after \(name)")
            }

            // 1,000 idle connections: held open while someone else is served.
            let idle = try IdleSockets(count: 1000, path: socket)
            let servedAt = ContinuousClock.now
            // A new client is served (retrying while the server is still accepting the storm,
            // as any client whose connect meets a full backlog would).
            try await waitUntil(10, "\(role) serves a new client with 1,000 idle connections open") {
                guard let fresh = try? await system.connect(role) else { return false }
                defer { Task { await fresh.close() } }
                return (try? await fresh.call(method: role.healthMethod, params: nil, timeout: .seconds(5)))?.result
                    != nil
            }
            let servedWithIdle = ContinuousClock.now - servedAt
            idle.close()

            // A client that vanishes with requests in flight.
            system.characterUpstream.latency = .milliseconds(200)
            system.universityUpstream.latency = .milliseconds(200)
            let vanishing = try await RawConnection(socketPath: socket)
            let slowMethod = role == .universities ? "universities.list" : "characters.get"
            for id in 1...50 {
                let params = role == .universities ? #"{"country":"Japan"}"# : #"{"id":\#(300 + id)}"#
                try await vanishing.send(
                    #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(slowMethod)","params":\#(params)}"#)
            }
            let upstream = role == .universities ? system.universityUpstream : system.characterUpstream
            try await waitUntil(10, "requests in flight") { upstream.requestCount > 0 }
            vanishing.close()
            try await waitUntil(10, "the abandoned requests finish at the upstream") {
                upstream.requests.count >= (role == .universities ? 1 : 50)
            }
            #expect(
                try await bystander.call(method: role.healthMethod, params: nil, timeout: .seconds(5)).result != nil,
                "\(role) keeps serving after a client vanished")
            #expect(system.process(role)?.isRunning == true)
            FaultReport.record(
                "5. protocol abuse, \(role)",
                """
                \(Self.cases(role: role).count) bad inputs: \(errors) clear errors, \(closes) closed connections; \
                half-sent frame closed after \(ms(halfFrameClosedAfter)) (timeout 500 ms); health with 1,000 idle \
                connections open: \(ms(servedWithIdle)); 50 requests abandoned mid-flight; still serving
                """
            )
            await bystander.close()
            try await system.stop()
        }

        private func expectAnswers(_ connection: RawConnection, role: RnmSystem.Role, _ name: String) async throws {
            try await connection.send(#"{"jsonrpc":"2.0","id":"after","method":"\#(role.healthMethod)"}"#)
            let reply = try await connection.next(seconds: 5)
            #expect(reply?.result != nil, "\(role), \(name): the same connection still answers")
        }
    }
}

/// `payload` with its 4-byte big-endian length in front.
func frameBytes(_ payload: [UInt8]) -> [UInt8] {
    let length = UInt32(payload.count)
    return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + payload
}

/// Plain connected sockets that send nothing.
final class IdleSockets {
    private var descriptors: [Int32] = []

    init(count: Int, path: String) throws {
        for _ in 0..<count {
            do {
                descriptors.append(try connectedUnixSocket(path))
            } catch {
                throw ChildProcessError(message: "\(error) after \(descriptors.count) connections")
            }
        }
    }

    func close() {
        for fd in descriptors { Glibc.close(fd) }
        descriptors.removeAll()
    }
}
