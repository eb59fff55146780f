import Logging
import Telemetry

/// Logging set-up shared by the executables.
public enum RNMLogging {
    /// How log lines are written (`RNM_LOG_FORMAT`).
    public enum Format: String, Sendable {
        case text, json
    }

    /// The level named by `RNM_LOG_LEVEL` (or `name`), default info.
    public static func level(_ name: String?) throws -> Logger.Level {
        guard let name else { return .info }
        guard let level = Logger.Level(rawValue: name.lowercased()) else {
            throw SettingError(
                setting: .logLevel, value: name, expected: "one of trace, debug, info, notice, warning, error, critical"
            )
        }
        return level
    }

    /// The format named by `RNM_LOG_FORMAT` (or `name`), default text.
    public static func format(_ name: String?) throws -> Format {
        guard let name else { return .text }
        guard let format = Format(rawValue: name.lowercased()) else {
            throw SettingError(setting: .logFormat, value: name, expected: "text or json")
        }
        return format
    }

    /// Sends logs to stderr at `level`, in `format`, each line with the request's trace id when
    /// it is written for one; returns a logger labelled `label`.
    public static func bootstrap(label: String, level: Logger.Level, format: Format = .text) -> Logger {
        LoggingSystem.bootstrap(
            { label, provider in
                switch format {
                case .text: StreamLogHandler.standardError(label: label, metadataProvider: provider)
                case .json: JSONLogHandler(label: label, metadataProvider: provider)
                }
            }, metadataProvider: RequestTrace.metadataProvider)
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }
}
