"""The SARIF 2.1.0 schema the SARIF reports are checked against (tests/schemas/)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

SARIF_SCHEMA = Path(__file__).resolve().parents[1] / "schemas" / "sarif-schema-2.1.0.json"


def sarif_schema() -> jsonschema.protocols.Validator:
    """The official schema (draft-04), checking formats such as `uri` where it can."""
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    return validator(schema, format_checker=validator.FORMAT_CHECKER)
