import RnmAPI

/// A record as a card of a grid: a link, an avatar (with its character's name as `alt`, its
/// size, loaded lazily), a title, a few lines.
struct Card {
    struct Image {
        var src: String
        var alt: String
    }

    struct Line {
        var text: String
        var className: String?
    }

    var href: String
    var image: Image?
    var title: String
    var lines: [Line]
}

/// A record kind the web app lists as cards.
protocol CardRecord: KindRecord {
    var card: Card { get }
}

extension RecordKind {
    /// The web app's path of the kind's screens (`/app/characters`).
    var appPath: String { WebRoute.list(self).path }
}

extension Character: CardRecord {
    var card: Card {
        Card(
            href: "\(Self.kind.appPath)/\(id)", image: .init(src: WebApp.avatarPath(id), alt: name), title: name,
            lines: [
                .init(
                    text: "\(StatusLabel.text(status)) · \(species)",
                    className: "status \(StatusLabel.className(status))"),
                .init(text: "Last seen: \(location.name)", className: nil),
            ])
    }
}

extension Location: CardRecord {
    var card: Card {
        Card(
            href: "\(Self.kind.appPath)/\(id)", image: nil, title: name,
            lines: [
                .init(text: "\(type.isEmpty ? "unknown type" : type) · \(dimension)", className: nil),
                .init(text: residentIds.count == 1 ? "1 resident" : "\(residentIds.count) residents", className: nil),
            ])
    }
}

extension Episode: CardRecord {
    var card: Card {
        Card(
            href: "\(Self.kind.appPath)/\(id)", image: nil, title: "\(code): \(name)",
            lines: [
                .init(text: "Aired \(airDate)", className: nil),
                .init(text: "\(characterIds.count) characters", className: nil),
            ])
    }
}
