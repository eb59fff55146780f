/// The three processes that answer requests, by the name used in `error.data.service`.
public enum ServiceName: String, Sendable, Codable, CaseIterable {
    case gateway, characters, universities
}
