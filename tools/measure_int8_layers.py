"""Where irpool leaves the CPU plugin on an INT8 model, FakeQuantize by FakeQuantize, and how far
the CPU's own output moves when one input element moves by one step.

    python tools/measure_int8_layers.py CASE_DIR [--segments] [--sensitivity N] [--sample NAME]

CASE_DIR holds `model.xml` and `inputs-<sample>.npz` (keyed by Parameter name), as the corpus
generators write them (tools/corpus.py); the model has one Parameter.

`--segments`: for each FakeQuantize b, the segment of the model from the FakeQuantizes before it
(each fed the CPU's own values of its output, from the model cut after it, through a Parameter
and the same FakeQuantize, which gives those values back) to b, run by the CPU and by irpool:
how many elements of b differ, in steps of b's output. Reading a layer as an extra output
changes the CPU's fusions, cutting the model after a FakeQuantize does not change what comes
before it, so each segment compares one layer's arithmetic given the same quantized inputs.

`--sensitivity N`: the CPU against itself, N times, with one random element of the input moved
by one step of the FakeQuantize that reads the Parameter: the largest |difference| of the
output over its scale (largest finite |value|) and, for an output of rank 2 or more, at how
many places the argmax along axis 1 changes. A model where one such step moves the output past
a bound cannot be held to that bound by any computation that is not the CPU's bit for bit.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from ov_builders import opset1, ov

import irpool

CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}
Array = NDArray[Any]


def load_npz(path: Path) -> dict[str, Array]:
    with np.load(path) as archive:
        return {key: archive[key] for key in archive.files}


def fake_quantizes(model: ov.Model) -> list[ov.Node]:
    return [node for node in model.get_ordered_ops() if node.get_type_name() == "FakeQuantize"]


def output_step(node: ov.Node) -> Array:
    """The FakeQuantize's output step, (output_high - output_low) / (levels - 1)."""
    low, high = (node.input_value(port).get_node().get_data() for port in (3, 4))
    return np.asarray((high - low) / (node.get_levels() - 1), np.float64)


def cpu_output(core: ov.Core, model: ov.Model, inputs: Sequence[Array]) -> Array:
    compiled = core.compile_model(model, "CPU", CONFIG)
    return np.asarray(compiled(list(inputs))[0])


def frontier(node: ov.Node) -> list[ov.Node]:
    """The FakeQuantizes and Parameters the data input of `node` reads through other layers."""
    found: list[ov.Node] = []
    seen: set[str] = set()
    stack = [node.input_value(0).get_node()]
    while stack:
        source = stack.pop()
        if source.get_friendly_name() in seen:
            continue
        seen.add(source.get_friendly_name())
        if source.get_type_name() in ("FakeQuantize", "Parameter"):
            found.append(source)
        else:
            stack += [port.get_source_output().get_node() for port in source.inputs()]
    return found


class Segments:
    """The model read afresh per segment (a segment rewires the graph it is cut from)."""

    def __init__(self, xml: Path, sample: Array) -> None:
        self.core = ov.Core()
        self.xml = xml
        self.sample = sample
        self.names = [node.get_friendly_name() for node in fake_quantizes(self._read())]
        self._values: dict[str, Array] = {}

    def _read(self) -> ov.Model:
        return self.core.read_model(self.xml)

    def cpu_value(self, name: str) -> Array:
        """The CPU's output of FakeQuantize `name`, from the model cut after it."""
        if name not in self._values:
            model = self._read()
            node = fake_quantizes(model)[self.names.index(name)]
            cut = ov.Model([node.output(0)], model.get_parameters(), "cut")
            self._values[name] = cpu_output(self.core, cut, [self.sample])
        return self._values[name]

    def steps_off(self, index: int, folder: Path) -> Array:
        """|irpool - CPU| in output steps of FakeQuantize `index`, on its segment."""
        model = self._read()
        node = fake_quantizes(model)[index]
        parameters, feeds = [], []
        for source in frontier(node):
            if source.get_type_name() == "Parameter":
                parameters.append(source)
                feeds.append(self.sample)
                continue
            value = self.cpu_value(source.get_friendly_name())
            fed = opset1.parameter(list(value.shape), ov.Type.f32, name=f"in{len(feeds)}")
            source.input(0).replace_source_output(fed.output(0))
            parameters.append(fed)
            feeds.append(value)
        segment = ov.Model([node.output(0)], parameters, "segment")
        expected = cpu_output(self.core, segment, feeds)
        ov.save_model(segment, folder / "segment.xml", compress_to_fp16=False)
        named = {p.get_friendly_name(): v for p, v in zip(parameters, feeds, strict=True)}
        got = irpool.load(folder / "segment.xml").run(named)
        (value,) = got.values()
        off = np.abs(np.asarray(value, np.float64) - expected)
        return np.asarray(off / np.broadcast_to(output_step(node), off.shape))


def report_segments(xml: Path, sample: Array) -> None:
    segments = Segments(xml, sample)
    print("index  elements  a step off  more than a step  largest (steps)  FakeQuantize")
    with tempfile.TemporaryDirectory() as folder:
        for index, name in enumerate(segments.names):
            off = np.round(segments.steps_off(index, Path(folder)), 3)
            one, more = int((off > 0.5).sum()), int((off > 1.5).sum())
            print(f"{index:5d} {off.size:9d} {one:11d} {more:17d} {off.max():16.1f}  {name}")
            sys.stdout.flush()


def report_sensitivity(xml: Path, sample: Array, trials: int) -> None:
    core = ov.Core()
    model = core.read_model(xml)
    (parameter,) = model.get_parameters()
    readers = [port.get_node() for port in parameter.output(0).get_target_inputs()]
    quantizer = next(node for node in readers if node.get_type_name() == "FakeQuantize")
    step = np.float32(output_step(quantizer).max())
    compiled = core.compile_model(model, "CPU", CONFIG)
    base = np.asarray(compiled([sample])[0])
    scale = float(np.abs(base[np.isfinite(base)]).max(initial=0.0)) or 1.0
    rng = np.random.default_rng(0)
    print(f"input step {step:.6g}, output scale {scale:.6g}")
    for trial in range(trials):
        moved = sample.copy().reshape(-1)
        moved[rng.integers(moved.size)] += step
        out = np.asarray(compiled([moved.reshape(sample.shape)])[0])
        both = np.isfinite(out) & np.isfinite(base)
        worst = float(np.abs(out[both].astype(np.float64) - base[both]).max(initial=0.0))
        places = int((out.argmax(1) != base.argmax(1)).sum()) if base.ndim >= 2 else 0
        print(f"trial {trial}: {worst / scale:.4f} of the scale, argmax moved at {places}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", type=Path, help="folder with model.xml and inputs-*.npz")
    parser.add_argument("--segments", action="store_true", help="irpool against the CPU")
    parser.add_argument("--sensitivity", type=int, default=0, metavar="N", help="CPU trials")
    parser.add_argument("--sample", default="randn", help="inputs-<sample>.npz (randn)")
    args = parser.parse_args(argv)
    xml = args.case / "model.xml"
    (sample,) = load_npz(args.case / f"inputs-{args.sample}.npz").values()
    if args.sensitivity:
        report_sensitivity(xml, np.asarray(sample, np.float32), args.sensitivity)
    if args.segments:
        report_segments(xml, np.asarray(sample, np.float32))
    return 0


if __name__ == "__main__":
    sys.exit(main())
