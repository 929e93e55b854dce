"""Generate the golden corpus in ``tests/golden/`` with the real OpenVINO runtime.

The corpus is the oracle that irpool's parser and shape inference are tested against:

* ``models/<case>.xml`` + ``.bin``: small IR models built with OpenVINO's Python op builders
  (AvgPool-1/-14/-16, AdaptiveAvgPool-8) and written by ``ov.save_model``.
* ``expected.json``: for every model, each layer's type, opset, output partial shapes and output
  element types, as reported by ``ov.Core().read_model`` on the *saved* file.

Regenerate (needs ``pip install -e '.[oracle]'``) with::

    python tools/gen_golden.py            # writes tests/golden/
    python tools/gen_golden.py --out DIR  # writes DIR/ instead

The output is deterministic for a given OpenVINO version. The saved XML records that version in its
``rt_info``, so regenerating with another release rewrites every model; the committed corpus was
produced with OpenVINO 2026.4.1.
"""

from __future__ import annotations

import argparse
import json
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from corpus import check_unique, warn_if_untested
from ov_builders import (
    K3S2P1,
    PoolWindow,
    adaptive_avg_pool,
    adaptive_name,
    avg_pool,
    avg_pool_name,
    chain_three_versions,
    output_size_const,
    ov,
    parameter,
    result,
    shared_input_two_outputs,
    two_inputs_two_outputs,
)

DEFAULT_OUT = Path("tests/golden")


class Case(Protocol):
    """One golden model: a unique file stem and a function that builds the model."""

    @property
    def name(self) -> str: ...

    def build(self) -> ov.Model: ...


# --------------------------------------------------------------------------------------------
# Case kinds
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AvgPoolCase:
    """Parameter "in" -> AvgPool "pool" -> Result "out", named after its attributes."""

    version: int
    shape: str
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    pads_begin: tuple[int, ...] | None = None
    pads_end: tuple[int, ...] | None = None
    auto_pad: str = "explicit"
    rounding: str = "floor"
    exclude_pad: bool = True
    dilations: tuple[int, ...] | None = None
    element_type: str = "f32"
    tag: str = ""

    @property
    def name(self) -> str:
        return avg_pool_name(
            self.version, self.kernel, self.auto_pad, self.rounding, self.exclude_pad,
            self.dilations, self.element_type, self.tag,
        )  # fmt: skip

    def build(self) -> ov.Model:
        data = parameter("in", self.shape, self.element_type)
        pool = avg_pool(
            "pool",
            data,
            self.version,
            self.kernel,
            self.strides,
            self.pads_begin,
            self.pads_end,
            auto_pad=self.auto_pad,
            rounding=self.rounding,
            exclude_pad=self.exclude_pad,
            dilations=self.dilations,
        )
        return ov.Model([result("out", pool)], [data], self.name)


@dataclass(frozen=True)
class AdaptiveCase:
    """Parameter "in" + Const "output_size" -> AdaptiveAvgPool "pool" -> Result "out"."""

    shape: str
    output_size: tuple[int, ...]
    index_type: str = "i64"
    element_type: str = "f32"
    tag: str = ""

    @property
    def name(self) -> str:
        return adaptive_name(self.output_size, self.index_type, self.element_type, self.tag)

    def build(self) -> ov.Model:
        data = parameter("in", self.shape, self.element_type)
        size = output_size_const("output_size", self.output_size, self.index_type)
        pool = adaptive_avg_pool("pool", data, size)
        return ov.Model([result("out", pool)], [data], self.name)


@dataclass(frozen=True)
class GraphCase:
    """A hand-written graph for what the single-op kinds cannot express."""

    name: str
    builder: Callable[[str], ov.Model]

    def build(self) -> ov.Model:
        return self.builder(self.name)


# --------------------------------------------------------------------------------------------
# Hand-written graphs
# --------------------------------------------------------------------------------------------


def adaptive_runtime_output_size(name: str) -> ov.Model:
    """output_size is a second Parameter, so the spatial dims are only known at run time."""
    data = parameter("in", "1,3,16,16")
    size = parameter("output_size", "2", "i64")
    pool = adaptive_avg_pool("pool", data, size)
    return ov.Model([result("out", pool)], [data, size], name)


def adaptive_runtime_output_size_dyn_batch(name: str) -> ov.Model:
    """The same with a rank-3 f16 input of dynamic batch and an i32 output_size."""
    data = parameter("in", "?,4,10", "f16")
    size = parameter("output_size", "1", "i32")
    pool = adaptive_avg_pool("pool", data, size)
    return ov.Model([result("out", pool)], [data, size], name)


def chain_avgpool_adaptive(name: str) -> ov.Model:
    """AvgPool-14 (ceil_torch) feeding AdaptiveAvgPool-8 on a dynamic batch."""
    data = parameter("in", "?,3,15,15")
    pool = avg_pool("pool", data, 14, (3, 3), (2, 2), (1, 1), (1, 1), rounding="ceil_torch")
    size = output_size_const("output_size", (4, 4), "i64")
    adaptive = adaptive_avg_pool("adaptive", pool, size)
    return ov.Model([result("out", adaptive)], [data], name)


# --------------------------------------------------------------------------------------------
# The corpus
# --------------------------------------------------------------------------------------------


K2S2P1: PoolWindow = {"kernel": (2, 2), "strides": (2, 2), "pads_begin": (1, 1), "pads_end": (1, 1)}
K3S2P1_1D: PoolWindow = {"kernel": (3,), "strides": (2,), "pads_begin": (1,), "pads_end": (1,)}
R5_MIXED: PoolWindow = {
    "kernel": (2, 3, 4),
    "strides": (1, 2, 3),
    "pads_begin": (0, 1, 0),
    "pads_end": (0, 1, 2),
}

AVG_POOL_1_CASES: tuple[Case, ...] = (
    AvgPoolCase(1, "1,3,15,15", **K3S2P1),
    AvgPoolCase(1, "1,3,15,15", **K3S2P1, exclude_pad=False),
    AvgPoolCase(1, "1,3,15,15", **K3S2P1, rounding="ceil"),
    # The last ceil window starts in the end padding (openvino #18731): 4x4, torch gives 3x3.
    AvgPoolCase(1, "1,1,5,5", **K2S2P1, rounding="ceil", exclude_pad=False),
    AvgPoolCase(
        1, "1,3,16,12", (3, 2), (1, 2), (1, 0), (2, 1), exclude_pad=False, tag="asymmetric"
    ),
    AvgPoolCase(1, "1,3,7,7", (7, 7), (1, 1), tag="global"),
    # Declared pads are ignored under same_* / valid; the serializer writes zeros.
    AvgPoolCase(1, "1,3,32,32", (2, 2), (2, 2), (0, 0), (1, 1), auto_pad="same_upper"),
    AvgPoolCase(1, "1,3,32,32", (5, 5), (2, 2), auto_pad="same_upper", exclude_pad=False),
    AvgPoolCase(1, "1,3,17,17", (4, 4), (1, 1), auto_pad="same_lower"),
    AvgPoolCase(
        1, "1,3,17,17", (4, 4), (3, 3), auto_pad="same_lower", rounding="ceil", exclude_pad=False
    ),
    AvgPoolCase(1, "1,3,32,32", (5, 5), (2, 2), auto_pad="valid"),
    AvgPoolCase(
        1,
        "1,3,9,9",
        (2, 2),
        (2, 2),
        (1, 1),
        (1, 1),
        auto_pad="valid",
        rounding="ceil",
        exclude_pad=False,
        tag="declared_pads",
    ),
    AvgPoolCase(1, "4,8,20", (3,), (2,), (1,), (1,), tag="batch4"),
    AvgPoolCase(1, "1,2,10", (1,), (4,), auto_pad="same_upper", rounding="ceil"),
    AvgPoolCase(1, "1,1,5", (1,), (3,), rounding="ceil", tag="window_past_end"),
    AvgPoolCase(1, "1,2,7,8,9", **R5_MIXED),
    AvgPoolCase(1, "1,2,8,8,8", (3, 3, 3), (2, 2, 2), auto_pad="valid", rounding="ceil"),
    AvgPoolCase(1, "1,3,15,15", **K3S2P1, element_type="f16"),
    AvgPoolCase(1, "1,3,15,15", **K3S2P1, element_type="f64"),
    AvgPoolCase(1, "?,3,16,16", **K3S2P1, tag="dyn_batch"),
    AvgPoolCase(1, "?,?,?,?", **K3S2P1, rounding="ceil", tag="all_dyn"),
    AvgPoolCase(1, "1,3,1..10,4..", **K3S2P1, tag="intervals"),
    AvgPoolCase(1, "1,3,?,16", (2, 2), (2, 2), auto_pad="same_upper", tag="dyn_height"),
    # With a dynamic rank the declared pads are kept as written.
    AvgPoolCase(1, "...", **K3S2P1, tag="dyn_rank"),
    AvgPoolCase(1, "...", (3, 3, 3), (2, 2, 2), auto_pad="same_upper", tag="dyn_rank"),
)

AVG_POOL_14_CASES: tuple[Case, ...] = (
    AvgPoolCase(14, "1,1,5,5", **K2S2P1, rounding="ceil_torch"),
    AvgPoolCase(14, "1,1,5,5", **K2S2P1, rounding="ceil_torch", exclude_pad=False),
    AvgPoolCase(14, "1,1,5,5", **K2S2P1, rounding="ceil", exclude_pad=False),
    AvgPoolCase(14, "1,3,15,15", (3, 3), (2, 2), auto_pad="same_upper", rounding="ceil_torch"),
    AvgPoolCase(
        14,
        "1,3,15,15",
        (4, 4),
        (2, 2),
        auto_pad="same_lower",
        rounding="ceil_torch",
        exclude_pad=False,
    ),
    AvgPoolCase(14, "1,3,15,15", (4, 4), (3, 3), auto_pad="valid", rounding="ceil_torch"),
    AvgPoolCase(14, "1,1,6", **K3S2P1_1D, rounding="ceil_torch", exclude_pad=False),
    # k2 s2 pe1 on length 2: floor 1, ceil 2, ceil_torch 1.
    *(
        AvgPoolCase(14, "1,1,2", (2,), (2,), (0,), (1,), rounding=rounding, tag="pad_end")
        for rounding in ("floor", "ceil", "ceil_torch")
    ),
    # same_upper k1 s4 on length 10: floor 3, ceil 4, ceil_torch 3.
    *(
        AvgPoolCase(14, "1,1,10", (1,), (4,), auto_pad="same_upper", rounding=rounding)
        for rounding in ("floor", "ceil", "ceil_torch")
    ),
    AvgPoolCase(14, "1,1,4", (3,), (1,), auto_pad="same_lower", exclude_pad=False),
    AvgPoolCase(14, "1,1,5", (2,), (2,), auto_pad="valid", rounding="ceil", exclude_pad=False),
    AvgPoolCase(14, "1,1,3", (2,), (1,), (3,), (3,), exclude_pad=False, tag="pads_exceed_kernel"),
    AvgPoolCase(14, "1,2,7,8,9", **R5_MIXED, rounding="ceil"),
    AvgPoolCase(14, "1,2,7,8,9", **R5_MIXED, rounding="ceil_torch", exclude_pad=False),
    AvgPoolCase(
        14, "2,2,6,7,8", (3, 3, 3), (2, 2, 2), auto_pad="same_upper", rounding="ceil_torch"
    ),
    *(
        AvgPoolCase(14, "1,1,1..10", **K3S2P1_1D, rounding=rounding, tag="interval")
        for rounding in ("floor", "ceil", "ceil_torch")
    ),
    AvgPoolCase(14, "1,1,..7", **K3S2P1_1D, tag="upper_bound"),
    *(
        AvgPoolCase(14, "1,1,4..", **K3S2P1_1D, rounding=rounding, tag="lower_bound")
        for rounding in ("floor", "ceil")
    ),
    AvgPoolCase(14, "1,1,?", **K3S2P1_1D, rounding="ceil_torch", tag="dyn"),
    AvgPoolCase(14, "1,1,1..10", (3,), (2,), auto_pad="same_upper", tag="interval"),
    AvgPoolCase(14, "1,1,8", (2,), (2,), element_type="i32"),
    AvgPoolCase(14, "1,3,15,15", **K3S2P1, rounding="ceil_torch", element_type="f16"),
    AvgPoolCase(14, "1,3,15,15", **K3S2P1, rounding="ceil_torch", element_type="f64"),
    AvgPoolCase(14, "...", **K3S2P1, rounding="ceil_torch", tag="dyn_rank"),
    AvgPoolCase(14, "...", (3,), (2,), auto_pad="valid", rounding="ceil_torch", tag="dyn_rank"),
)

AVG_POOL_16_CASES: tuple[Case, ...] = (
    AvgPoolCase(16, "1,3,32,32", (5, 5), (2, 2), (1, 1), (1, 1), dilations=(2, 2)),
    # Without dilations the serializer writes dilations="" (read back as all ones).
    AvgPoolCase(16, "1,3,15,15", **K3S2P1, tag="empty_dilations"),
    *(
        AvgPoolCase(16, "1,1,4", (2,), (1,), (2,), (2,), exclude_pad=exclude, dilations=(3,))
        for exclude in (True, False)
    ),
    AvgPoolCase(16, "1,3,15,15", **K3S2P1, rounding="ceil_torch", dilations=(2, 2)),
    AvgPoolCase(16, "1,3,15,15", **K3S2P1, rounding="ceil", exclude_pad=False, dilations=(2, 2)),
    AvgPoolCase(
        16,
        "1,3,16,16",
        (3, 3),
        (2, 2),
        auto_pad="same_upper",
        rounding="ceil_torch",
        dilations=(2, 2),
    ),
    AvgPoolCase(
        16, "1,3,16,16", (3, 3), (3, 3), auto_pad="same_lower", exclude_pad=False, dilations=(2, 3)
    ),
    AvgPoolCase(
        16, "1,3,16,16", (3, 3), (2, 2), auto_pad="valid", rounding="ceil", dilations=(2, 2)
    ),
    AvgPoolCase(16, "1,1,11", (3,), (3,), (1,), (1,), rounding="ceil", dilations=(2,)),
    AvgPoolCase(
        16,
        "1,2,9,10,11",
        (2, 2, 2),
        (2, 2, 2),
        (1, 1, 1),
        (1, 1, 1),
        rounding="ceil_torch",
        exclude_pad=False,
        dilations=(1, 2, 3),
    ),
    AvgPoolCase(
        16,
        "1,2,8,8,8",
        (2, 2, 2),
        (2, 2, 2),
        auto_pad="same_upper",
        dilations=(2, 2, 2),
        element_type="f16",
    ),
    AvgPoolCase(
        16, "?,3,2..20,..9", **K3S2P1, rounding="ceil_torch", dilations=(2, 2), tag="intervals"
    ),
    AvgPoolCase(16, "?,3,?,16", (3, 3), (2, 2), auto_pad="same_lower", dilations=(2, 2), tag="dyn"),
    AvgPoolCase(16, "...", **K3S2P1, exclude_pad=False, dilations=(2, 2), tag="dyn_rank"),
    AvgPoolCase(16, "3,3,15,15", **K3S2P1, rounding="ceil_torch", element_type="f64", tag="batch3"),
)

ADAPTIVE_CASES: tuple[Case, ...] = (
    AdaptiveCase("1,1,5", (3,), "i32"),
    AdaptiveCase("1,1,5", (8,), "i64", tag="upsample"),
    AdaptiveCase("1,1,5", (5,), "i64", tag="identity"),
    AdaptiveCase("1,1,4,4", (3, 3), "i64"),
    AdaptiveCase("2,3,5,7", (10, 3), "i32", tag="mixed"),
    AdaptiveCase("1,8,7,7", (1, 1), "i64", tag="global"),
    AdaptiveCase("1,2,6,8,10", (3, 4, 5), "i32"),
    AdaptiveCase("1,1,2,3,4", (4, 6, 5), "i64", tag="upsample"),
    AdaptiveCase("?,3,16,16", (4, 4), "i32", tag="dyn_batch"),
    AdaptiveCase("1,3,1..10,4..", (2, 2), "i64", tag="intervals"),
    AdaptiveCase("...", (2, 2), "i64", tag="dyn_rank"),
    AdaptiveCase("1,3,9,9", (4, 4), "i32", element_type="f16"),
    AdaptiveCase("1,3,9,9", (4, 4), "i64", element_type="f64"),
    AdaptiveCase("1,2,6", (4,), "i64", element_type="i32"),
)

GRAPH_CASES: tuple[Case, ...] = (
    GraphCase("adaptive8_r4_runtime_size_i64", adaptive_runtime_output_size),
    GraphCase(
        "adaptive8_r3_runtime_size_i32_f16_dyn_batch", adaptive_runtime_output_size_dyn_batch
    ),
    GraphCase("chain_avgpool14_adaptive8", chain_avgpool_adaptive),
    GraphCase("chain_avgpool1_avgpool16_adaptive8", chain_three_versions((32, 32))),
    GraphCase("two_inputs_two_outputs", two_inputs_two_outputs),
    GraphCase("shared_input_two_outputs", shared_input_two_outputs((3, 3))),
)

CASES: tuple[Case, ...] = (
    *AVG_POOL_1_CASES,
    *AVG_POOL_14_CASES,
    *AVG_POOL_16_CASES,
    *ADAPTIVE_CASES,
    *GRAPH_CASES,
)


# --------------------------------------------------------------------------------------------
# Writing and describing
# --------------------------------------------------------------------------------------------


def check_xml_versions(xml_path: Path, model: ov.Model) -> None:
    """Fail unless every saved layer carries the opset of the node it was built from."""
    built = {op.get_friendly_name(): op.get_type_info().version_id for op in model.get_ops()}
    saved = {layer.get("name"): layer.get("version") for layer in ET.parse(xml_path).iter("layer")}
    if saved != built:
        raise RuntimeError(f"{xml_path}: saved layer versions {saved} differ from built {built}")


def describe(model: ov.Model) -> dict[str, Any]:
    """Each layer's type, opset, output partial shapes and output element types."""
    layers: dict[str, Any] = {}
    for op in model.get_ordered_ops():
        outputs = range(op.get_output_size())
        layers[op.get_friendly_name()] = {
            "type": op.get_type_name(),
            "version": op.get_type_info().version_id,
            "shapes": [str(op.get_output_partial_shape(i)) for i in outputs],
            "element_types": [op.get_output_element_type(i).get_type_name() for i in outputs],
        }
    return {"layers": layers}


def generate(out: Path, cases: Sequence[Case]) -> dict[str, Any]:
    """Write every case's model under ``out/models`` and return the expected.json content."""
    check_unique(case.name for case in cases)

    models_dir = out / "models"
    models_dir.mkdir(parents=True, exist_ok=True)
    for stale in [*models_dir.glob("*.xml"), *models_dir.glob("*.bin")]:
        stale.unlink()

    core = ov.Core()
    expected: dict[str, Any] = {}
    for case in cases:
        model = case.build()
        xml_path = models_dir / f"{case.name}.xml"
        ov.save_model(model, xml_path, compress_to_fp16=False)
        check_xml_versions(xml_path, model)
        expected[xml_path.name] = describe(core.read_model(xml_path))
    return expected


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"output directory (default: {DEFAULT_OUT})"
    )
    args = parser.parse_args(argv)

    warn_if_untested()

    expected = generate(args.out, CASES)
    expected_path = args.out / "expected.json"
    expected_path.write_text(json.dumps(expected, indent=2, sort_keys=True) + "\n")
    print(f"wrote {len(expected)} models and {expected_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
