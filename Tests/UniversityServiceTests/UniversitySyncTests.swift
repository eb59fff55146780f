import Foundation
import Messaging
import RnmAPI
import TestSupport
import Testing

/// Issue 29 loose ends: the world list has its own deadline, and two syncs at once are one.
@Suite("universities.sync", .cleansUp)
struct UniversitySyncTests {
    @Test("a world list slower than the ordinary 5 s timeout syncs; two syncs at once download it once")
    func slowAndShared() async throws {
        let harness = try await UniversityHarness.start()
        harness.upstream.latency = .milliseconds(6000)
        async let first = harness.client.call(RPCMethods.universitiesSync, NoParams(), timeout: .seconds(20))
        try await waitUntil(5, "the first sync asked") { harness.upstream.requestCount >= 1 }
        async let second = harness.client.call(RPCMethods.universitiesSync, NoParams(), timeout: .seconds(20))
        let (one, two) = try await (first, second)
        #expect(one == two && one.universities > 9000)
        let worldRequests = harness.upstream.requests.filter { $0.path == "/search" && $0.query.isEmpty }
        #expect(worldRequests.count == 1, "\(worldRequests.count) downloads of the world list")
        try await harness.stop()
    }
}
