"""Each spelling irpool reads is also given to OpenVINO (`read_model` + CPU `compile_model`),
and the verdicts must agree: a file OpenVINO refuses gets an error, one that it loads gets
no error whose rule claims OpenVINO rejects it, and a spelling of the same number (`4.0`,
`+4`) gets no error at all."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import irpool
from irpool.rules import RULES, Severity
from tests.differential.openvino_worker import Oracle
from tests.ir import pool_model, write

pytest.importorskip("openvino")

pytestmark = pytest.mark.oracle

EDGE = '<edge from-layer="0" from-port="0" to-layer="1" to-port="0" />'
# Where a spelling goes: the text it replaces and a template for the new text.
PLACES = {
    "dim": ("<dim>4</dim>", "<dim>{}</dim>"),
    "kernel": ('kernel="1, 1"', 'kernel="{}, 1"'),
    "strides": ('strides="1, 1"', 'strides="1, {}"'),
    "shape": ('shape="1,2,4,4"', 'shape="1,2,4,{}"'),
    "from-port": (EDGE, EDGE.replace('from-port="0"', 'from-port="{}"')),
    "opset": ('type="AvgPool" version="opset1"', 'type="AvgPool" version="opset{}"'),
    "same_upper pads": (
        'pads_begin="0, 0" pads_end="0, 0" exclude-pad="false" auto_pad="explicit"',
        'pads_begin="{}, 0" pads_end="0, 0" exclude-pad="false" auto_pad="same_upper"',
    ),
    "v1 dilations": ('rounding_type="floor"', 'rounding_type="floor" dilations="{}, 1"'),
}
# (place, spelling, whether it is the same number the file means: then no error at all)
SPELLINGS = [
    *(("dim", text, True) for text in ("4.0", "4.00", "4e0", "4.", "+4", "04", " 4", "4 ")),
    *(("dim", text, False) for text in ("4.7", "4e1", "4x", "\uff14", "\u0664", "\u00a04")),
    *(("kernel", text, True) for text in ("1.0", "1.00", "1e0", "01", " 1")),
    *(("kernel", text, False) for text in ("+1", "1.7", "1x", "\uff11", "\u00a01")),
    *(("strides", text, False) for text in ("\u0661", "1e1")),
    *(("shape", text, True) for text in ("04", " 4", "4 ")),
    *(("shape", text, False) for text in ("4.0", "+4", "\uff14", "\u30004")),
    *(("from-port", text, True) for text in (" 0", "+0", "00")),
    *(("from-port", text, False) for text in ("0 ", "\uff10")),
    *(("opset", text, False) for text in ("01", "\u0661")),
    *(("same_upper pads", text, True) for text in ("7", "-2", "2.7")),
    *(("same_upper pads", text, False) for text in ("a", "2,")),
    *(("v1 dilations", text, True) for text in ("1", "1.0")),
    ("v1 dilations", "2", False),
]


@pytest.fixture(scope="module")
def oracle() -> Iterator[Oracle]:
    judge = Oracle()
    yield judge
    judge.close()


@pytest.mark.parametrize(
    ("place", "spelling", "same"), SPELLINGS, ids=[f"{p}={s!r}" for p, s, _ in SPELLINGS]
)
def test_verdicts_agree_with_openvino(
    tmp_path: Path, oracle: Oracle, place: str, spelling: str, same: bool
) -> None:
    old, template = PLACES[place]
    text = pool_model(kernel=1)
    assert old in text
    path = write(tmp_path, text.replace(old, template.format(spelling), 1))
    try:
        found = irpool.load(path).validate()
    except irpool.IRError as error:
        found = error.diagnostics
    errors = [d for d in found if d.severity is Severity.ERROR]
    verdict = oracle.judge(path)
    if verdict.rejected:
        assert errors, f"OpenVINO refuses it ({verdict.message}), irpool gives no error"
    else:
        assert all(RULES[d.code].runtime != "rejects" for d in errors), errors
    if same:
        assert not errors, errors
