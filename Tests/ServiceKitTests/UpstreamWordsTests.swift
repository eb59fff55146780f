@testable import ServiceKit
import Testing

/// What `rnmctl status` and the health say of an upstream that asked rnm to wait.
@Suite("Upstream errors in words")
struct UpstreamWordsTests {
    @Test("a Retry-After past RNM_UPSTREAM_RETRY_AFTER_MAX_MS says the wait rnm applies, not only the one asked")
    func cappedRetryAfter() {
        let asked = UpstreamError.throttled(status: 429, retryAfterSeconds: 1_000_000_000)
        #expect(
            asked.description(waiting: 60)
                == "upstream answered HTTP 429 with Retry-After: 1000000000 s; "
                + "rnm waits 60 s (RNM_UPSTREAM_RETRY_AFTER_MAX_MS)"
        )
        let short = UpstreamError.throttled(status: 503, retryAfterSeconds: 4)
        #expect(short.description(waiting: 4) == "upstream answered HTTP 503 with Retry-After: 4 s")
    }
}
