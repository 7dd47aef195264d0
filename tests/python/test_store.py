"""The library: put, read, next, search, query, list, run, artifacts, audit, errors."""

import json
import threading
import time

import pytest

import spool
from conftest import lines


def shown_lines(answer):
    return [(r["start"], r["end"]) for r in answer["shown"] if r["unit"] == "lines"]


def test_put_stores_the_whole_output_and_says_what_it_showed(store):
    output = lines(5000)
    a = store.put(output, desc="my_tool q=rows", version={"called_at": "2026-12-01T09:00:00Z"})
    assert a["complete"] is False
    assert a["reason"]["code"] == "token_cap"
    assert a["total"]["lines"] == 5000
    assert a["total"]["bytes"] == len(output.encode())
    assert a["source"] == {
        "kind": "text",
        "desc": "my_tool q=rows",
        "version": {"called_at": "2026-12-01T09:00:00Z"},
        # What the stored copy holds of its source: all of it.
        "coverage": {"whole": True},
    }
    (start, end), = shown_lines(a)
    assert start == 1 and 1 < end < 5000
    # The content is exactly the lines shown, in both forms.
    expected = lines(end)
    assert a["content"] == expected
    assert expected in a["text"]
    assert a["text"].startswith("[PARTIAL: lines 1-")
    assert a["notice"].splitlines()[0] == a["text"].splitlines()[0]
    assert f"read ref={a['ref']} line={end + 1}" in a["text"]


def test_every_next_call_works_verbatim_and_the_pages_cover_everything_once(store):
    output = lines(3000)
    a = store.put(output, desc="rows")
    seen = shown_lines(a)
    content = a["content"]
    for _ in range(100):
        if a["complete"] or a["next"][0]["tool"] != "read":
            break
        follow = a["next"][0]
        assert follow["tool"] == "read"
        a = store.read(**follow["arguments"])  # the arguments pass straight back
        seen += shown_lines(a)
        content += a["content"]
        if seen[-1][1] == 3000:
            break
    assert seen[0][0] == 1 and seen[-1][1] == 3000
    assert all(b[0] == a_[1] + 1 for a_, b in zip(seen, seen[1:])), seen
    assert content == output
    # call/follow reach the same answers by tool name.
    again = store.follow({"tool": "read", "arguments": {"ref": a["ref"], "line": 2999}})
    assert again["content"] == "line 2999\nline 3000\n"
    assert again["complete"] is False and again["reason"]["code"] == "requested_range"


def test_bytes_and_invalid_utf8_are_stored_exactly(store):
    data = b"caf\xc3\xa9\n\xff\xfe broken\nend\n"
    a = store.put(data, desc="bytes")
    assert a["total"]["bytes"] == len(data)
    assert a["complete"] is True
    w = store.read(ref=a["ref"], byte_offset=0, max_bytes=6)
    assert w["content"] == "café\n"


def test_search_counts_every_hit_of_the_whole_and_pages_by_cursor(store):
    a = store.put(lines(20000, "row {} status=ok") + "row 20001 status=504\n", desc="rows")
    s = store.search("status=504", ref=a["ref"], literal=True)
    assert s["hit_count"] == 1 and s["hit_count_exact"] is True
    assert s["hits"][0]["line"] == 20001
    assert s["scope"]["whole"] is True and s["scope"]["lines_searched"] == 20001
    many = store.search(r"row \d+0 ", ref=a["ref"], limit=10)
    assert many["hit_count"] == 2000 and many["truncated"] is True
    assert [h["line"] for h in many["hits"]] == list(range(10, 101, 10))
    cont = store.follow(many["next"][0])
    assert [h["line"] for h in cont["hits"]][:2] == [110, 120]
    none = store.search("absent-word", ref=a["ref"])
    assert none["hit_count"] == 0 and none["hits"] == []
    assert "20,001 lines" in none["text"]  # zero hits say where they looked


def test_a_word_query_ranks_the_passage_without_its_exact_words(store):
    doc = lines(400, "filler paragraph {} about nothing in particular")
    doc += "The connection pool times out after thirty seconds of idle waiting.\n"
    doc += lines(400, "more filler {} text")
    a = store.put(doc, desc="docs page")
    s = store.search(query="pool idle timeout", ref=a["ref"])
    assert s["hits"][0]["line"] == 401
    r = store.read(ref=a["ref"], query="connection pool idle")
    assert r["found"]["best"][0]["start_line"] == 401
    assert "The connection pool times out" in r["content"]


def test_jq_counts_a_stored_list_in_one_call(store):
    rows = [{"id": i, "status": 504 if i % 7 == 0 else 200} for i in range(3000)]
    a = store.put(json.dumps(rows), desc="rows as json")
    q = store.query(a["ref"], "map(select(.status == 504)) | length")
    assert q["content"].strip() == str(sum(1 for r in rows if r["status"] == 504))
    assert q["complete"] is True


def test_a_program_that_recurses_without_end_ends_only_its_box(store):
    # Before the box (issue 39) this ended the Python process with SIGABRT.
    a = store.put("[1,2,3]", desc="a list")
    with pytest.raises(spool.SpoolError) as err:
        store.query(a["ref"], "def f: [f]; f")
    assert err.value.code == "invalid_argument", err.value
    assert "recursed deeper than" in err.value.message
    assert store.query(a["ref"], "length")["content"].strip() == "3"


def test_run_keeps_the_real_head_and_tail_and_the_exit_code(store, root):
    a = store.run("seq 1 3000; echo 'error: the real failure' >&2; exit 3", preview="head_tail")
    assert a["source"]["kind"] == "exec"
    assert a["source"]["version"]["exit_code"] == 3
    assert a["total"]["lines"] == 3001
    assert "error: the real failure" in a["content"]
    assert shown_lines(a)[0][0] == 1 and shown_lines(a)[-1][1] == 3001
    argv = store.run(["printf", "%s\\n", "a b", "c"])
    assert argv["content"] == "a b\nc\n" and argv["complete"] is True
    assert store.run("pwd")["content"].strip() == str(root.resolve())


def test_read_of_a_file_snapshots_it_once(store, root):
    f = root / "notes.txt"
    f.write_text(lines(100))
    a = store.read(path=str(f))
    assert a["complete"] is True and a["source"]["kind"] == "file"
    assert "sha256" in a["source"]["version"]
    f.write_text("changed\n")
    # The ref reads the copy it was made from, not the changed file.
    assert store.read(ref=a["ref"], line=1, limit=1)["content"] == "line 1\n"
    page = store.list(str(root))
    assert [e["name"] for e in page["items"]] == ["notes.txt"]


def test_artifacts_and_audit_say_what_was_stored_and_delivered(store):
    a = store.put(lines(3000), desc="audited")
    store.read(ref=a["ref"], line=10, limit=5)
    refs = [i["ref"] for i in store.artifacts()["items"]]
    assert a["ref"] in refs
    report = store.audit(a["ref"])
    assert report["ref"] == a["ref"]
    assert [r["tool"] for r in report["answers"]] == ["put", "read"]
    assert report["never_delivered_lines"]  # most of it was never shown
    recent = store.audit()
    # Newest first; an audit is an answer too. A confined store sees the answers it gave and
    # those about artifacts it may read.
    assert [r["tool"] for r in recent[:4]] == ["audit", "artifacts", "read", "put"]
    assert {r["made_by"] for r in recent} == {"python:" + store.roots[0]}


@pytest.mark.parametrize(
    "call, code, words",
    [
        (lambda s: s.read(ref="sp_doesnotexist"), "not_found", "sp_doesnotexist"),
        (lambda s: s.read(path="/etc/passwd"), "forbidden", "outside"),
        (lambda s: s.search("(unclosed", ref="sp_x"), "invalid_argument", "regex"),
        (lambda s: s.read(), "invalid_argument", "either `ref` or `path`"),
        (lambda s: s.call("nosuchtool", {}), "invalid_argument", "no tool"),
        (lambda s: s.call("read", {"ref": "sp_x", "lines": 3}), "invalid_argument", "lines"),
        (lambda s: s.put("x", desc="d", preview="middle"), "invalid_argument", "head_tail"),
        (lambda s: s.put("x", desc="d", max_tokens=10), "invalid_argument", "at least"),
        (lambda s: s.call("list", {"path": float("nan")}), "invalid_argument", "not JSON"),
        (lambda s: s.call("search", {"ref": "sp_x", "pattern": 7}), "invalid_argument", "`pattern`: invalid type"),
        (lambda s: s.follow({"tool": "search", "arguments": {"ref": "sp_x", "pattern": "<regex>"}}),
         "invalid_argument", "stand-in"),
    ],
)
def test_bad_input_raises_a_clear_error(store, call, code, words):
    with pytest.raises(spool.SpoolError) as err:
        call(store)
    e = err.value
    assert e.code == code, e
    assert words in e.message + (e.hint or "")
    assert e.text.startswith(f"[ERROR {code}: ")
    assert e.hint  # every error says what to do
    # The store stays usable after an error.
    assert store.put("still here\n", desc="after")["complete"] is True


def test_a_store_refuses_a_bad_cap_and_a_root_that_does_not_exist(home, tmp_path):
    with pytest.raises(spool.SpoolError) as err:
        spool.Store(max_tokens=5)
    assert err.value.code == "invalid_argument"
    with pytest.raises(spool.SpoolError) as err:
        spool.Store(roots=[tmp_path / "missing"])
    assert err.value.code == "not_found"


def test_errors_pickle(store):
    import pickle

    with pytest.raises(spool.SpoolError) as err:
        store.read(ref="sp_doesnotexist")
    back = pickle.loads(pickle.dumps(err.value))
    assert (back.code, back.message, back.hint) == (err.value.code, err.value.message, err.value.hint)


def test_the_gil_is_released_while_a_command_runs(store):
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    t = threading.Thread(target=tick)
    t.start()
    started = time.monotonic()
    store.run("sleep 0.5")
    ended = time.monotonic()
    stop.set()
    t.join()
    during = [x for x in ticks if started < x < ended]
    assert len(during) >= 10, len(during)


def test_ctrl_c_stops_a_running_command_and_keeps_what_it_printed(store):
    import os
    import signal

    timer = threading.Timer(1.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        store.run("echo before-the-interrupt; sleep 30; echo never")
    assert time.monotonic() - started < 10
    newest = store.artifacts(kind="exec")["items"][0]
    kept = store.read(ref=newest["ref"])
    assert kept["content"] == "before-the-interrupt\n"
    assert kept["reason"]["code"] == "cancelled" or "cancel" in kept["text"]


def test_honest_returns_the_text_the_model_should_read(home):
    small = spool.honest("three\nlines\nhere\n", desc="tiny")
    assert small.startswith("[COMPLETE: 3 lines")
    assert small.endswith("three\nlines\nhere\n")
    big = spool.honest(lines(10000), desc="huge", max_tokens=600)
    first = big.splitlines()[0]
    assert first.startswith("[PARTIAL: lines 1-") and "of 10,000 lines" in first
    assert "Do not conclude that something is absent" in big


def test_a_query_of_only_common_words_is_refused_before_any_work(store):
    a = store.put(lines(100), desc="rows")
    with pytest.raises(spool.SpoolError) as err:
        store.search(query="the of and", ref=a["ref"])
    assert err.value.code == "invalid_argument"
    assert "common" in err.value.message


def test_home_round_trips_and_names_one_store(home, root):
    st = spool.Store(home=home, roots=root)  # a lone path is one root, not its characters
    assert st.home == str(home) and st.roots == [str(root.resolve())]
    a = st.put("kept\n", desc="once")
    again = spool.Store(home=st.home, roots=[root])
    assert again.read(ref=a["ref"])["content"] == "kept\n"
    assert str(home) in repr(st)


def test_a_store_reads_its_own_homes_settings_not_the_defaults(tmp_path, monkeypatch, root):
    default = tmp_path / "default-home"
    default.mkdir()
    # A broken settings file at the default home must not touch a store opened elsewhere.
    (default / "spool.toml").write_text("[store]\nurl = 'not a bucket'\n")
    monkeypatch.setenv("SPOOL_HOME", str(default))
    monkeypatch.delenv("SPOOL_CONFIG", raising=False)
    monkeypatch.delenv("SPOOL_STORE", raising=False)
    elsewhere = tmp_path / "elsewhere"
    st = spool.Store(home=elsewhere, roots=[root])
    assert st.put("ok\n", desc="d")["complete"] is True
    with pytest.raises(spool.SpoolError) as err:
        spool.Store(roots=[root])  # the default home's own settings are read, and refused
    assert err.value.code == "invalid_argument"


def test_empty_roots_are_refused_not_widened(home):
    with pytest.raises(spool.SpoolError) as err:
        spool.Store(roots=[])
    assert err.value.code == "invalid_argument" and "roots" in err.value.message


def test_a_store_reads_and_audits_only_what_it_may(home, tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    a = spool.Store(roots=[one])
    b = spool.Store(roots=[two])
    made = a.run("echo secret-output")
    with pytest.raises(spool.SpoolError) as err:
        b.read(ref=made["ref"])
    assert err.value.code == "forbidden"
    with pytest.raises(spool.SpoolError) as err:
        b.audit(made["ref"])
    assert err.value.code == "forbidden" and "secret" not in err.value.text
    # Nor a's answers among the latest: b sees only its own (its refused read included).
    assert {r["made_by"] for r in b.audit()} == {"python:" + b.roots[0]}
    with pytest.raises(spool.SpoolError):
        b.read(ref="sp_doesnotexist")
    assert b.audit()[0]["reason"] == "not_found"  # its own errors, which name no artifact, it sees
    assert a.audit(made["ref"])["answers"][0]["tool"] == "run"
    trusting = spool.Store(roots=[two], trust="python:*")  # a lone string is one principal
    assert trusting.read(ref=made["ref"])["content"] == "secret-output\n"


def test_no_run_leaves_run_out(home, root):
    st = spool.Store(roots=[root], no_run=True)
    with pytest.raises(spool.SpoolError) as err:
        st.run("echo hi")
    assert err.value.code == "invalid_argument" and "no tool `run`" in err.value.message
    assert "run" not in err.value.hint.split("are ", 1)[1].split(", ")


def test_run_withholds_secret_variables_unless_the_harness_passes_them(home, root, monkeypatch):
    monkeypatch.setenv("DEPLOY_TOKEN", "tok-0123456789-abcdef")
    monkeypatch.setenv("PLAIN_SETTING", "visible")
    shown = "echo t=$DEPLOY_TOKEN p=$PLAIN_SETTING; printf %s tok-0123456789-abcdef"
    a = spool.Store(roots=[root]).run(shown)
    assert a["content"] == "t= p=visible\n[withheld: DEPLOY_TOKEN]", a["content"]
    assert "DEPLOY_TOKEN" in a["source"]["version"]["env_withheld"]
    # The harness passes what a command needs; a model's call cannot (no argument reaches it).
    b = spool.Store(roots=[root], env_pass=["DEPLOY_TOKEN"]).run(shown)
    assert b["content"] == "t=tok-0123456789-abcdef p=visible\ntok-0123456789-abcdef"
    with pytest.raises(spool.SpoolError) as err:
        spool.Store(roots=[root]).call("run", {"command": "env", "env_pass": ["DEPLOY_TOKEN"]})
    assert err.value.code == "invalid_argument"


def test_explicit_nulls_mean_the_default_and_argv_is_a_keyword(store):
    a = store.call("run", {"argv": ["echo", "x"], "cwd": None, "timeout_s": None})
    assert a["content"] == "x\n"
    b = store.run(argv=["printf", "y"])
    assert b["content"] == "y"


def test_follow_fills_the_stand_in_a_printed_search_holds(store):
    a = store.put(lines(5000), desc="rows")
    # `next` holds only calls that run as printed; the search by a regex of yours is a template.
    assert all(spool.PLACEHOLDER not in n["arguments"].values() for n in a["next"])
    search = next(n for n in a["next_templates"] if n["tool"] == "search")
    assert search["arguments"]["pattern"] == spool.PLACEHOLDER
    found = store.follow(search, pattern="^line 4999$")
    assert found["hit_count"] == 1 and found["hits"][0]["line"] == 4999


def test_map_ranks_what_the_code_uses_first_and_its_pages_reach_every_file_once(store, root):
    src = root / "src"
    src.mkdir()
    (src / "core.py").write_text(
        "class Engine:\n    def start(self):\n        pass\n\ndef make_engine():\n    return Engine()\n"
    )
    for i in range(40):
        (src / f"user_{i:02}.py").write_text(
            f"from core import make_engine, Engine\n\ndef job_{i}():\n    make_engine().start()\n"
        )
    (src / "notes.md").write_text("# notes\n")
    first = store.map("src", max_tokens=800)
    assert first["complete"] is False
    assert first["notice"].startswith("[PARTIAL MAP: files 1-")
    assert first["content"].startswith("src/core.py (3 definitions)\n")
    assert "class Engine:" in first["content"]
    scope = first["scope"]
    assert scope["files_counted"] == 42
    assert scope["files_mapped"] == 41
    assert scope["files_skipped"] == {"no_grammar": 1, "ignored": 0, "hidden": 0}
    # Every file once, following the cursor the answer offers (first in `next`).
    seen = []
    page = first
    for _ in range(100):
        seen += [l.split(" (")[0] for l in page["content"].splitlines() if not l.startswith(" ")]
        # The last page offers no cursor (its search is a template, not a `next` call).
        steps = page["next"]
        if not steps or "cursor" not in steps[0]["arguments"]:
            break
        page = store.follow(steps[0])
    assert sorted(seen) == sorted(
        ["src/core.py", "src/notes.md"] + [f"src/user_{i:02}.py" for i in range(40)]
    )
    # A file maps as its outline; a bad cursor is a clear error.
    outline = store.map("src/core.py")
    assert outline["complete"] is True
    assert outline["content"].splitlines()[1:] == [
        "  1: class Engine:",
        "  2:     def start(self):",
        "  5: def make_engine():",
    ]
    with pytest.raises(spool.SpoolError) as e:
        store.map("src", cursor="forged")
    assert e.value.code == "invalid_argument"


def test_a_search_names_its_glob_counts_per_file_and_reaches_ignored_files(store, root):
    (root / "src").mkdir()
    (root / "build").mkdir()
    (root / "src" / "a.py").write_text("timeout = 3\ntimeout += 1\n")
    (root / "src" / "b.py").write_text("retries = 2\n")
    (root / "build" / "out.txt").write_text("timeout 9\n")
    (root / "docs.md").write_text("the timeout is 3 seconds\n")
    (root / ".gitignore").write_text("build/\n")
    import subprocess

    subprocess.run(["git", "init", "-q", str(root)], check=True)
    inside = store.search("timeout", path=root, glob=["src/**"])
    assert inside["scope"]["globs"] == ["src/**"]
    assert inside["scope"]["files_skipped"]["outside_glob"] == 1  # docs.md
    assert inside["scope"]["files_skipped"]["ignored"] == 1  # build/out.txt
    assert inside["hit_count"] == 2
    counts = store.search("timeout", path=root, count=True)
    assert counts["files"] == [{"path": "docs.md", "hits": 1}, {"path": "src/a.py", "hits": 2}]
    assert counts["files_with_hits"] == 2 and counts["hit_count"] == 3
    everything = store.search("timeout", path=root, no_ignore=True)
    assert everything["hit_count"] == 4
    # A search that finds nothing inside the glob offers the one without it, which runs.
    none = store.search("seconds", path=root, glob=["src/**"])
    assert none["hit_count"] == 0
    wider = next(n for n in none["next"] if "glob" not in n["arguments"])
    assert store.follow(wider)["hit_count"] == 1


def test_the_jq_box_never_imports_a_spool_package_from_the_working_directory(store, tmp_path, monkeypatch):
    # Regression (review of issue 39): `python -m spool._cli` put the working directory first
    # on the import path, so a workspace's own `spool/` ran its code on every query.
    fake = tmp_path / "spool"
    fake.mkdir()
    marker = tmp_path / "imported"
    (fake / "__init__.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    (fake / "_cli.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    a = store.put("[1,2,3]", desc="a list")
    assert store.query(a["ref"], "length")["content"].strip() == "3"
    assert not marker.exists()


def test_the_packages_code_types_are_the_contracts_one_list():
    # The `Literal` types a harness checks against, and the codes spool-core answers with.
    import typing

    from spool import _native, _types

    assert list(typing.get_args(_types.ErrorCode)) == list(_native.ERROR_CODES)
    assert list(typing.get_args(_types.ReasonCode)) == list(_native.REASON_CODES)
    assert list(typing.get_args(_types.Unit)) == list(_native.UNITS)
    for code in _native.ERROR_CODES:
        assert f"``{code}``" in spool.SpoolError.__doc__, code


def test_each_tool_method_takes_the_arguments_its_schema_lists():
    # A tool's method on `Store` and its table entry (the input schema MCP hosts list) name the
    # same arguments: one added to the tool and not to the method fails here.
    import inspect

    from spool import _native

    table = json.loads(_native.tools())
    names = [t["name"] for t in table]
    assert names == ["read", "search", "query", "list", "artifacts", "run", "fetch", "ci_log", "map"]
    for tool in table:
        method = getattr(spool.Store, tool["name"])
        params = set(inspect.signature(method).parameters) - {"self"}
        assert params == set(tool["input_schema"]["properties"]), tool["name"]
        assert tool["description"], tool["name"]
