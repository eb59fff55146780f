import Foundation
import RnmAPI
import ServiceKit
import Testing

/// What a person reads of an upstream's failure (``UpstreamTrouble``, RnmAPI) is read from the
/// services' own descriptions (``UpstreamError``, ServiceKit): every kind of failure gets its
/// sentence, and none shows the upstream's raw words.
@Suite("UpstreamTrouble: the services' upstream failures in a person's words")
struct UpstreamTroubleTests {
    @Test("each UpstreamError reads as its own kind, also when the upstream has been failing since")
    func everyFailure() {
        let curl = "Failed to connect to 127.0.0.1 port 18182 after 0 ms: Couldn't connect to server"
        let cases: [(UpstreamError, UpstreamTrouble)] = [
            (.unreachable(curl), .unreachable), (.timedOut(milliseconds: 5000), .timedOut),
            (.status(500), .answeredError(status: 500)), (.badPayload("not JSON"), .unreadable),
            (.redirected(to: "http://elsewhere.test"), .redirected), (.tooLarge(limit: 10), .tooLarge),
            (.throttled(status: 429, retryAfterSeconds: 3), .askedToWait),
            (.rateLimited(until: Date().addingTimeInterval(30)), .askedToWait),
            (.busy(connections: 4, waitedMilliseconds: 100), .busy),
            (
                .failing(since: Date(), reason: UpstreamError.unreachable(curl).description, nextProbe: nil),
                .unreachable
            ),
        ]
        for (error, trouble) in cases {
            #expect(UpstreamTrouble(error.description) == trouble, "\(error)")
            let sentence = trouble.sentence(.universities)
            #expect(!sentence.contains("Failed to connect") && !sentence.contains("127.0.0.1"), "\(sentence)")
        }
        #expect(
            UpstreamTrouble(UpstreamError.unreachable(curl).description).sentence(.universities)
                == "The universities API could not be reached")
    }
}
