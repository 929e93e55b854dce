"""Structure mutations of the family's models (issue #18): the seeds, one small model per op
irpool models, written by OpenVINO's own serializer, and the operators that break them the way
hand edits and other tools do (a dropped attribute or <data>, another case, a removed port,
dim or edge, a duplicated or swapped port id, a retyped Result, reordered layers, non-ASCII
digits, blanks inside values).

Operators take a `random.Random`, so that case N of a run is the same on every machine.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from copy import deepcopy
from pathlib import Path
from typing import Any

import numpy as np
from lxml import etree

Mutation = Callable[[random.Random, etree._Element], None]


# --------------------------------------------------------------------------------------------
# Seeds
# --------------------------------------------------------------------------------------------


def _seed_models(ov: Any) -> dict[str, Any]:
    """name -> ov.Model: every op irpool models, in the shapes and types the family uses."""
    import openvino.opset1 as o1
    import openvino.opset8 as o8
    import openvino.opset14 as o14
    import openvino.opset16 as o16

    def parameter(shape: list[int], element_type: Any = ov.Type.f32) -> Any:
        node = o1.parameter(ov.PartialShape(shape), element_type, name="x")
        node.output(0).get_tensor().set_names({"x"})
        return node

    def const(values: list[int], element_type: Any = np.int64) -> Any:
        return o1.constant(np.array(values, dtype=element_type))

    def model(outputs: list[Any], x: Any, name: str) -> Any:
        return ov.Model(outputs, [x], name)

    seeds: dict[str, Any] = {}
    x = parameter([1, 2, 6, 6])
    seeds["avgpool1"] = model(
        [o1.avg_pool(x, [2, 2], [1, 1], [0, 0], [3, 3], True, "ceil", "explicit")], x, "a1"
    )
    x = parameter([1, 2, 6, 6])
    seeds["avgpool14"] = model(
        [o14.avg_pool(x, [2, 2], [1, 1], [1, 1], [3, 3], False, "ceil_torch", "explicit")],
        x,
        "a14",
    )
    x = parameter([1, 2, -1, 7])
    seeds["avgpool16"] = model(
        [o16.avg_pool(x, [1, 2], [0, 1], [0, 1], [2, 3], True, "floor", "explicit", [2, 1])],
        x,
        "a16",
    )
    x = parameter([1, 3, 7, 5])
    seeds["adaptive_avg8"] = model([o8.adaptive_avg_pool(x, const([3, 2]))], x, "aa8")
    x = parameter([1, 2, 6, 6])
    seeds["maxpool1"] = model(
        [o1.max_pool(x, [2, 2], [1, 0], [1, 0], [3, 2], "floor", "explicit")], x, "m1"
    )
    x = parameter([1, 2, 7, 6])
    pool8 = o8.max_pool(x, [2, 1], [1, 2], [0, 1], [0, 1], [2, 2], "ceil", "explicit", "i32", 0)
    seeds["maxpool8"] = model([pool8.output(0), pool8.output(1)], x, "m8")
    x = parameter([2, 2, 7], ov.Type.i32)
    pool14 = o14.max_pool(x, [2], [1], [1], [1], [3], "ceil_torch", "explicit", "i64", 2)
    seeds["maxpool14"] = model([pool14.output(0), pool14.output(1)], x, "m14")
    x = parameter([1, 2, 5, 7])
    adaptive = o8.adaptive_max_pool(x, const([2, 3], np.int32), "i32")
    seeds["adaptive_max8"] = model([adaptive.output(0), adaptive.output(1)], x, "am8")
    x = parameter([2, 3, 4, 5])
    seeds["reduce_mean"] = model([o1.reduce_mean(x, const([1, -1]), True)], x, "rmean")
    x = parameter([2, 3, 4, 5], ov.Type.i32)
    seeds["reduce_max"] = model([o1.reduce_max(x, const([0, 2]), False)], x, "rmax")
    x = parameter([2, 3, 4])
    seeds["reshape"] = model([o1.reshape(x, const([0, -1, 2]), True)], x, "reshape")
    x = parameter([2, 1, 4, 1])
    seeds["squeeze"] = model([o1.squeeze(x, const([1, 3]))], x, "squeeze")
    # Not a 1 added before the reduced axis: the CPU plugin's PullReshapeThroughReduce gets
    # that wrong (issue #18), and a seed must agree with it unmutated.
    x = parameter([2, 4])
    seeds["unsqueeze_reduce"] = model(
        [o1.reduce_max(o1.unsqueeze(x, const([0])), const([2]), True)], x, "unsq"
    )
    x = parameter([2, 3, 4])
    seeds["convert"] = model([o1.convert(o1.convert(x, "f16"), "i32")], x, "convert")
    x = parameter([1, 3, 9])
    values_only = o8.max_pool(x, [2], [1], [0], [0], [3], "floor", "same_upper", "i64", 0)
    seeds["maxpool8_values_read"] = model([values_only.output(0)], x, "m8v")
    x = parameter([1, 2, 5, 6])
    torch_values = o14.max_pool(x, [2, 2], [1, 1], [0, 1], [0, 1], [3, 2], "ceil_torch")
    seeds["maxpool14_values_read"] = model([torch_values.output(0)], x, "m14v")
    x = parameter([2, 3, 4])
    scalar_axis = o1.constant(np.int64(-1))
    seeds["reduce_max_scalar_axis"] = model([o1.reduce_max(x, scalar_axis, False)], x, "rmaxs")
    x = parameter([1, 1, 5, 5])
    seeds["avgpool1_same"] = model(
        [o1.avg_pool(x, [2, 2], [0, 0], [0, 0], [3, 3], False, "floor", "same_lower")], x, "a1s"
    )
    x = parameter([1, 2, -1, 8])
    seeds["adaptive_avg8_dynamic"] = model(
        [o8.adaptive_avg_pool(x, const([2, 3], np.int32))], x, "aa8d"
    )
    x = parameter([2, 3, 4], ov.Type.u8)
    seeds["reduce_mean_u8"] = model([o1.reduce_mean(x, const([1]), False)], x, "rmu8")
    x = parameter([2, 3, 4])
    seeds["reshape_plain"] = model([o1.reshape(x, const([4, -1]), False)], x, "reshape2")
    x = parameter([1, 2, 6, 6])
    chained = o1.reduce_mean(o1.max_pool(x, [1, 1], [0, 0], [0, 0], [2, 2]), const([2, 3]), False)
    seeds["pool_reduce_chain"] = model([chained], x, "chain")
    return seeds


def write_seeds(ov: Any, directory: Path) -> list[Path]:
    """The seeds saved by `ov.save_model`, as .xml paths (each with its .bin)."""
    paths = []
    for name, model in _seed_models(ov).items():
        path = directory / f"{name}.xml"
        ov.save_model(model, path, compress_to_fp16=False)
        paths.append(path)
    return paths


# --------------------------------------------------------------------------------------------
# Operators
# --------------------------------------------------------------------------------------------


def _layers(root: etree._Element) -> list[etree._Element]:
    return list(root.iter("layer"))


def drop_attribute(rng: random.Random, root: etree._Element) -> None:
    """Any attribute of a <data>: a Const's shape or element_type, a pool's kernel, ..."""
    data = [d for d in root.iter("data") if d.attrib]
    if data:
        element = rng.choice(data)
        del element.attrib[rng.choice(sorted(element.attrib))]


def drop_data(rng: random.Random, root: etree._Element) -> None:
    data = list(root.iter("data"))
    if data:
        element = rng.choice(data)
        element.getparent().remove(element)


def _recase(rng: random.Random, text: str) -> str:
    return rng.choice([text.lower(), text.upper(), text.swapcase(), text.capitalize()])


def recase_type(rng: random.Random, root: etree._Element) -> None:
    layer = rng.choice(_layers(root))
    layer.set("type", _recase(rng, layer.get("type", "")))


def recase_value(rng: random.Random, root: etree._Element) -> None:
    """An attribute value with letters (an enum, an element type, a boolean, a precision)."""
    places = [(e, n) for e in root.iter("data", "port") for n, v in e.attrib.items()
              if re.search("[a-zA-Z]", v) and n != "names"]  # fmt: skip
    if places:
        element, name = rng.choice(places)
        element.set(name, _recase(rng, element.attrib[name]))


def remove_port(rng: random.Random, root: etree._Element) -> None:
    ports = list(root.iter("port"))
    if ports:
        port = rng.choice(ports)
        port.getparent().remove(port)


def remove_dim(rng: random.Random, root: etree._Element) -> None:
    dims = list(root.iter("dim"))
    if dims:
        dim = rng.choice(dims)
        dim.getparent().remove(dim)


def remove_edge(rng: random.Random, root: etree._Element) -> None:
    edges = list(root.iter("edge"))
    if edges:
        edge = rng.choice(edges)
        edge.getparent().remove(edge)


def _ports_of(layer: etree._Element) -> list[etree._Element]:
    return list(layer.iterfind("input/port")) + list(layer.iterfind("output/port"))


def duplicate_port_id(rng: random.Random, root: etree._Element) -> None:
    layers = [layer for layer in _layers(root) if len(_ports_of(layer)) >= 2]
    if layers:
        first, second = rng.sample(_ports_of(rng.choice(layers)), 2)
        second.set("id", first.get("id", ""))


def swap_port_ids(rng: random.Random, root: etree._Element) -> None:
    """Two ports of one layer trade ids (the edges stay): MaxPool's values and indices, a
    Reshape's data and target shape, a layer's input and output."""
    layers = [layer for layer in _layers(root) if len(_ports_of(layer)) >= 2]
    if layers:
        first, second = rng.sample(_ports_of(rng.choice(layers)), 2)
        first_id, second_id = first.get("id", ""), second.get("id", "")
        first.set("id", second_id)
        second.set("id", first_id)


def retype_result(rng: random.Random, root: etree._Element) -> None:
    results = [layer for layer in _layers(root) if layer.get("type") == "Result"]
    if results:
        types = ["result", "RESULT", "Output", "Parameter", "Relu", "Const", "Result ", "Results"]
        rng.choice(results).set("type", rng.choice(types))


def reorder_layers(rng: random.Random, root: etree._Element) -> None:
    """The <layer>s (or the <edge>s) in another order: ids and edges unchanged."""
    parent = root.find(rng.choice(["layers", "edges"]))
    if parent is not None:
        children = list(parent)
        rng.shuffle(children)
        parent[:] = children


# Digits Python's int() reads and OpenVINO does not: fullwidth, Arabic-Indic, Devanagari.
FOREIGN_ZEROS = ["\uff10", "\u0660", "\u0966"]


def foreign_digit(rng: random.Random, root: etree._Element) -> None:
    """One ASCII digit of an attribute value, a port id or a <dim> in another script."""
    places: list[tuple[etree._Element, str | None]] = [
        (e, name) for e in root.iter() for name, v in e.attrib.items() if re.search(r"\d", v)
    ]
    places += [(dim, None) for dim in root.iter("dim") if re.search(r"\d", dim.text or "")]
    element, name = rng.choice(places)
    text = (element.text or "") if name is None else element.attrib[name]
    at = rng.choice([match.start() for match in re.finditer(r"\d", text)])
    changed = text[:at] + chr(ord(rng.choice(FOREIGN_ZEROS)) + int(text[at])) + text[at + 1 :]
    if name is None:
        element.text = changed
    else:
        element.set(name, changed)


def blank_in_value(rng: random.Random, root: etree._Element) -> None:
    """A blank before, after or inside a value (between list items or digits) or a <dim>."""
    places: list[tuple[etree._Element, str | None]] = [
        (e, name) for e in root.iter("data", "port", "layer", "edge") for name in e.attrib
    ]
    places += [(dim, None) for dim in root.iter("dim")]
    element, name = rng.choice(places)
    text = (element.text or "") if name is None else element.attrib[name]
    blank = rng.choice([" ", "\t", "\u00a0"])
    at = rng.randint(0, len(text))
    changed = text[:at] + blank + text[at:]
    if name is None:
        element.text = changed
    else:
        element.set(name, changed)


def empty_value(rng: random.Random, root: etree._Element) -> None:
    """An attribute written with nothing in it: `kernel=""`, `precision=""`, `type=""`."""
    places = [(e, n) for e in root.iter("data", "port", "layer") for n in e.attrib]
    element, name = rng.choice(places)
    element.set(name, "")


def drop_port_attribute(rng: random.Random, root: etree._Element) -> None:
    """A port's precision or names gone."""
    places = [(p, n) for p in root.iter("port") for n in p.attrib if n != "id"]
    if places:
        port, name = rng.choice(places)
        del port.attrib[name]


def duplicate_edge(rng: random.Random, root: etree._Element) -> None:
    edges = list(root.iter("edge"))
    if edges:
        edge = rng.choice(edges)
        edge.addnext(deepcopy(edge))


MUTATIONS: list[Mutation] = [
    drop_attribute, drop_attribute, drop_data, recase_type, recase_value, remove_port,
    remove_dim, remove_edge, duplicate_port_id, retype_result, swap_port_ids, reorder_layers,
    foreign_digit, blank_in_value, empty_value, drop_port_attribute, duplicate_edge,
]  # fmt: skip


def mutant(rng: random.Random, seeds: list[Path], directory: Path) -> tuple[Path, list[str]]:
    """A mutated copy of one seed (one or two operators) as `directory`/model.xml, with its
    .bin, and what was done to it."""
    source = rng.choice(seeds)
    path = directory / "model.xml"
    path.with_suffix(".bin").write_bytes(source.with_suffix(".bin").read_bytes())
    root = etree.fromstring(source.read_bytes())
    done = [source.stem]
    for mutation in rng.sample(MUTATIONS, rng.choice([1, 1, 2])):
        mutation(rng, root)
        done.append(mutation.__name__)
    path.write_bytes(etree.tostring(root, xml_declaration=True, encoding="utf-8"))
    return path, done
