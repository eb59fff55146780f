import Messaging
import TestSupport
import NIOCore

/// Params of the test methods.
struct SleepParams: Codable, Sendable {
    var ms: Int
    var value: Int
}

struct ValueResult: Codable, Sendable, Equatable {
    var value: Int
}

struct ProgressParams: Codable, Sendable {
    var steps: Int
}

/// Test methods: `echo` returns its params as they are; `sleep` waits then answers `value`;
/// `hang` never answers; `progress` sends `steps` notifications; `slow-progress` sends `value`
/// of them, `ms` apart; `boom` fails with a bug.
struct TestHandler: RPCHandler {
    struct Bug: Error {}

    /// Records the value of each `sleep` request as it starts.
    var started: Recorder<Int>?

    func handle(_ request: RPCRequest, context: RPCRequestContext) async throws -> RPCReply {
        .result(try await result(request, context: context))
    }

    private func result(_ request: RPCRequest, context: RPCRequestContext) async throws -> ByteBuffer {
        switch request.method {
        case "echo":
            return request.envelope.params ?? ByteBuffer(string: "{}")
        case "sleep":
            let params = try request.decodeParams(SleepParams.self)
            started?.append(params.value)
            try await Task.sleep(for: .milliseconds(params.ms))
            return try JSONCoding.encode(ValueResult(value: params.value))
        case "hang":
            try await Task.sleep(for: .seconds(3600))
            return ByteBuffer(string: "{}")
        case "progress":
            let params = try request.decodeParams(ProgressParams.self)
            for step in 1...params.steps {
                await context.progress(done: step, total: params.steps, message: "step \(step)")
            }
            return try JSONCoding.encode(ValueResult(value: params.steps))
        case "slow-progress":
            let params = try request.decodeParams(SleepParams.self)
            for step in 1...params.value {
                try await Task.sleep(for: .milliseconds(params.ms))
                await context.progress(done: step, total: params.value, message: "step \(step)")
            }
            return try JSONCoding.encode(ValueResult(value: params.value))
        case "boom":
            throw Bug()
        default:
            throw RPCError(.methodNotFound, "method \"\(request.method)\" not found", service: "test")
        }
    }
}
