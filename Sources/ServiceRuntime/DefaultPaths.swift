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
        let path = folder(environment["XDG_RUNTIME_DIR"], else: "/tmp/rnm-\(getuid())") + "/" + file
        try? createDirectory(for: path)
        return path
    }

    /// The default socket of `service`: `<name>.sock` in the folder above.
    public static func socket(
        for service: ServiceName, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        socket("\(service).sock", environment: environment)
    }

    /// The Gateway's socket in force: the flag, else `RNM_GATEWAY_SOCKET`, else the default (the
    /// Gateway, the HTTP front and rnmctl resolve it this one way).
    public static func gatewaySocket(flag: String?) -> String {
        Setting.gatewaySocket.resolve(flag, default: socket(for: .gateway))
    }

    /// `$XDG_DATA_HOME/rnm/<file>`, or `~/.local/share/rnm/<file>`.
    public static func database(
        _ file: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return folder(environment["XDG_DATA_HOME"], else: home + "/.local/share/rnm") + "/" + file
    }

    /// `<xdg>/rnm` when the XDG variable is set and not empty (the XDG base directory rule), else `fallback`.
    private static func folder(_ xdg: String?, else fallback: String) -> String {
        guard let xdg, !xdg.isEmpty else { return fallback }
        return xdg + "/rnm"
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
