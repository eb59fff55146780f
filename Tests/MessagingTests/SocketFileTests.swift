import Foundation
import TestSupport
import Messaging
import NIOCore
import NIOPosix
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// Binds a socket at `path` and closes it without unlinking: what a killed process leaves behind.
func leaveStaleSocket(at path: String) {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: path.utf8.prefix(raw.count - 1))
    }
    withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            _ = bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    listen(fd, 1)
    close(fd)
}

@Suite("Socket file rules", .cleansUp)
struct SocketFileTests {
    @Test("a 105-byte socket path works; one whose folder leaves no room to stage says so, with the limits")
    func longPaths() async throws {
        // A folder of 92 bytes and "/gateway.sock": 105 bytes, staged in 102.
        let base = temporaryDirectory()
        let folder = base + "/" + String(repeating: "f", count: 92 - base.utf8.count - 1)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let server = try await RunningServer.start(handler: TestHandler(), directory: folder, name: "gateway.sock")
        #expect((folder + "/gateway.sock").utf8.count == 105)
        try await server.stop()

        let deep = base + "/" + String(repeating: "d", count: 100 - base.utf8.count - 1)
        #expect(throws: SocketFileError.self) { _ = try SocketFile.stage(deep + "/s.sock") }
        do {
            _ = try SocketFile.stage(deep + "/s.sock")
        } catch {
            #expect("\(error)".contains("holds at most 107 bytes, and its folder at most 97"), "\(error)")
        }
    }

    @Test("a stale socket file (nobody listening) is reclaimed")
    func staleSocketReclaimed() async throws {
        let directory = temporaryDirectory()
        let path = directory + "/stale.sock"
        leaveStaleSocket(at: path)
        #expect(FileManager.default.fileExists(atPath: path))
        let server = try await RunningServer.start(handler: TestHandler(), directory: directory, name: "stale.sock")
        let client = try await server.connect()
        #expect(try await client.call(RPCMethod<SleepParams, ValueResult>("sleep"), .init(ms: 0, value: 3)).value == 3)
        try await server.stop()
    }

    @Test("a second server on a live socket refuses to start and leaves the first serving")
    func liveSocketRefused() async throws {
        let first = try await RunningServer.start(handler: TestHandler())
        let second = RPCServer(
            configuration: .init(socketPath: first.socketPath, service: "test"),
            handler: TestHandler(), logger: testLogger())
        await #expect(throws: SocketFileError.self) { try await second.run() }
        do {
            try await second.run()
        } catch {
            #expect("\(error)".contains("already running"))
        }
        let client = try await first.connect()
        #expect(try await client.call(RPCMethod<SleepParams, ValueResult>("sleep"), .init(ms: 0, value: 4)).value == 4)
        try await first.stop()
    }

    @Test("a path holding a regular file is not deleted")
    func regularFileKept() async throws {
        let path = temporaryDirectory() + "/data.sock"
        _ = FileManager.default.createFile(atPath: path, contents: Data("keep".utf8))
        let server = RPCServer(
            configuration: .init(socketPath: path, service: "test"), handler: TestHandler(), logger: testLogger())
        await #expect(throws: SocketFileError.self) { try await server.run() }
        #expect(FileManager.default.contents(atPath: path) == Data("keep".utf8))
    }
}
