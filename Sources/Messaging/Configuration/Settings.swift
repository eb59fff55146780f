import Foundation
import Logging

/// The environment variables of docs/PROTOCOL.md §7, and the defaults they fall back to.
public enum Setting: String, CaseIterable, Sendable {
    case gatewaySocket = "RNM_GATEWAY_SOCKET"
    case charactersSocket = "RNM_CHARACTERS_SOCKET"
    case universitiesSocket = "RNM_UNIVERSITIES_SOCKET"
    case charactersDatabase = "RNM_CHARACTERS_DB"
    case universitiesDatabase = "RNM_UNIVERSITIES_DB"
    case rickAndMortyURL = "RNM_RICKANDMORTY_URL"
    case universitiesURL = "RNM_UNIVERSITIES_URL"
    case upstreamTimeoutMilliseconds = "RNM_UPSTREAM_TIMEOUT_MS"
    case charactersMaxAge = "RNM_CHARACTERS_MAX_AGE"
    case universitiesMaxAge = "RNM_UNIVERSITIES_MAX_AGE"
    case requestTimeoutMilliseconds = "RNM_REQUEST_TIMEOUT_MS"
    case maxFrameBytes = "RNM_MAX_FRAME_BYTES"
    case logLevel = "RNM_LOG_LEVEL"
    /// How long a started frame may stay incomplete before the server closes the connection.
    case frameTimeoutMilliseconds = "RNM_FRAME_TIMEOUT_MS"
    /// Bytes one connection may hold in a server (requests being served, replies waiting).
    case connectionBufferBytes = "RNM_CONNECTION_BUFFER_BYTES"
    /// Requests one connection may have in flight.
    case maxInFlightPerConnection = "RNM_MAX_IN_FLIGHT_PER_CONNECTION"
    /// Requests the Gateway has in flight over all its clients.
    case maxInFlight = "RNM_MAX_IN_FLIGHT"
    /// The longest string parameter a service accepts, in bytes.
    case maxParamBytes = "RNM_MAX_PARAM_BYTES"
    /// The largest upstream response body a service accepts, in bytes.
    case upstreamMaxBytes = "RNM_UPSTREAM_MAX_BYTES"
    /// Cached list pages of filtered queries the CharacterService keeps (least recently used
    /// evicted past it).
    case charactersMaxListPages = "RNM_CHARACTERS_MAX_LIST_PAGES"

    /// The value set in `environment`, if any and not empty.
    public func value(in environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let value = environment[rawValue], !value.isEmpty else { return nil }
        return value
    }

    /// The flag's value, else the environment's, else `fallback`.
    public func resolve(_ flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                        default fallback: @autoclosure () -> String) -> String {
        flag ?? value(in: environment) ?? fallback()
    }

    /// The flag's value, else the environment's parsed as an integer, else `fallback`.
    /// - Throws: ``SettingError`` when the environment's value is not an integer in `range`.
    public func resolveInteger(_ flag: Int?, environment: [String: String] = ProcessInfo.processInfo.environment,
                               default fallback: Int, range: ClosedRange<Int> = 0...Int.max) throws -> Int {
        let value: Int
        if let flag {
            value = flag
        } else if let text = self.value(in: environment) {
            guard let parsed = Int(text) else { throw SettingError(setting: self, value: text, expected: "an integer") }
            value = parsed
        } else {
            value = fallback
        }
        guard range.contains(value) else {
            throw SettingError(setting: self, value: String(value), expected: "an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }
}

/// A setting whose value cannot be used.
public struct SettingError: Error, CustomStringConvertible {
    public let setting: Setting
    public let value: String
    public let expected: String
    public var description: String { "\(setting.rawValue)=\(value) is not \(expected)" }
}

/// Default paths (docs/PROTOCOL.md §7).
public enum DefaultPaths {
    /// `$XDG_RUNTIME_DIR/rnm/<file>`, or `/tmp/rnm-<uid>/<file>`; the folder is created 0700 if missing.
    public static func socket(_ file: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
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

    /// `$XDG_DATA_HOME/rnm/<file>`, or `~/.local/share/rnm/<file>`.
    public static func database(_ file: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base: String
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            base = data + "/rnm"
        } else {
            base = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share/rnm"
        }
        return base + "/" + file
    }

    /// Creates the default directory of `path` (mode 0700) if missing.
    public static func createDirectory(for path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) else { return }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }
}

/// Logging set-up shared by the executables.
public enum RNMLogging {
    /// The level named by `RNM_LOG_LEVEL` (or `name`), default info.
    public static func level(_ name: String?) throws -> Logger.Level {
        guard let name else { return .info }
        guard let level = Logger.Level(rawValue: name.lowercased()) else {
            throw SettingError(setting: .logLevel, value: name, expected: "one of trace, debug, info, notice, warning, error, critical")
        }
        return level
    }

    /// Sends logs to stderr at `level`; returns a logger labelled `label`.
    public static func bootstrap(label: String, level: Logger.Level) -> Logger {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }
}
