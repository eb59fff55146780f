import Logging

/// Logging set-up shared by the executables.
public enum RNMLogging {
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

    /// Sends logs to stderr at `level`; returns a logger labelled `label`.
    public static func bootstrap(label: String, level: Logger.Level) -> Logger {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }
}
