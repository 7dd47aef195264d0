"""The package's TypedDicts are held to docs/schemas/answers.json, the JSON Schemas derived from
the Rust answer types (and checked against them by spool-core's tests): a field the answers
send and the TypedDict lacks, or a key required in one and optional in the other, fails here."""

import json
import typing
from pathlib import Path

import pytest

from spool import _types

SCHEMAS = json.loads(
    (Path(__file__).resolve().parents[2] / "docs" / "schemas" / "answers.json").read_text()
)
DEFS = SCHEMAS["$defs"]

# The Python package adds ``text`` to every answer: the text a text-only host forwards.
PYTHON_ONLY = {"text"}


def definition(name):
    ref = SCHEMAS[name]["$ref"] if name in SCHEMAS else f"#/$defs/{name}"
    return DEFS[ref.removeprefix("#/$defs/")]


@pytest.mark.parametrize(
    "typed, schema",
    [
        (_types.Envelope, "envelope"),
        (_types.ItemPage, "items"),
        (_types.SearchAnswer, "search"),
        (_types.Page, "entries"),
        (_types.Page, "artifacts"),
        (_types.ErrorAnswer, "error"),
        (_types.Range, "Range"),
        (_types.Totals, "Totals"),
        (_types.Reason, "Reason"),
        (_types.NextCall, "NextCall"),
        (_types.Source, "Source"),
        (_types.CaptureNote, "CaptureNote"),
        (_types.Found, "Found"),
        (_types.FoundAt, "FoundAt"),
        (_types.Hit, "Hit"),
        (_types.FileCount, "FileCount"),
        (_types.ErrorBody, "ErrorBody"),
    ],
)
def test_a_typeddict_has_the_fields_of_its_schema(typed, schema):
    d = definition(schema)
    # Only a whole answer carries the package's ``text`` (a hit's ``text`` is its line).
    own = PYTHON_ONLY if schema in SCHEMAS and schema != "error" else set()
    keys = set(typing.get_type_hints(typed, include_extras=True)) - own
    assert keys == set(d["properties"]), f"{typed.__name__} vs {schema}"
    required = set(typed.__required_keys__) - own
    assert required == set(d.get("required", [])), f"{typed.__name__} vs {schema}"


@pytest.mark.parametrize(
    "literal, schema",
    [
        (_types.Unit, "Unit"),
        (_types.ReasonCode, "ReasonCode"),
        (_types.ErrorCode, "ErrorCode"),
        (_types.SourceKind, "SourceKind"),
        (_types.ArtifactState, "ArtifactState"),
    ],
)
def test_a_literal_lists_the_values_of_its_schema(literal, schema):
    assert list(typing.get_args(literal)) == DEFS[schema]["enum"]
