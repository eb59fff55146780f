import Foundation
import Synchronization
import Testing

/// What one test started (processes, servers, upstreams, folders) and how to stop it. Every
/// harness registers what it starts here, and ``CleansUp`` stops it all when the test ends,
/// however it ends: a failing check never leaks a process or a socket.
public final class TestResources: Sendable {
    /// The resources of the test running in this task (nil outside a ``CleansUp`` scope).
    @TaskLocal public static var current: TestResources?

    private let cleanups = Mutex<[@Sendable () async -> Void]>([])

    /// Registers `cleanup` with the running test. Cleanups run last-registered first and must be
    /// harmless when the resource was already stopped. A test that starts something outside a
    /// ``CleansUp`` scope gets an issue: nothing would stop what it started. (Outside any test,
    /// as in the `rnm-test-upstream` program, the caller stops what it starts.)
    public static func register(_ cleanup: @escaping @Sendable () async -> Void) {
        guard let current else {
            if Test.current != nil {
                Issue.record(
                    "a test started a process, server or folder outside a .cleansUp scope: nothing would stop it")
            }
            return
        }
        current.cleanups.withLock { $0.append(cleanup) }
    }

    fileprivate func cleanUp() async {
        let all = cleanups.withLock { cleanups in
            defer { cleanups.removeAll() }
            return cleanups
        }
        for cleanup in all.reversed() { await cleanup() }
    }
}

/// Stops everything each test started when it ends, passed or failed (see ``TestResources``).
public struct CleansUp: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let resources = TestResources()
        do {
            try await TestResources.$current.withValue(resources) { try await function() }
        } catch {
            await resources.cleanUp()
            throw error
        }
        await resources.cleanUp()
    }
}

extension Trait where Self == CleansUp {
    /// Stops whatever each test started when it ends, however it ends.
    public static var cleansUp: Self { CleansUp() }
}
