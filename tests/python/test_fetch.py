"""fetch, against a real HTTP server on 127.0.0.1."""

import http.server
import threading

import pytest

import spool
from conftest import lines

PAGE = (
    "<html><head><title>Rows</title><script>var hidden = 'not content';</script></head><body>"
    "<h1>Settings</h1>"
    + "".join(f"<p>Setting number {i} does nothing of note.</p>" for i in range(3000))
    + "<table><tr><td>MCP_DISCOVERY_CACHE</td><td>keeps discovery results for 600 seconds</td></tr></table>"
    + "</body></html>"
).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    hits = 0

    def do_GET(self):  # noqa: N802 (http.server's spelling)
        Handler.hits += 1
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("ETag", '"v1"')
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    Handler.hits = 0
    yield f"http://127.0.0.1:{httpd.server_address[1]}/docs"
    httpd.shutdown()


def test_fetch_stores_the_page_once_with_its_version_and_finds_the_answer(home, root, server):
    st = spool.Store(roots=[root], allow_private_network=True)
    a = st.fetch(server, query="discovery cache seconds")
    assert a["source"]["kind"] == "fetch"
    v = a["source"]["version"]
    assert v["etag"] == '"v1"' and v["final_url"] == server and v["status"] == 200
    assert a["complete"] is False
    assert "MCP_DISCOVERY_CACHE" in a["content"]  # found, though 3,000 paragraphs down
    assert "not content" not in a["content"]  # scripts are not stored
    again = st.fetch(server)
    assert again["ref"] == a["ref"] and Handler.hits == 1  # nothing silently refetched
    hits = st.search("Setting number 2999 ", ref=a["ref"], literal=True)
    assert hits["hit_count"] == 1
    fresh = st.fetch(server, refresh=True)
    assert Handler.hits == 2  # asked again; the same bytes keep their one copy
    assert fresh["ref"] == a["ref"] and fresh["notes"], fresh.get("notes")


def test_fetch_refuses_loopback_unless_allowed(store, server):
    with pytest.raises(spool.SpoolError) as err:
        store.fetch(server)
    assert err.value.code == "forbidden"
    assert Handler.hits == 0
