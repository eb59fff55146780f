import Messaging

/// A record of one ``RecordKind`` with the methods that read it: a client that works on any kind
/// (the HTTP front's REST routes, GraphQL) reaches them through the record type, typed, instead
/// of switching over the kinds again.
public protocol KindRecord: Codable, Sendable, Equatable {
    /// The params of its list, which name its filters.
    associatedtype ListParamsType: ListParams
    static var kind: RecordKind { get }
    /// `<plural>.list`.
    static var listMethod: RPCMethod<ListParamsType, Fresh<Page<Self>>> { get }
    /// `<plural>.getMany`.
    static var getManyMethod: RPCMethod<IDsParams, Fresh<Batch<Self>>> { get }
    var id: Int { get }
}

extension Character: KindRecord {
    public static let kind = RecordKind.character
    public static var listMethod: RPCMethod<CharacterListParams, Fresh<Page<Character>>> { RPCMethods.charactersList }
    public static var getManyMethod: RPCMethod<IDsParams, Fresh<Batch<Character>>> { RPCMethods.charactersGetMany }
}

extension Location: KindRecord {
    public static let kind = RecordKind.location
    public static var listMethod: RPCMethod<LocationListParams, Fresh<Page<Location>>> { RPCMethods.locationsList }
    public static var getManyMethod: RPCMethod<IDsParams, Fresh<Batch<Location>>> { RPCMethods.locationsGetMany }
}

extension Episode: KindRecord {
    public static let kind = RecordKind.episode
    public static var listMethod: RPCMethod<EpisodeListParams, Fresh<Page<Episode>>> { RPCMethods.episodesList }
    public static var getManyMethod: RPCMethod<IDsParams, Fresh<Batch<Episode>>> { RPCMethods.episodesGetMany }
}
