/// `/`: every screen, with what it is for.
struct HomeScreen {
    struct Link {
        var href: String
        var label: String
        var about: String
    }

    var frame: PageFrame
    var links: [Link]

    init(csrf: String) {
        frame = PageFrame(title: nil, current: nil, csrf: csrf)
        links = WebRoute.screens.map { Link(href: $0.route.path, label: $0.label, about: $0.about) }
    }
}
