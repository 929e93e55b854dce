"""Which layer types OpenVINO's IR reader creates for each `version`, whether irpool models
them or not. The table is data (opsets.json), generated from the runtime by
tools/gen_opsets.py and checked against it by tests/ops/test_opsets.py."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_TABLE = Path(__file__).with_name("opsets.json")


@dataclass(frozen=True, slots=True)
class _Version:
    types: frozenset[str]  # as the opset spells them
    by_lower: dict[str, str]  # lower case -> the type, for those matched ignoring case
    exact: frozenset[str]  # matched only as written


@dataclass(frozen=True, slots=True)
class _Table:
    openvino: str
    versions: dict[str, _Version]
    spellings: dict[str, str]  # IR spelling -> the op it names ("Const" -> "Constant")


@cache
def _table() -> _Table:
    raw = json.loads(_TABLE.read_text(encoding="utf-8"))
    versions = {}
    for version, entry in raw["versions"].items():
        exact = frozenset(entry["exact"])
        types = frozenset(entry["types"])
        by_lower = {name.lower(): name for name in types - exact}
        versions[version] = _Version(types, by_lower, exact)
    return _Table(raw["openvino"], versions, raw["ir_spellings"])


def openvino_version() -> str:
    """The OpenVINO release the table was generated from."""
    return _table().openvino


def known_versions() -> list[str]:
    return list(_table().versions)


def op_types() -> frozenset[str]:
    """Every op type some version has, as spelled there, and the IR's own spellings ("Const")."""
    table = _table()
    return frozenset().union(*(entry.types for entry in table.versions.values()), table.spellings)


def reader_refusal(type_name: str, version: str) -> str | None:
    """Why OpenVINO's IR reader refuses a layer of this type and version (None: it creates
    the op). Only layers that feed a Result are created, so only theirs are refused."""
    table = _table()
    entry = table.versions.get(version)
    if entry is None:
        numbered = [v for v in table.versions if v.startswith("opset")]
        others = ", ".join(v for v in table.versions if not v.startswith("opset"))
        return (
            f'"{version}" is no version OpenVINO knows ({numbered[0]}..{numbered[-1]}, '
            f'or {others} for a few ops), so it has no op type "{type_name}"'
        )
    if type_name in entry.exact:
        return None
    found = entry.by_lower.get(type_name.lower())
    named = {op.lower(): spelling for spelling, op in table.spellings.items()}
    if found is not None and found.lower() in named:
        spelling = named[found.lower()]
        return (
            f'OpenVINO reads the value of a {found} only from a layer typed "{spelling}"; '
            f'a "{type_name}" layer has no value'
        )
    if found is not None:
        return None
    return f'{version} has no op type "{type_name}"{_hint(table, entry, type_name)}'


# The op types openvino_tokenizers 2026.4 registers (read from its library), which it writes
# with version "extension" into the tokenizer files optimum-cli exports.
TOKENIZER_OPS = frozenset(
    {
        "BPETokenizer", "ByteFallback", "CaseFold", "CharsToBytes", "CombineSegments",
        "EqualStr", "FuzeRagged", "NormalizeUnicode", "RaggedTensorPack", "RaggedToDense",
        "RaggedToRagged", "RaggedToSparse", "RegexNormalization", "RegexSplit",
        "SentencepieceDetokenizer", "SentencepieceStreamDetokenizer", "SentencepieceTokenizer",
        "SpecialTokensSplit", "StringTensorPack", "StringTensorUnpack", "TrieTokenizer",
        "Truncate", "UTF8Validate", "UnigramTokenizer", "VocabDecoder", "VocabEncoder",
        "WordpieceTokenizer",
    }
)  # fmt: skip


def extension_op(type_name: str, version: str) -> str | None:
    """The extension library that defines a layer's op, which OpenVINO reads only with that
    library loaded: an openvino_tokenizers type of version `extension` (its StringTensorUnpack
    too, which opset15 also has), or another type of that version no opset has (None: an op
    of OpenVINO itself, or a layer it refuses whatever is loaded)."""
    table = _table()
    entry = table.versions.get("extension")
    if version != "extension" or entry is None or type_name in entry.types:
        return None
    if type_name in TOKENIZER_OPS:
        return "openvino_tokenizers"
    lower = type_name.lower()
    if any(lower in other.by_lower or lower in other.exact for other in table.versions.values()):
        return None  # a real op written with the wrong version: refused
    return "an extension library"


def _hint(table: _Table, entry: _Version, type_name: str) -> str:
    """Where the type can be found: its exact spelling, or the versions that have it."""
    lower = type_name.lower()
    spelled = [name for name in entry.exact if name.lower() == lower]
    if spelled:
        return f' (types are matched ignoring case, but this one only as "{spelled[0]}")'
    having = [
        version
        for version, other in table.versions.items()
        if lower in other.by_lower or any(name.lower() == lower for name in other.exact)
    ]
    return f"; it is in {_spans(having)}" if having else "; no opset has it"


def _spans(versions: list[str]) -> str:
    """opset3, opset4, opset5, extension -> "opset3..opset5, extension"."""
    runs: list[list[str]] = []
    for version in versions:
        number = version.removeprefix("opset")
        previous = runs[-1][-1].removeprefix("opset") if runs else ""
        if number.isdigit() and previous.isdigit() and int(number) == int(previous) + 1:
            runs[-1].append(version)
        else:
            runs.append([version])
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}..{run[-1]}" for run in runs)
