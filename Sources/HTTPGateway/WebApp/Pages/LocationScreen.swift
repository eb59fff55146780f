import RnmAPI

/// A location with its residents as cards.
struct LocationScreen {
    struct Field {
        var label: String
        var value: String
    }

    var frame: PageFrame
    var name: String
    var fields: [Field]
    var residentCount: Int
    var cards: [Card]

    init(_ detail: Fresh<LocationDetail>, csrf: String) {
        let location = detail.location
        frame = PageFrame(
            title: location.name, current: RecordKind.location.appPath, freshness: [detail.freshness], csrf: csrf)
        name = location.name
        fields = [
            Field(label: "Type", value: location.type.isEmpty ? "—" : location.type),
            Field(label: "Dimension", value: location.dimension),
            Field(label: "Created", value: location.created),
        ]
        residentCount = detail.residents.count
        cards = detail.residents.map(\.card)
    }
}
