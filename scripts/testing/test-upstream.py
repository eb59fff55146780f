#!/usr/bin/env python3
"""A local stand-in for the two upstream APIs, serving the real fixture data on 127.0.0.1.

    test-upstream.py rickandmorty PORT   # /api/character, /api/location, /api/episode (pages, filters, ids), avatars
    test-upstream.py universities PORT   # /search?country=NAME

Used by scripts/compose-smoke; the Swift tests have their own in-process server.
"""
import http.server
import json
import pathlib
import sys
import urllib.parse

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "Tests" / "TestSupport" / "Fixtures"


def rickandmorty(path, query):
    data = {kind: json.loads((FIXTURES / "rickandmorty" / f"{kind}s.json").read_text()) for kind in ("character", "location", "episode")}
    parts = [p for p in path.split("/") if p]
    if parts[:1] == ["api"]:
        parts = parts[1:]
    if not parts or parts[0] not in data:
        return 404, "application/json", b'{"error":"There is nothing here"}'
    records = data[parts[0]]
    if len(parts) == 3 and parts[1] == "avatar":
        avatar = FIXTURES / "rickandmorty" / "avatars" / parts[2]
        if avatar.is_file():
            return 200, "image/jpeg", avatar.read_bytes()
        return 404, "application/json", b'{"error":"There is nothing here"}'
    if len(parts) == 2:
        ids = [int(i) for i in parts[1].split(",") if i.isdigit()]
        found = [r for r in records if r["id"] in ids]
        if "," not in parts[1]:
            return (200, "application/json", json.dumps(found[0]).encode()) if found else (404, "application/json", b'{"error":"Not found"}')
        return 200, "application/json", json.dumps(list(reversed(found))).encode()
    page = int(query.get("page", "1"))
    def matches(record):
        for name in ("name", "status", "species", "type", "gender", "dimension", "episode"):
            wanted = query.get(name, "").lower()
            value = str(record.get(name, "")).lower()
            if wanted and not (value.startswith(wanted) if name == "gender" else wanted in value):
                return False
        return True
    matching = [r for r in records if matches(r)]
    pages = (len(matching) + 19) // 20
    if page < 1 or page > pages:
        return 404, "application/json", b'{"error":"There is nothing here"}'
    body = {"info": {"count": len(matching), "pages": pages, "next": None, "prev": None}, "results": matching[(page - 1) * 20:page * 20]}
    return 200, "application/json", json.dumps(body).encode()


def universities(path, query):
    if path != "/search":
        return 404, "text/html", b"<html><body>Not Found</body></html>"
    country = query.get("country", "").lower()
    if country == "united arab emirates":
        return 200, "application/json", (FIXTURES / "universities" / "search_country_united_arab_emirates.json").read_bytes()
    world = json.loads((FIXTURES / "universities" / "world_universities_and_domains.json").read_text())
    return 200, "application/json", json.dumps([u for u in world if u["country"].lower() == country]).encode()


def main():
    api, port = sys.argv[1], int(sys.argv[2])
    route = {"rickandmorty": rickandmorty, "universities": universities}[api]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            url = urllib.parse.urlparse(self.path)
            status, content_type, body = route(urllib.parse.unquote(url.path), dict(urllib.parse.parse_qsl(url.query)))
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
