extension WebTemplates {
    /// One record (``DetailScreen``): the avatar and favorite form only for a character.
    static let detail = """
        {{> head}}<h1>{{heading}}</h1>
        {{#image}}<div class="detail"><div><img src="{{src}}" alt="{{alt}}" width="300" height="300"></div><div>\
        {{/image}}
        <dl class="fields">{{#fields}}<dt>{{label}}</dt><dd>{{#values}}{{^first()}}<br>{{/first()}}{{#href}}\
        <a href="{{href}}"{{#external}} rel="noopener noreferrer"{{/external}}>{{text}}</a>{{/href}}\
        {{^href}}{{#time}}{{> time}}{{/time}}{{^time}}{{text}}{{/time}}{{/href}}{{/values}}</dd>{{/fields}}</dl>
        {{#favorite}}<div class="actions"><form method="post" action="{{action}}">\
        <input type="hidden" name="csrf" value="{{frame.csrf}}">\
        {{#isFavorite}}<input type="hidden" name="action" value="remove"><button type="submit" class="quiet">\
        Remove from favorites</button>{{/isFavorite}}{{^isFavorite}}<input type="hidden" name="action" value="add">\
        <button type="submit">Add to favorites</button>{{/isFavorite}}</form></div>{{/favorite}}
        {{#image}}</div></div>{{/image}}
        {{#related}}<h2>{{heading}}</h2>
        {{^empty(episodes)}}<table><thead><tr><th scope="col">Code</th><th scope="col">Name</th>\
        <th scope="col">Air date</th></tr></thead>
        <tbody>{{#episodes}}<tr><td><a href="{{href}}">{{code}}</a></td>\
        <td><a href="{{href}}">{{name}}</a></td><td>{{airDate}}</td></tr>{{/episodes}}</tbody></table>\
        {{/empty(episodes)}}
        {{^cards}}{{#none}}<p>{{.}}</p>{{/none}}{{/cards}}{{^empty(cards)}}{{> cards}}{{/empty(cards)}}{{/related}}
        {{> foot}}
        """

    static let favorites = """
        {{> head}}<h1>Favorites</h1>
        {{^cards}}<p>No favorites yet: open a character and choose “Add to favorites”.</p>{{/cards}}
        {{> cards}}{{> foot}}
        """

    static let stats = """
        {{> head}}<h1>Statistics</h1>
        <p>{{total}} characters.</p>
        <table><thead><tr><th scope="col">Status</th><th scope="col">Characters</th><th scope="col">Share</th></tr>\
        </thead><tbody>{{#rows}}<tr><td><span class="status {{className}}">{{label}}</span></td>\
        <td class="number">{{count}}</td><td class="number">{{percent}} %</td></tr>{{/rows}}</tbody></table>
        <h2>Characters per status</h2>
        <div class="chart" role="img" aria-label="{{chartLabel}}">{{#rows}}<span class="chart-label">{{label}}</span>\
        <svg class="chart-track" aria-hidden="true" focusable="false"><rect class="bar {{className}}" \
        width="{{barWidth}}" height="100%"></rect></svg><span class="chart-value">{{count}}</span>
        {{/rows}}</div>
        {{> foot}}
        """

    static let universities = """
        {{> head}}<h1>Universities of {{country}}</h1>
        <form class="filters" method="get" action="{{frame.routes.universities}}" role="search">
        <label>Country<input type="search" name="country" value="{{country}}"></label>
        <label>Name contains<input type="search" name="name" value="{{name}}"></label>
        <button type="submit">Show</button></form>
        <div class="actions"><form method="post" action="{{frame.routes.refreshUniversities}}">\
        <input type="hidden" name="csrf" value="{{frame.csrf}}">\
        <input type="hidden" name="country" value="{{country}}">\
        <input type="hidden" name="name" value="{{name}}"><button type="submit" class="quiet">Refresh from the upstream\
        </button></form><span class="muted">{{summary}}</span></div>
        {{#noUniversities}}<div class="empty"><p>{{sentence}}</p>{{#unsynced}}<p>rnm has no offline copy of the \
        universities yet, so it could only ask the upstream: the \
        <a href="{{frame.routes.offline}}">Offline page</a> makes one.\
        </p>{{/unsynced}}</div>{{/noUniversities}}
        <ul class="plain">{{#items}}<li><a href="{{href}}">{{name}}</a>{{#place}} <span class="muted">({{.}})\
        </span>{{/place}}</li>{{/items}}</ul>
        {{> foot}}
        """

    static let offline = """
        {{> head}}<h1>Offline</h1>
        <p>What rnm holds for use without the upstreams, and how the upstreams are now.</p>
        <table class="stack"><thead><tr><th scope="col">Service</th><th scope="col">Mirror</th>\
        <th scope="col">Records</th><th scope="col">Upstream</th></tr></thead><tbody>{{#services}}<tr>\
        <td data-label="Service">{{name}}</td><td data-label="Mirror">{{mirror}}{{#mirrorMade}} {{> time}}\
        {{/mirrorMade}}</td><td class="number" data-label="Records">{{records}}</td><td data-label="Upstream">\
        {{upstream}}{{#lastAnswer}} (last answer {{> time}}){{/lastAnswer}}{{#detail}}<details><summary>Details\
        </summary>{{.}}</details>{{/detail}}</td></tr>{{/services}}</tbody></table>
        <div class="actions"><form method="post" action="{{frame.routes.sync}}" data-sync>\
        <input type="hidden" name="csrf" value="{{frame.csrf}}"><button type="submit"{{#sync.running}} disabled\
        {{/sync.running}}>Make available offline</button></form></div>
        {{#sync}}<div data-progress data-running="{{running}}"{{#hidden}} hidden{{/hidden}}>
        <label>Progress <progress max="{{total}}"{{#done}} value="{{.}}"{{/done}}></progress></label>
        <p data-progress-text role="status">{{summary}}</p>{{#detail}}<details><summary>Details</summary>{{.}}\
        </details>{{/detail}}</div>{{/sync}}
        {{> foot}}
        """

    static let error = """
        {{> head}}<h1>{{heading}}</h1>
        <p>{{message}}</p>
        <p><a href="{{back}}">Back</a></p>
        {{> foot}}
        """
}
