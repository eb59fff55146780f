import Logging
import Messaging
import NIOCore
import RnmAPI

/// One request on its way to a service: where its progress notifications and its reply go
/// back, re-labelled with the client's id. One object a forward: the two closures it stands
/// for were an allocation each (its methods, passed as closures, capture only it).
final class Forward: Sendable {
    /// The request's id as its client wrote it (nil for a notification: no reply goes back).
    private let clientID: ByteBuffer?
    private let context: RPCRequestContext
    private let service: ServiceName
    private let reply: @Sendable (Result<RPCReply, any Error>) -> Void
    /// Told once the forward is over (its slot in the Gateway's in-flight count).
    private let ended: @Sendable () -> Void

    init(
        clientID: ByteBuffer?, context: RPCRequestContext, service: ServiceName,
        reply: @escaping @Sendable (Result<RPCReply, any Error>) -> Void, ended: @escaping @Sendable () -> Void
    ) {
        self.clientID = clientID
        self.context = context
        self.service = service
        self.reply = reply
        self.ended = ended
    }

    /// A progress notification for this request: written to the client at once.
    func progress(_ notification: Envelope) {
        guard let clientID, let range = notification.progressRequestIDRange else { return }
        context.sendNow(frame: notification.frame(replacing: range, with: clientID))
    }

    /// The service's reply (or the failure), handed back from the link's event loop.
    func complete(_ outcome: Result<Envelope, any Error>) {
        ended()
        switch outcome {
        case .success(let answer):
            guard let clientID else {
                reply(.success(.none))
                return
            }
            guard let idRange = answer.idRange else {
                reply(
                    .failure(
                        RPCError(.internalError, "\(service) answered without an id", service: ServiceName.gateway)))
                return
            }
            // An error reply whose code is not an integer still counts as an error.
            let code = answer.errorRange == nil ? nil : (answer.errorCode ?? .internalError)
            reply(.success(.frame(answer.frame(replacing: idRange, with: clientID), errorCode: code)))
        case .failure(let error):
            // From the link's event loop: the trace id is added here, not by a task.
            context.logger.warning(
                "request failed",
                metadata: context.traceMetadata.merging(["service": "\(service)", "error": "\(error)"]) { $1 })
            reply(.failure(error))
        }
    }
}
