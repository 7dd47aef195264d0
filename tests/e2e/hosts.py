"""What the model receives: each host's rule for forwarding a tool result (TESTING.md, "What
hosts forward to the model", checked 2026-12-01), applied to a real result from the Python SDK.

- Claude Code: JSON.stringify(structuredContent) when a successful result has it; an error's text.
- Codex: the structured content when present and not null, else the content blocks as JSON.
- Text-only hosts: the text blocks.
"""

import json

HOSTS = ("claude-code", "codex", "text-only")


def _texts(result):
    return [b.text for b in result.content if getattr(b, "type", "") == "text"]


def view(host, result):
    """(shape, text): what `host` hands the model; shape is "json" or "text"."""
    sc = result.structured_content
    if host == "claude-code" and sc is not None and not result.is_error:
        return "json", json.dumps(sc, ensure_ascii=False, separators=(",", ":"))
    if host == "codex":
        if sc is not None:
            return "json", json.dumps(sc, ensure_ascii=False, separators=(",", ":"))
        blocks = [b.model_dump(mode="json", exclude_none=True) for b in result.content]
        return "json", json.dumps(blocks, ensure_ascii=False, separators=(",", ":"))
    return "text", "\n".join(_texts(result))


def count(shape, text, needle):
    """How often `needle` appears in what the model reads (escaped as JSON writes it)."""
    written = needle if shape == "text" else json.dumps(needle, ensure_ascii=False)[1:-1]
    return text.count(written)


def parse_call(words):
    """`read ref=sp_x line=97 limit=400` -> ("read", {...}); values are JSON, numbers, booleans
    or bare words, as spool writes MCP calls in words."""
    tool, _, rest = words.strip().partition(" ")
    args = {}
    decoder = json.JSONDecoder()
    rest = rest.strip()
    while rest:
        key, _, after = rest.partition("=")
        value, used = None, None
        if after[:1] in ('"', "[", "{"):
            try:
                value, used = decoder.raw_decode(after)
            except ValueError:
                value = None
        if used is None:
            word = after.split(" ", 1)[0]
            used = len(word)
            try:
                value = json.loads(word)
                if not isinstance(value, (int, float, bool)):
                    value = word
            except ValueError:
                value = word
        args[key.strip()] = value
        rest = after[used:].strip()
    return tool, args


def next_call(shape, text):
    """The first call the view tells the model to make next, read off the view alone."""
    if shape == "json":
        try:
            nxt = json.loads(text).get("next") or []
        except (ValueError, AttributeError):
            return None
        return (nxt[0]["tool"], nxt[0]["arguments"]) if nxt else None
    for marker in (" Next: ", " Next hits: ", "[more entries: ", "[more artifacts: "):
        at = text.find(marker)
        if at >= 0:
            line = text[at + len(marker):].split("\n", 1)[0]
            if marker.startswith("["):
                line = line.removesuffix("]")
            return parse_call(line.split(", or ", 1)[0])
    return None


def max_result_chars(tool):
    """The chars a host that cuts results by chars (Claude Code) lets this tool's answers take."""
    meta = getattr(tool, "meta", None) or {}
    return meta.get("anthropic/maxResultSizeChars")
