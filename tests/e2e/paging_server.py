"""A real MCP server (the Python SDK's MCPServer, mcp 2.3.0) whose tools page their own lists,
as real servers do: `list_records` by cursor (`nextCursor`, `hasMore`, as MCP's own lists),
`search_issues` by page (`total_count`, `incomplete_results`, as GitHub's search API). The
upstream `spool wrap` is tested against in wrap_paging.py.
Usage: python3 paging_server.py   (stdio)
"""

from mcp.server.mcpserver import MCPServer

RECORDS = 3_500
ISSUES = 2_300

server = MCPServer("paging")


@server.tool()
def list_records(cursor: str | None = None, limit: int = 1_000) -> dict:
    """Records, `limit` a page, from `cursor` (the `nextCursor` of the page before)."""
    start = int(cursor) if cursor else 0
    end = min(start + limit, RECORDS)
    records = [{"id": i, "name": f"record {i}", "status": "open" if i % 3 else "closed"} for i in range(start, end)]
    more = end < RECORDS
    return {"records": records, "nextCursor": str(end) if more else None, "hasMore": more}


@server.tool()
def search_issues(query: str, page: int = 1, per_page: int = 1_000) -> dict:
    """Issues matching `query`, `per_page` a page, page `page` (1-based)."""
    start = (page - 1) * per_page
    end = min(start + per_page, ISSUES)
    items = [{"number": i, "title": f"{query} issue {i}"} for i in range(start, max(start, end))]
    return {"total_count": ISSUES, "incomplete_results": False, "items": items}


if __name__ == "__main__":
    server.run("stdio")
