import Foundation
import TestSupport

/// A plain non-blocking Unix socket that writes without ever reading, the way a hostile or
/// stuck client does.
final class BlockingSocket: @unchecked Sendable {
    private var descriptor: Int32

    init(path: String) throws {
        descriptor = try connectedUnixSocket(path)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    /// Writes `frame` `times` times, as fast as the peer takes them; stops early when the
    /// peer has taken nothing for `stallSeconds` (it stopped reading). Returns how many whole
    /// frames were written.
    func send(_ frame: [UInt8], times: Int, stallSeconds: Double) -> Int {
        let perChunk = max(1, 65_536 / frame.count)
        let chunk = [UInt8]((0..<perChunk).flatMap { _ in frame })
        var written = 0  // bytes
        let total = frame.count * times
        while written < total {
            let offset = written % chunk.count
            let length = min(chunk.count - offset, total - written)
            let result = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, length) }
            if result > 0 {
                written += result
                continue
            }
            guard result < 0, errno == EAGAIN || errno == EWOULDBLOCK else { break }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            guard poll(&waiting, 1, Int32(stallSeconds * 1000)) > 0 else { break }
        }
        return written / frame.count
    }

    /// Reads `count` frames (the payloads), waiting at most `seconds` for each byte.
    func receiveFrames(_ count: Int, seconds: Int32 = 10) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        for _ in 0..<count {
            guard let header = receive(4, seconds: seconds) else { break }
            let length = header.reduce(0) { $0 << 8 | Int($1) }
            guard let payload = receive(length, seconds: seconds) else { break }
            frames.append(payload)
        }
        return frames
    }

    /// Exactly `count` bytes, or nil when the peer closes or is silent for `seconds`.
    private func receive(_ count: Int, seconds: Int32) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var received = 0
        while received < count {
            let result = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + received, count - received) }
            if result > 0 {
                received += result
                continue
            }
            guard result < 0, errno == EAGAIN || errno == EWOULDBLOCK else { return nil }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, seconds * 1000) > 0 else { return nil }
        }
        return bytes
    }

    func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    deinit { close() }
}

/// A plain blocking socket connected to the Unix socket at `path`.
func connectedUnixSocket(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw ChildProcessError(message: "socket(): errno \(errno)") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        buffer.copyBytes(from: path.utf8.prefix(buffer.count - 1))
    }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard connected == 0 else {
        let code = errno
        Glibc.close(fd)
        throw ChildProcessError(message: "connect(): errno \(code)")
    }
    return fd
}
