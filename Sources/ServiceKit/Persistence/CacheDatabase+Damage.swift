import Foundation
import GRDB
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// What opening a database at start took, for health to report.
public struct DatabaseOpening: Sendable, Equatable {
    /// Where a damaged file was moved, if one was.
    public var setAside: String?
    /// Where the database is kept instead, when its own file cannot be written (read-only).
    public var standIn: String?

    public init(setAside: String? = nil, standIn: String? = nil) {
        self.setAside = setAside
        self.standIn = standIn
    }
}

extension CacheDatabase {
    /// Opens the database at `path` as ``init(path:)`` does, and checks it (`PRAGMA
    /// quick_check`: a few milliseconds for these files of a few megabytes). A file that is
    /// not a usable database (not SQLite, truncated, damaged inside, a folder) is moved aside to
    /// `<path>.damaged-<UTC time>` (with its `-wal` and `-shm`), logged, and an empty one made in
    /// its place: a cache is rebuilt from the upstream, while a service that exits on it would
    /// crash-loop under `restart: unless-stopped` and serve nothing. Nothing is deleted.
    ///
    /// A file that cannot be written where it is (a read-only file system or folder) is copied
    /// to a stand-in in the temporary folder and used there until the service stops: what it
    /// held is still served, new data is kept for as long as the process runs, and the file
    /// itself is left as it was.
    /// - Returns: the database, and what opening it took (a file set aside, a stand-in).
    public static func openSettingAsideDamage(path: String, logger: Logger) throws -> (Self, DatabaseOpening) {
        guard !isWritablePlace(path) else {
            let (database, setAside) = try openInPlace(path: path, logger: logger)
            return (database, DatabaseOpening(setAside: setAside))
        }
        let standIn = try makeStandIn(for: path)
        logger.error(
            """
            the database at \(path) cannot be written there (a read-only file system or folder); using a copy at \
            \(standIn) until the service stops (the file itself is left as it is)
            """
        )
        let (database, setAside) = try openInPlace(path: standIn, logger: logger)
        return (database, DatabaseOpening(setAside: setAside, standIn: standIn))
    }

    private static func openInPlace(path: String, logger: Logger) throws -> (Self, setAside: String?) {
        do {
            return (try openChecked(path: path), nil)
        } catch let error as DatabaseError where isDamage(error, at: path) {
            let aside = try setAside(path)
            logger.error(
                """
                the database at \(path) is not usable (\(error.resultCode): \(error.message ?? "")); \
                moved to \(aside), starting with an empty one
                """
            )
            return (try openChecked(path: path), aside)
        }
    }

    /// Whether the file at `path` (or, when there is none, a new one there) can be written:
    /// SQLite also writes its `-wal` and `-shm` beside it.
    private static func isWritablePlace(_ path: String) -> Bool {
        let folder = (path as NSString).deletingLastPathComponent
        guard access(folder.isEmpty ? "." : folder, W_OK) == 0 else { return false }
        return !exists(path) || access(path, W_OK) == 0
    }

    /// A copy of the file at `path` (with its journal), in a folder of this process's own under
    /// the temporary folder, named after the whole path (a cache and a favorites file of the
    /// same name in two folders get two copies). Folders of processes that have ended are
    /// removed first: a service restarting on a read-only disk does not fill the temporary folder.
    private static func makeStandIn(for path: String) throws -> String {
        let temporary = FileManager.default.temporaryDirectory.path
        let prefix = "rnm-stand-in-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        where name.hasPrefix(prefix) {
            // Bounded by the folder's entries; kill(pid, 0) asks only whether it still runs.
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            try? FileManager.default.removeItem(atPath: temporary + "/" + name)
        }
        let folder = temporary + "/" + prefix + "\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        // Percent-encoded, so that no two paths share a name ("/a_b/c", "/a/b_c").
        let standIn = folder + "/" + absolute.replacing("%", with: "%25").replacing("/", with: "%2F")
        for suffix in ["", "-wal", "-shm"] where exists(standIn + suffix) {
            try FileManager.default.removeItem(atPath: standIn + suffix)
        }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
            for suffix in ["-wal", ""] where exists(path + suffix) {
                try FileManager.default.copyItem(atPath: path + suffix, toPath: standIn + suffix)
            }
        }
        return standIn
    }

    private static func openChecked(path: String) throws -> Self {
        let pool = try DatabasePool.open(path: path, migrator: migrator)
        let problems = try pool.read { try String.fetchAll($0, sql: "PRAGMA quick_check") }
        guard problems == ["ok"] else {
            try pool.close()
            throw DatabaseError(
                resultCode: .SQLITE_CORRUPT, message: "quick_check: " + problems.prefix(3).joined(separator: "; "))
        }
        return Self(pool: pool)
    }

    /// Damage, not a passing condition: a lock held by another process (`SQLITE_BUSY`) or a
    /// missing folder never moves a file.
    private static func isDamage(_ error: DatabaseError, at path: String) -> Bool {
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return true
        case .SQLITE_CANTOPEN:
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
        default:
            return false
        }
    }

    private static func setAside(_ path: String) throws -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        var aside = path + ".damaged-" + formatter.string(from: Date())
        // Two damaged files in one second (bounded: a name is found long before).
        for number in 2...1000 where ["", "-wal", "-shm"].contains(where: { exists(aside + $0) }) {
            aside = path + ".damaged-" + formatter.string(from: Date()) + "-\(number)"
        }
        // The journal first: SQLite deletes a `-wal` it finds beside an empty database, so the
        // main file is moved last, once its journal is safe.
        for suffix in ["-wal", "-shm", ""] where exists(path + suffix) {
            try FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix)
        }
        return aside
    }

    private static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }
}
