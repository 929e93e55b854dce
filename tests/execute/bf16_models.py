"""The model the bf16 input and output tests share (tests/execute/test_bf16_io.py, the live
tests/differential/test_bf16_io.py): a KV cache's step as a nonstateful int8 export writes it,
with a bf16 past_key_values input and a bf16 present output."""

from __future__ import annotations

from pathlib import Path

from tests import ir

PAST = "past_key_values.0.key"  # the tensor name; the Parameter layer is named as exporters do
DEPTH = 4


def kv_model(directory: Path) -> Path:
    """past (bf16 [1,1,?,4]) ++ Convert(x, bf16) on axis 2 -> present (bf16), and logits: the
    cache summed over its tokens in f32 -> [1,1,4]."""
    cache, step, summed = [1, 1, -1, DEPTH], [1, 1, 1, DEPTH], [1, 1, DEPTH]
    to_bf16, to_f32 = (ir.data([("destination_type", t)]) for t in ("bf16", "f32"))
    past = ir.layer(
        0, "Parameter_7", "Parameter", "opset1",
        ir.data([("shape", f"1,1,?,{DEPTH}"), ("element_type", "bf16")]),
        outputs=[ir.typed_port(0, "bf16", cache, names=PAST)],
    )  # fmt: skip
    layers = [
        past,
        ir.parameter(1, "x", step),
        ir.typed_layer(2, "Convert", [("f32", step)], ("bf16", step), to_bf16),
        ir.layer(
            3, "l3", "Concat", "opset1", ir.data([("axis", "2")]),
            [ir.typed_port(0, "bf16", cache), ir.typed_port(1, "bf16", step)],
            [ir.typed_port(2, "bf16", cache, names="present.0.key")],
        ),
        ir.layer(4, "present", "Result", "opset1", inputs=[ir.typed_port(0, "bf16", cache)]),
        ir.typed_layer(5, "Convert", [("bf16", cache)], ("f32", cache), to_f32),
        ir.const(6, "axes", [2]),
        ir.layer(
            7, "l7", "ReduceSum", "opset1", ir.data([("keep_dims", "false")]),
            [ir.typed_port(0, "f32", cache), ir.typed_port(1, "i64", [1])],
            [ir.typed_port(2, "f32", summed, names="logits")],
        ),
        ir.result(8, "logits_result", summed),
    ]  # fmt: skip
    edges = [(1, 0, 2, 0), (0, 0, 3, 0), (2, 1, 3, 1), (3, 2, 4, 0), (3, 2, 5, 0), (5, 1, 7, 0)]
    edges += [(6, 0, 7, 1), (7, 2, 8, 0)]
    text = ir.net(layers, [ir.edge(*e) for e in edges])
    return ir.write(directory, text, ir.weights([2]))
