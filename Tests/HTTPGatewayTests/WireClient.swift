import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// One blocking HTTP/1.1 connection to the front on 127.0.0.1, for the micro-cache tests: sends bytes
/// as they are and reads answers framed by their `Content-Length`. On a thread of its own.
final class WireClient {
    struct Answer {
        var status: Int
        /// Names lowercased; values as sent.
        var fields: [String: String]
        var names: [String]
        var body: [UInt8]

        /// The head but the fields that differ per answer (its time and trace).
        var comparable: [String] {
            names.filter { !["date", "traceparent"].contains($0.lowercased()) }.map {
                "\($0): \(fields[$0.lowercased()] ?? "")"
            }
        }
    }

    private let fd: Int32
    private var received: [UInt8] = []

    init?(port: Int) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // Each send its own segment: a test that splits a head sends it in two.
        var noDelay: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        if !connected {
            close(fd)
            return nil
        }
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Sends `text`, then reads `answers` answers (fewer if the connection ends or 10 s pass).
    func exchange(_ text: String, answers count: Int, bodies: Bool = true) -> [Answer] {
        guard send(Array(text.utf8)) else { return [] }
        var answers: [Answer] = []
        while answers.count < count, let answer = nextAnswer(body: bodies) { answers.append(answer) }
        return answers
    }

    /// The next answer, if one comes (within 10 s).
    func next() -> Answer? { nextAnswer(body: true) }

    /// Whether something can be read now (an answer, or the end).
    var readable: Bool {
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&ready, 1, 0) > 0
    }

    /// How long until the server closes the connection, if it does within `limit`.
    func closedWithin(_ limit: Duration) -> Duration? {
        let start = ContinuousClock.now
        var byte: UInt8 = 0
        while ContinuousClock.now - start < limit {
            let count = read(fd, &byte, 1)
            if count == 0 { return ContinuousClock.now - start }
            if count < 0, errno != EAGAIN, errno != EINTR { return ContinuousClock.now - start }
        }
        return nil
    }

    /// The next answer; `body` false for the answer to a `HEAD` (its length, and no body).
    private func nextAnswer(body hasBody: Bool) -> Answer? {
        let end = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            if let found = (0..<max(0, received.count - 3)).first(where: { received[$0..<$0 + 4].elementsEqual(end) }) {
                headEnd = found
            } else if !fill() {
                return nil
            }
        }
        guard let headEnd else { return nil }
        let lines = String(decoding: received[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].dropFirst(9).prefix(3)) ?? 0
        var fields: [String: String] = [:]
        var names: [String] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            names.append(name)
            fields[name.lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = status == 304 || !hasBody ? 0 : Int(fields["content-length"] ?? "0") ?? 0
        while received.count < headEnd + 4 + length { guard fill() else { return nil } }
        let body = Array(received[(headEnd + 4)..<(headEnd + 4 + length)])
        received.removeFirst(headEnd + 4 + length)
        return Answer(status: status, fields: fields, names: names, body: body)
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        received += chunk[0..<count]
        return true
    }
}
