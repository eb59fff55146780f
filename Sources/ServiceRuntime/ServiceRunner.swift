#if canImport(Glibc)
    import Glibc
#endif
import Logging
import ServiceLifecycle

/// Runs long-lived services until SIGTERM or SIGINT, then shuts them down gracefully.
public enum ServiceRunner {
    /// How long in-flight work may take to finish after SIGTERM before it is cancelled
    /// (well inside the 10 s Docker and compose give before SIGKILL).
    public static let maximumGracefulShutdown: Duration = .seconds(7)

    /// Runs `services` in one `ServiceGroup`; after SIGTERM they have `gracefulShutdown` to stop.
    public static func run(
        _ services: [any Service], logger: Logger, gracefulShutdown: Duration = maximumGracefulShutdown
    ) async throws {
        raiseOpenFileLimit(logger: logger)
        returnLargeBuffersToTheSystem()
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        configuration.maximumGracefulShutdownDuration = gracefulShutdown
        configuration.maximumCancellationDuration = .seconds(1)
        try await ServiceGroup(configuration: configuration).run()
    }

    /// Frames of up to a megabyte come and go: have malloc map every buffer over 128 KiB on
    /// its own and unmap it when freed. glibc's default raises that threshold as large buffers
    /// are freed, after which they come from heaps that rarely shrink, and memory taken by one
    /// burst (a client sending megabytes) would stay taken after it left.
    ///
    /// And two malloc arenas, not glibc's default of eight per core: every thread that touches
    /// malloc under contention gets an arena of its own, and each keeps its freed memory. The
    /// processes' allocations are small and short; two arenas keep contention low on the
    /// event loops and the task pool while memory stays with the process that used it.
    static func returnLargeBuffersToTheSystem() {
        #if canImport(Glibc)
            _ = glibcMallopt(-3 /* M_MMAP_THRESHOLD */, 128 * 1024)
            _ = glibcMallopt(-8 /* M_ARENA_MAX */, 2)
        #endif
    }

    /// Lifts the soft limit on open files to the hard limit: every client connection is a file,
    /// and the usual soft limit of 1,024 is too low for a server.
    static func raiseOpenFileLimit(logger: Logger) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 {
            logger.notice("could not raise the open file limit", metadata: ["errno": "\(errno)"])
        }
    }
}

#if canImport(Glibc)
    /// glibc's `mallopt(3)` (malloc.h is not part of the Glibc module).
    @_silgen_name("mallopt")
    private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif
