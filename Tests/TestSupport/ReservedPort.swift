#if canImport(Glibc)
    import Glibc
#endif
import Synchronization

/// A TCP port on 127.0.0.1 held without listening, until ``release()``: a connection to it is
/// refused, as a stopped server's, and nothing else can take it meanwhile. The socket is bound
/// without `SO_REUSEADDR`, so no other socket binds the port, with the option or without it, and
/// the kernel never hands it to a bind of port 0. (A port bound, closed and returned could be
/// taken by another test's server before this test used it: a "dead" address would answer.)
public final class ReservedPort: Sendable {
    public let port: Int
    private let descriptor: Mutex<Int32?>

    /// Holds a port the kernel picks.
    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ChildProcessError(message: "no socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, size) == 0 && getsockname(fd, $0, &size) == 0
            }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw ChildProcessError(message: "no free port: errno \(code)")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        descriptor = Mutex(fd)
    }

    /// Lets the port go (a server of the test's may bind it now).
    public func release() {
        descriptor.withLock { fd in
            if let open = fd { close(open) }
            fd = nil
        }
    }

    deinit { release() }
}
