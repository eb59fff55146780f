/// A program that reads a setting (docs/SETTINGS.md's "read by" column).
public enum SettingReader: String, CaseIterable, Sendable {
    case gateway = "Gateway"
    case characterService = "CharacterService"
    case universityService = "UniversityService"
    case httpGateway = "HTTPGateway"
    case rnmctl
}

/// The groups the settings table names readers by.
extension [SettingReader] {
    /// Both caching services.
    public static var services: [SettingReader] { [.characterService, .universityService] }
    /// The servers of the wire protocol (docs/PROTOCOL.md): the Gateway and both services.
    public static var rpcServers: [SettingReader] { [.gateway, .characterService, .universityService] }
    /// Every server process (all but rnmctl).
    public static var servers: [SettingReader] { [.gateway, .characterService, .universityService, .httpGateway] }
}
