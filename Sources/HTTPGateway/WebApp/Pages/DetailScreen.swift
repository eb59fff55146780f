import RnmAPI

/// One record's screen: a heading, its fields (a value may be a link), and what the record
/// links to. Characters, locations, episodes and universities share it (one template,
/// `detail`); each kind says how it fills it (`DetailScreen+Kinds.swift`).
struct DetailScreen {
    /// A field's value: text, or a link to another screen (`external` for a link out of rnm).
    struct Value {
        var text: String
        var href: String? = nil
        var external = false
        /// A moment, shown readable with its exact timestamp kept (``TimeText``).
        var time: TimeText? = nil
    }

    /// A field and its values, one a line.
    struct Field {
        var label: String
        var values: [Value]

        init(_ label: String, _ values: [Value]) {
            self.label = label
            self.values = values
        }

        init(_ label: String, _ text: String, href: String? = nil) {
            self.init(label, [Value(text: text, href: href)])
        }

        /// A field whose value is a timestamp.
        init(_ label: String, time iso: String) {
            self.init(label, [Value(text: iso, time: TimeText(iso))])
        }
    }

    /// A character's "Add to favorites" or "Remove from favorites" form.
    struct FavoriteForm {
        var id: Int
        var isFavorite: Bool
        /// Where the form posts (``WebRoute/favorite(id:)``): stored, as templates read only
        /// stored properties.
        var action: String

        init(id: Int, isFavorite: Bool) {
            (self.id, self.isFavorite) = (id, isFavorite)
            action = WebRoute.favorite(id: id).path
        }
    }

    /// An episode of a character's, linking to its page.
    struct EpisodeRow {
        var code: String
        var name: String
        var airDate: String
        var href: String

        init(_ episode: EpisodeSummary) {
            (code, name, airDate) = (episode.code, episode.name, episode.airDate)
            href = WebRoute.record(.episode, id: episode.id).path
        }
    }

    /// What the record links to: cards (residents, characters) or a character's episodes.
    struct Related {
        var heading: String
        var none: String? = nil
        var cards: [Card] = []
        var episodes: [EpisodeRow] = []
    }

    var frame: PageFrame
    var heading: String
    var image: Card.Image?
    var fields: [Field]
    var favorite: FavoriteForm?
    var related: Related?
}
