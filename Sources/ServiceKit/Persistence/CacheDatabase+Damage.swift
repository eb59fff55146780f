import Foundation
import GRDB
import Logging

extension CacheDatabase {
    /// Opens the database at `path` as ``init(path:)`` does, and checks it (`PRAGMA
    /// quick_check`: a few milliseconds for these files of a few megabytes). A file that is
    /// not a usable database (not SQLite, truncated, damaged inside, a folder) is moved aside to
    /// `<path>.damaged-<UTC time>` (with its `-wal` and `-shm`), logged, and an empty one made in
    /// its place: a cache is rebuilt from the upstream, while a service that exits on it would
    /// crash-loop under `restart: unless-stopped` and serve nothing. Nothing is deleted.
    /// - Returns: the database, and where a damaged file was moved (nil: none was).
    public static func openSettingAsideDamage(path: String, logger: Logger) throws -> (Self, setAside: String?) {
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
