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
    /// Issue 39: the burst meets a warm micro-cache (what is under test is memory, not the
    /// link), timers that are not under test are minutes, every socket is read in one poll loop
    /// and every outcome is reported, and the wait is for the trim itself (its counter).
    @Suite("13. the HTTP front after a burst")
    struct HTTPMemory {
        @Test("3,000 connections at once: all answered 200; once quiet and trimmed, RSS within 1.5× its start")
        func memoryAfterABurst() async throws {
            let minutes = "600000"
            try await RnmSystem.with(settings: [
                "RNM_CHARACTERS_MAX_AGE": "600", "RNM_HTTP_IDLE_TIMEOUT_MS": minutes,
                "RNM_HTTP_SEND_TIMEOUT_MS": minutes, "RNM_REQUEST_TIMEOUT_MS": minutes,
            ]) { system in
                let (http, port) = try await system.launchHTTP()
                defer { http.kill(SIGTERM) }
                // Kept by the micro-cache once rnm's cache answered it (a fetch is not kept).
                try await waitUntil(30, "the micro-cache holds the burst's record") {
                    let answer = try? await HTTPProbe.request(port: port, target: "/api/character/1")
                    return answer?.header("cache-status") == "rnm; hit"
                }
                let trims = try await trimCount(port: port)
                let start = try #require(residentBytes(http.pid))
                let overflows = listenQueueOverflows()
                let outcomes = await onOwnThread { burst(port: port, connections: 3000, seconds: 120) }
                #expect(outcomes == ["200": 3000], "\(outcomes)")
                // Queued by the listen backlog (RNM_HTTP_MAX_CONNECTIONS), not dropped for the
                // clients to retry a second later; the kernel caps the queue at somaxconn.
                let dropped = listenQueueOverflows() - overflows
                let queue = somaxconn()
                if queue >= 3000 { #expect(dropped == 0, "\(dropped) connects overflowed the listen queue") }
                // Said in the report when the kernel's cap makes the check meaningless.
                let queueSaid =
                    queue >= 3000
                    ? "\(dropped) listen-queue overflows" : "listen queue not checked (somaxconn \(queue))"
                let peak = residentBytes(http.pid) ?? 0
                // Asked every 5 s: a scrape is activity, and the front trims after 2 s without any.
                try await waitUntil(120, "the HTTP front trimmed its memory after the burst", pollEvery: .seconds(5)) {
                    (try? await trimCount(port: port)).map { $0 > trims } ?? false
                }
                let settled = Mutex(peak)
                do {
                    try await waitUntil(10, "RSS back within 1.5× its start") {
                        let now = residentBytes(http.pid) ?? .max
                        settled.withLock { $0 = now }
                        return Double(now) <= 1.5 * Double(start)
                    }
                } catch {
                    Issue.record(
                        """
                        RSS \(megabytes(start)) at start, \(megabytes(peak)) after, \
                        \(megabytes(settled.withLock { $0 })) last
                        """
                    )
                    throw error
                }
                FaultReport.record(
                    "13. HTTP front after 3,000 connections at once",
                    "\(outcomes), \(queueSaid); RSS \(megabytes(start)) at start, \(megabytes(peak)) just after, "
                        + "\(megabytes(settled.withLock { $0 })) once trimmed"
                )
            }
        }
    }
}

/// The kernel's count of connects that found a listen queue full (TcpExt ListenOverflows).
private func listenQueueOverflows() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/net/netstat", encoding: .utf8) else { return 0 }
    let lines = text.split(separator: "\n").filter { $0.hasPrefix("TcpExt:") }
    guard lines.count == 2 else { return 0 }
    let names = lines[0].split(separator: " "), values = lines[1].split(separator: " ")
    return names.firstIndex(of: "ListenOverflows").flatMap { Int(values[$0]) } ?? 0
}

/// The kernel's cap on a listen queue.
private func somaxconn() -> Int {
    (try? String(contentsOfFile: "/proc/sys/net/core/somaxconn", encoding: .utf8))
        .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
}

/// `rnm_memory_trims_total` of the HTTP front on `port`.
private func trimCount(port: Int) async throws -> Double {
    let metrics = try await HTTPProbe.request(port: port, target: "/metrics")
    return try Exposition(metrics.text).value("rnm_memory_trims_total", ["process": "http"])
}

/// Opens `connections` at once (50 per client address of 127.0.1.0/24), asks each for a cached
/// character, and reads every answer in one poll loop for at most `seconds`: how many ended
/// each way ("200", another status line, "closed", "reset", "no answer"), all sockets closed.
private func burst(port: Int, connections: Int, seconds: Int) -> [String: Int] {
    // The test process needs a descriptor for each (the soft limit is often 1,024).
    var limit = rlimit()
    if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max {
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    var sockets: [Int32] = []
    defer { for fd in sockets { close(fd) } }
    var outcomes: [String: Int] = [:]
    for index in 0..<connections {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else {
            outcomes["no socket", default: 0] += 1
            continue
        }
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
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) }
        }
        guard connected == 0 else {
            outcomes["connect failed", default: 0] += 1
            close(fd)
            continue
        }
        sockets.append(fd)
    }
    let request = Array("GET /api/character/1 HTTP/1.1\r\nHost: rnm\r\n\r\n".utf8)
    for fd in sockets { _ = write(fd, request, request.count) }
    // Each socket until its status line (12 bytes) has come, or it closed.
    var pending = Dictionary(uniqueKeysWithValues: sockets.map { ($0, [UInt8]()) })
    let deadline = ContinuousClock.now + .seconds(seconds)
    var buffer = [UInt8](repeating: 0, count: 512)
    while !pending.isEmpty, ContinuousClock.now < deadline {
        var polled = pending.keys.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard poll(&polled, nfds_t(polled.count), 1000) > 0 else { continue }
        for entry in polled where entry.revents != 0 {
            let count = read(entry.fd, &buffer, buffer.count)
            var head = pending[entry.fd]!
            if count > 0 { head += buffer[0..<count] }
            if head.count >= 12 {
                let status = String(decoding: head[9..<12], as: UTF8.self)
                outcomes[head.starts(with: Array("HTTP/1.1 ".utf8)) ? status : "not HTTP", default: 0] += 1
                pending[entry.fd] = nil
            } else if count <= 0 {
                outcomes[count == 0 ? "closed" : "reset", default: 0] += 1
                pending[entry.fd] = nil
            } else {
                pending[entry.fd] = head
            }
        }
    }
    if !pending.isEmpty { outcomes["no answer in \(seconds) s"] = pending.count }
    return outcomes
}

private func residentBytes(_ pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
    else { return nil }
    return kilobytes * 1024
}
