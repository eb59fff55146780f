import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension FaultSuite {
    /// Issue 29 loose end: the HTTP front's memory after a burst of connections once stayed at
    /// 2.5 to 3.7 times its start (glibc keeps what it freed); it is given back once quiet.
    @Suite("13. the HTTP front after a burst")
    struct HTTPMemory {
        @Test("3,000 connections at once, then quiet: the HTTP front's RSS comes back within 1.5× its start")
        func memoryAfterABurst() async throws {
            try await RnmSystem.with(settings: ["RNM_CHARACTERS_MAX_AGE": "600"]) { system in
                let port = try freePort()
                var environment = system.environment
                environment["RNM_HTTP_ADDRESS"] = "127.0.0.1:\(port)"
                let http = try ChildProcess("HTTPGateway", environment: environment)
                defer { http.kill(SIGTERM) }
                try await waitUntil(10, "the HTTP front answers") {
                    (try? await HTTPProbe.request(port: port, target: "/api/character/1"))?.status == 200
                }
                let start = try #require(residentBytes(http.pid))
                let answered = await onOwnThread { burst(port: port, connections: 3000) }
                #expect(answered == 3000, "\(answered) of 3,000 answered 200")
                let peak = residentBytes(http.pid) ?? 0
                let settled = Mutex(peak)
                do {
                    try await waitUntil(20, "RSS back within 1.5× its start") {
                        let now = residentBytes(http.pid) ?? .max
                        settled.withLock { $0 = now }
                        return Double(now) <= 1.5 * Double(start)
                    }
                } catch {
                    Issue.record(
                        "RSS \(megabytes(start)) at start, \(megabytes(peak)) after, \(megabytes(settled.withLock { $0 })) last"
                    )
                    throw error
                }
                FaultReport.record(
                    "13. HTTP front after 3,000 connections at once",
                    "RSS \(megabytes(start)) at start, \(megabytes(peak)) just after, \(megabytes(settled.withLock { $0 })) once quiet"
                )
            }
        }
    }
}

/// Opens `connections` at once (50 per client address of 127.0.1.0/24), asks each for a cached
/// character, reads the answers, closes them all: how many answered 200.
private func burst(port: Int, connections: Int) -> Int {
    // The test process needs a descriptor for each (the soft limit is often 1,024).
    var limit = rlimit()
    if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max {
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    var sockets: [Int32] = []
    defer { for fd in sockets { close(fd) } }
    for index in 0..<connections {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { break }
        sockets.append(fd)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.1.\(2 + index / 50)", &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        _ = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) }
        }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
    let request = Array("GET /api/character/1 HTTP/1.1\r\nHost: rnm\r\n\r\n".utf8)
    for fd in sockets { _ = write(fd, request, request.count) }
    var answered = 0
    var buffer = [UInt8](repeating: 0, count: 16)
    for fd in sockets where read(fd, &buffer, buffer.count) == buffer.count {
        if buffer.starts(with: Array("HTTP/1.1 200".utf8)) { answered += 1 }
    }
    return answered
}

private func residentBytes(_ pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
    else { return nil }
    return kilobytes * 1024
}
