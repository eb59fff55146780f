import RnmAPI

/// The favorites, as cards.
struct FavoritesScreen {
    var frame: PageFrame
    var cards: [Card]

    init(_ list: FavoriteList, csrf: String) {
        frame = PageFrame(screen: .favorites, csrf: csrf)
        cards = list.items.map(\.card)
    }
}
