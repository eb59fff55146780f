#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import RnmAPI

/// Default paths (docs/PROTOCOL.md §7).
public enum DefaultPaths {
    /// `$XDG_RUNTIME_DIR/rnm/<file>`, or `/tmp/rnm-<uid>/<file>`; the folder is created 0700 if missing.
    public static func socket(
        _ file: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        let base: String
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            base = runtime + "/rnm"
        } else {
            base = "/tmp/rnm-\(getuid())"
        }
        let path = base + "/" + file
        try? createDirectory(for: path)
        return path
    }

    /// The default socket of `service`: `<name>.sock` in the folder above.
    public static func socket(
        for service: ServiceName, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        socket("\(service).sock", environment: environment)
    }

    /// `$XDG_DATA_HOME/rnm/<file>`, or `~/.local/share/rnm/<file>`.
    public static func database(
        _ file: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        let base: String
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            base = data + "/rnm"
        } else {
            base = (environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.local/share/rnm"
        }
        return base + "/" + file
    }

    /// Creates the default directory of `path` (mode 0700) if missing.
    public static func createDirectory(for path: String) throws {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        guard !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) else { return }
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
    }
}
