#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#else
    import Darwin
#endif
import NIOCore
import NIOPosix

/// Why a server could not take its socket path.
public enum SocketFileError: Error, Sendable, CustomStringConvertible {
    /// Another process answers on the socket.
    case alreadyRunning(path: String)
    /// Something other than a socket is at the path.
    case notASocket(path: String)
    /// A system call failed.
    case system(call: String, path: String, errno: Int32)
    /// The path, or the staging path beside it, does not fit a Unix socket address.
    case pathTooLong(path: String)

    public var description: String {
        switch self {
        case .alreadyRunning(let path):
            return "another instance is already running on \(path); stop it first"
        case .notASocket(let path):
            return "\(path) exists and is not a socket; refusing to replace it"
        case .system(let call, let path, let code):
            return "\(call)(\(path)) failed: \(String(cString: strerror(code)))"
        case .pathTooLong(let path):
            return """
                the socket path \(path) is \(path.utf8.count) bytes: a Unix socket path holds at most \
                \(SocketFile.maxPathBytes) bytes, and its folder at most \
                \(SocketFile.maxPathBytes - SocketFile.stagingBytes) (the socket is made first in a new folder \
                beside it); choose a shorter path
                """
        }
    }
}

/// The socket file rules of docs/PROTOCOL.md §1: directory created 0770, socket 0660, a dead file
/// reclaimed, a live one refused, the file removed on shutdown (only if it is still ours).
public enum SocketFile {
    /// The file's identity (device, inode), to tell our socket from one that replaced it.
    public struct Identity: Sendable, Equatable {
        let device: UInt64
        let inode: UInt64
    }

    /// Creates the socket's directory (mode 0770) if it is missing.
    public static func createDirectory(for path: String) throws {
        let directory = parent(of: path)
        guard !directory.isEmpty else { return }
        var components: [String] = []
        var current = directory
        while !current.isEmpty, current != "/", access(current, F_OK) != 0 {
            components.append(current)
            current = parent(of: current)
        }
        for dir in components.reversed() {
            if mkdir(dir, 0o770) != 0, errno != EEXIST {
                throw SocketFileError.system(call: "mkdir", path: dir, errno: errno)
            }
            chmod(dir, 0o770)
        }
    }

    /// Makes `path` free to bind: nothing there, or a stale socket nobody answers on (removed).
    /// - Throws: ``SocketFileError/alreadyRunning(path:)`` when a process answers there.
    public static func reclaim(_ path: String, group: any EventLoopGroup) async throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw SocketFileError.notASocket(path: path) }
        let alive: Bool
        do {
            let channel = try await ClientBootstrap(group: group)
                .connectTimeout(.seconds(1))
                .connect(unixDomainSocketPath: path).get()
            try? await channel.close()
            alive = true
        } catch {
            alive = false
        }
        if alive { throw SocketFileError.alreadyRunning(path: path) }
        if unlink(path) != 0, errno != ENOENT {
            throw SocketFileError.system(call: "unlink", path: path, errno: errno)
        }
    }

    /// A private place to bind a socket before it is published at its real path.
    public struct Staging: Sendable {
        /// A new directory of mode 0700 beside the real path.
        public let directory: String
        /// Where to bind.
        public let socketPath: String

        /// Removes the staging directory (and a socket left in it).
        public func remove() {
            unlink(socketPath)
            rmdir(directory)
        }
    }

    /// Makes a private directory (0700) beside `path` to bind in: bind() creates the socket
    /// file with the process's umask, and nobody else can reach it there before its mode is
    /// set. (Changing the umask instead would race with every other file the process creates.)
    public static func stage(_ path: String) throws -> Staging {
        let folder = parent(of: path).isEmpty ? "." : parent(of: path)
        guard path.utf8.count <= maxPathBytes, folder.utf8.count + stagingBytes <= maxPathBytes else {
            throw SocketFileError.pathTooLong(path: path)
        }
        var template = (folder + "/.XXXXXX").utf8CString
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        guard let directory = made else { throw SocketFileError.system(call: "mkdtemp", path: path, errno: errno) }
        return Staging(directory: directory, socketPath: directory + "/s")
    }

    /// Sets the staged socket's mode to 0660, then gives it its real path, never replacing a
    /// file another process put there meanwhile; returns its identity.
    public static func publish(_ staging: Staging, at path: String) throws -> Identity {
        guard chmod(staging.socketPath, 0o660) == 0 else {
            throw SocketFileError.system(call: "chmod", path: staging.socketPath, errno: errno)
        }
        guard link(staging.socketPath, path) == 0 else {
            if errno == EEXIST { throw SocketFileError.alreadyRunning(path: path) }
            throw SocketFileError.system(call: "link", path: path, errno: errno)
        }
        staging.remove()
        guard let identity = identity(of: path) else {
            throw SocketFileError.system(call: "stat", path: path, errno: errno)
        }
        return identity
    }

    /// The identity of the file at `path`, if any.
    public static func identity(of path: String) -> Identity? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Removes the socket file if it is still the one this process bound.
    public static func remove(_ path: String, ifStill identity: Identity) {
        if self.identity(of: path) == identity {
            unlink(path)
        }
    }

    /// The longest path a Unix socket address holds (its `sun_path` less the terminating zero:
    /// 107 bytes on Linux, 103 on macOS).
    static let maxPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1
    /// What staging adds to the folder: `/.XXXXXX/s`.
    static let stagingBytes = 10

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
