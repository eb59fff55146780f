import Mustache

/// The web app's pages, as Mustache templates (swift-mustache): every value is HTML-escaped as it
/// is written (`{{…}}`), so no record's text can become markup. Each page starts with the
/// `head` partial and ends with `foot`; a list of records uses `cards`.
enum WebTemplates {
    /// Every template, by name, parsed once.
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in pages {
            do {
                try library.register(text, named: name)
            } catch {
                preconditionFailure("template \(name) does not parse: \(error)")
            }
        }
        return library
    }()

    static let pages: [(String, String)] = [
        ("head", head), ("foot", foot), ("cards", cards), ("pager", pager), ("time", time),
        ("home", home), ("list", list), ("detail", detail), ("favorites", favorites), ("stats", stats),
        ("universities", universities),
        ("offline", offline), ("error", error),
    ]

    static let head = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>{{frame.documentTitle}}</title>
        <link rel="icon" href="{{frame.routes.icon}}" type="image/svg+xml">
        <link rel="stylesheet" href="{{frame.routes.stylesheet}}?v={{frame.assetVersion}}">
        <script src="{{frame.routes.script}}?v={{frame.assetVersion}}" defer></script>
        </head>
        <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top"><nav aria-label="Screens"><a class="brand" href="/">rnm</a>
        {{#frame.nav}}<a href="{{href}}"{{#current}} aria-current="page"{{/current}}>{{label}}</a>
        {{/frame.nav}}</nav></header>
        <main id="main">
        {{#frame.notice}}<div class="notice" role="status"><p>{{text}}{{#at}} {{> time}}{{/at}}.</p>{{#detail}}\
        <details><summary>Details</summary><p>{{.}}</p></details>{{/detail}}</div>{{/frame.notice}}

        """

    static let foot = """
        </main>
        <footer>rnm {{frame.version}}: the Rick and Morty API and the Hipo universities API, from rnm's cache.
        <a href="{{frame.routes.offline}}">Offline state</a></footer>
        </body>
        </html>

        """

    /// A ``TimeText``: readable, the exact timestamp in `datetime` (the script shows it in the
    /// reader's time zone).
    static let time = """
        <time datetime="{{iso}}">{{text}}</time>
        """

    static let cards = """
        <ul class="grid">
        {{#cards}}<li><a class="card" href="{{href}}">{{#image}}<img src="{{src}}" alt="{{alt}}" width="300" \
        height="300" loading="lazy" decoding="async">{{/image}}<div class="body">\
        <strong class="title">{{title}}</strong>
        {{#lines}}<p{{#className}} class="{{className}}"{{/className}}>{{text}}</p>{{/lines}}</div></a></li>
        {{/cards}}</ul>

        """

    static let pager = """
        {{#pager}}<nav class="pager" aria-label="Pages">{{#previous}}<a class="button" href="{{.}}" rel="prev">\
        ← Previous</a>{{/previous}}<span>{{summary}}</span>{{#next}}<a class="button" href="{{.}}" rel="next">\
        Next →</a>{{/next}}</nav>{{/pager}}

        """

    static let home = """
        {{> head}}<h1>rnm</h1>
        <p>The Rick and Morty API and the Hipo universities API, kept by rnm: every screen reads rnm's cache \
        and keeps working when the upstreams do not.</p>
        <ul class="plain">{{#links}}<li><a href="{{href}}">{{label}}</a>: {{about}}</li>{{/links}}</ul>
        {{> foot}}
        """

    static let list = """
        {{> head}}<h1>{{heading}}</h1>
        <details class="filter-panel" open{{#filtersSet}} data-kept{{/filtersSet}}><summary>Filters\
        {{#filtersSet}} ({{.}}){{/filtersSet}}</summary>
        <form class="filters" method="get" action="{{action}}" role="search">
        {{#filters}}<label>{{label}}{{#empty(options)}}<input type="search" name="{{name}}" value="{{value}}">\
        {{/empty(options)}}{{^empty(options)}}<select name="{{name}}"><option value="">any</option>{{#options}}\
        <option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/options}}</select>\
        {{/empty(options)}}</label>
        {{/filters}}<button type="submit">Filter</button>{{#clear}}<a href="{{.}}">Clear filters</a>{{/clear}}
        </form></details>
        {{#refresh}}<div class="actions"><form method="post" action="{{action}}">\
        <input type="hidden" name="csrf" value="{{frame.csrf}}">{{#fields}}<input type="hidden" name="{{name}}" \
        value="{{value}}">{{/fields}}<button type="submit" class="quiet">Refresh from the upstream</button></form>\
        </div>\
        {{/refresh}}
        {{^cards}}<p>Nothing matches these filters.</p>{{/cards}}
        {{> cards}}{{> pager}}{{> foot}}
        """
}
