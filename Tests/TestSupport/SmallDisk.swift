import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real file system of a few megabytes (tmpfs, mounted for the test), that a test fills to
/// the last byte and frees again: the disk-full path of SQLite exercised for real (ENOSPC →
/// SQLITE_FULL), not imitated. Mounting needs root (CAP_SYS_ADMIN), which the CI machines and
/// these development machines have; elsewhere `mount` says why and the test fails with it.
public final class SmallDisk: Sendable {
    /// The mount point.
    public let path: String
    private var filler: String { path + "/filler" }

    /// Mounts `megabytes` of tmpfs on a fresh folder, unmounted at the test's clean-up.
    public init(megabytes: Int = 16) throws {
        path = temporaryDirectory() + "/disk"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard mount("rnm-test", path, "tmpfs", 0, "size=\(megabytes)m") == 0 else {
            throw SmallDiskError(reason: "mount tmpfs on \(path): \(String(cString: strerror(errno))) (needs root)")
        }
        let path = self.path
        // Lazily: the service under test may still hold its files open when clean-up runs.
        TestResources.register { umount2(path, Int32(MNT_DETACH)) }
    }

    /// Writes a file until the file system has no byte left.
    public func fill() throws {
        let fd = open(filler, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { throw SmallDiskError(reason: "open \(filler): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0x55, count: 65_536)
        for size in [65_536, 4096, 1] {
            // Bounded: the disk is a few megabytes.
            for _ in 0..<100_000 where write(fd, chunk, size) == size {}
        }
        guard errno == ENOSPC else {
            throw SmallDiskError(reason: "filling \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Makes the file system read-only (as a volume mounted `:ro`).
    public func makeReadOnly() throws {
        guard mount("rnm-test", path, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), nil) == 0 else {
            throw SmallDiskError(reason: "remount \(path) read-only: \(String(cString: strerror(errno)))")
        }
    }

    /// Deletes what ``fill()`` wrote.
    public func free() throws {
        try FileManager.default.removeItem(atPath: filler)
    }
}

public struct SmallDiskError: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
