#!/usr/bin/env python3
"""A toy conversational recommender served in crsim's protocol (crsim/1), standard library only.

It keeps nothing between requests: each turn it reads every seeker utterance in the
history crsim sends, recommends the items that share the most words with them (title,
attribute values, description), leaving out those the seeker disliked, and asks about the
next attribute of the catalog. The catalog is a catalog directory's items.jsonl, one item
a line: {"id": ..., "title": ..., "attributes": {...}, "description": ...}.

    python examples/minimal_crs_server.py ~/.cache/crsim/worlds/restaurant-i3000-u1200-r10-s0-partial-v2 --port 8765
    crsim run recommender=http recommender.url=http://127.0.0.1:8765

See examples/README.md and docs/evaluate-your-crs.md.
"""

import argparse
import json
import re
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def words(text):
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 3}


def load(catalog_dir):
    """(id, words) per item, and the attribute names, most common first."""
    items = [json.loads(line) for line in (Path(catalog_dir).expanduser() / "items.jsonl").open() if line.strip()]
    index = [(item["id"], words(" ".join([item["title"], item.get("description", ""),
                                          json.dumps(list(item.get("attributes", {}).values()))])))
             for item in items]
    aspects = [name for name, _ in Counter(a for item in items for a in item.get("attributes", {})).most_common()]
    return index, aspects


def reply(request, index, aspects):
    """One move: a TurnRequest in, a TurnReply out (text and item ids, best first)."""
    history = request.get("history", [])
    said = [t["text"] for t in history if t["role"] == "seeker"] or [request.get("message", "")]
    disliked = {i for t in history for i, reaction in t.get("feedback", {}).items() if reaction == "dislike"}
    wanted = words(" ".join(said))
    scored = sorted(((len(wanted & item_words), -n, item_id) for n, (item_id, item_words) in enumerate(index)),
                    reverse=True)
    items = [item_id for overlap, _, item_id in scored if overlap > 0 and item_id not in disliked][:20]
    aspect = aspects[request.get("turn", 0) % len(aspects)].replace("_", " ") if aspects else ""
    return {"text": f"Any preference on {aspect}?" if aspect else "What else matters to you?", "items": items}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep the connection open between turns
    index, aspects = [], []  # set by main()

    def send(self, payload, status=200):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):  # GET /: what this server is
        self.send({"protocol": "crsim/1", "role": "recommender", "agent": "keyword-toy", "items": len(self.index)})

    def do_POST(self):  # POST /turn: one move
        if self.path.rstrip("/") != "/turn":
            return self.send({"error": "POST /turn"}, 404)
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        self.send(reply(request, self.index, self.aspects))

    def log_message(self, *args):  # no line per request on stderr
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("catalog", help="a catalog directory (its items.jsonl is read)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765, help="0: a free port")
    args = parser.parse_args()
    Handler.index, Handler.aspects = load(args.catalog)
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    print(f"serving on http://{args.host}:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
