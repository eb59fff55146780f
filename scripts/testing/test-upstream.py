#!/usr/bin/env python3
"""A local stand-in for the two upstream APIs, serving the real fixture data on 127.0.0.1.

    test-upstream.py rickandmorty PORT   # /api, /api/character, /api/location, /api/episode (pages, filters, ids), avatars
    test-upstream.py universities PORT   # /search?country=NAME&name=PART, and /search: the whole world list

Used by scripts/compose-smoke and scripts/bench; the Swift tests have their own in-process server
(Tests/TestSupport) that follows the same rules.
"""
import http.server
import json
import re
import pathlib
import sys
import urllib.parse

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "Tests" / "TestSupport" / "Fixtures"


PUBLIC_BASE = "https://rickandmortyapi.com/api"
ALLOWED = {"character": ["name", "status", "species", "type", "gender"], "location": ["name", "type", "dimension"],
           "episode": ["name", "episode"]}


def error(status, message):
    return status, "application/json", json.dumps({"error": message}).encode()


def rickandmorty(path, query, keys):
    """As the real server (afuh/rick-and-morty-api) and Tests/TestSupport/RickAndMortyFixtures.swift."""
    data = {kind: json.loads((FIXTURES / "rickandmorty" / f"{kind}s.json").read_text()) for kind in ALLOWED}
    parts = [p for p in path.split("/") if p]
    if parts[:1] != ["api"]:
        return error(404, "There is nothing here.")
    parts = parts[1:]
    if not parts:
        return 200, "application/json", json.dumps({k + "s": f"{PUBLIC_BASE}/{k}" for k in ALLOWED}).encode()
    kind = parts[0].lower()
    if kind not in data or len(parts) > 3:
        return error(404, "There is nothing here.")
    records = data[kind]
    if kind == "character" and len(parts) >= 2 and parts[1].lower() == "avatar":
        if len(parts) == 2:
            return error(404, "There is nothing here")
        name = parts[2]
        if not name.endswith(".jpeg") or not name[:-5].isdigit() or not 1 <= int(name[:-5]) <= len(records):
            return error(404, "There is nothing here.")
        # The five avatars that ship, in turn: the real API has one for every character.
        avatar = FIXTURES / "rickandmorty" / "avatars" / f"{(int(name[:-5]) - 1) % 5 + 1}.jpeg"
        return 200, "image/jpeg", avatar.read_bytes()
    if len(parts) == 3:
        return error(404, "There is nothing here.")
    if len(parts) == 2:
        segment = parts[1]

        def number(text):  # JavaScript's Number: trimmed, "" is 0, None for NaN
            text = text.strip()
            try:
                value = float(text) if text else 0.0
                return value if value == value and abs(value) != float("inf") else None
            except ValueError:
                return None
        ids = None
        if re.search(r"\[.+\]$", segment):
            try:
                parsed = json.loads(segment)
                assert isinstance(parsed, list)
            except (ValueError, AssertionError):
                return error(500, "Bad... bad array :/")
            ids = [number(v) if isinstance(v, str) else v for v in parsed
                   if isinstance(v, (int, float, str)) and not isinstance(v, bool)]
        elif "," in segment and "[" not in segment and "]" not in segment and len(segment) > 1:
            ids = [number(part) for part in segment.split(",")]
            if None in ids:
                return error(500, "Hey! you must provide an id")
        elif "[" in segment or "]" in segment:
            return error(500, "Bad... bad array :/")
        if ids is not None:
            return 200, "application/json", json.dumps([r for r in records if r["id"] in ids]).encode()
        unsigned = segment.strip().lstrip("+-")
        if not unsigned[:1].isdigit() or number(segment) is None:
            return error(500, "Hey! you must provide an id")
        found = [r for r in records if r["id"] == number(segment)]
        return (200, "application/json", json.dumps(found[0]).encode()) if found else error(404, f"{kind.capitalize()} not found")
    try:
        page = float(query.get("page", "").strip())
        page = int(min(page, 1e15)) if page >= 1 else 1
    except ValueError:
        page = 1
    filters = {name: query.get(name, "").strip() for name in ALLOWED[kind] if query.get(name, "").strip()}

    def matches(record):
        for name, wanted in filters.items():
            value = str(record.get(name, "")).lower()
            wanted = wanted.lower()
            if not (value.startswith(wanted) if kind == "character" and wanted.startswith("male") else wanted in value):
                return False
        return True
    matching = [r for r in records if matches(r)]
    pages = (len(matching) + 19) // 20
    if page > pages:
        return error(404, "There is nothing here")
    repeated = "".join(f"&{key}={filters[key]}" for key in keys if key in filters)
    link = lambda n: f"{PUBLIC_BASE}{path[4:]}?page={n}{repeated}"
    body = {"info": {"count": len(matching), "pages": pages, "next": link(page + 1) if page < pages else None,
                     "prev": link(page - 1) if page > 1 else None},
            "results": matching[(page - 1) * 20:page * 20]}
    return 200, "application/json", json.dumps(body).encode()


def universities(path, query, keys):
    """As the real server: `country` whole and case-insensitive, `name` a case-insensitive part;
    neither: the whole world list."""
    if path != "/search":
        return 404, "text/html", b"<html><body>Not Found</body></html>"
    country, name = query.get("country", "").lower(), query.get("name", "").lower()
    if country == "united arab emirates" and not name:
        return 200, "application/json", (FIXTURES / "universities" / "search_country_united_arab_emirates.json").read_bytes()
    world = (FIXTURES / "universities" / "world_universities_and_domains.json")
    if not country and not name:
        return 200, "application/json", world.read_bytes()
    found = [u for u in json.loads(world.read_text())
             if (not country or u["country"].lower() == country) and (not name or name in u["name"].lower())]
    return 200, "application/json", json.dumps(found).encode()


def main():
    api, port = sys.argv[1], int(sys.argv[2])
    route = {"rickandmorty": rickandmorty, "universities": universities}[api]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            url = urllib.parse.urlparse(self.path)
            pairs = urllib.parse.parse_qsl(url.query, keep_blank_values=True)
            keys = list(dict.fromkeys(key for key, _ in pairs))
            status, content_type, body = route(urllib.parse.unquote(url.path), dict(reversed(pairs)), keys)
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
