"""Shape verdicts of many configurations from one file: configurations side by side in one
IR (independent Parameter -> op -> Result subgraphs), read by OpenVINO and loaded by irpool
once. What each side says is split back by layer id and name (`Batches`: the names carry the
configuration's index; `positioned`: a name alone with the configuration's position). Where
it cannot be (OpenVINO refuses the file, a finding names no layer), the configurations are
judged alone, so each verdict is the one its file alone gets. irpool's findings predict
which configurations OpenVINO refuses: those are read alone, so batches rarely split."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import irpool
from irpool.diagnostics import Diagnostic, merge_repeats
from irpool.rules import RULES
from tests.differential.harness import inferred_shape, shape_problems, split_compiles

Batched = TypeVar("Batched")
BATCH_SIZE = 32
_NAMED = re.compile(r"(\D+)(\d+)")


def positioned(name: str) -> tuple[str, int] | None:
    """A batch's layer name split into the name alone and the configuration's position."""
    match = _NAMED.fullmatch(name)
    return (match[1], int(match[2])) if match else None


def unmerged(diagnostics: Sequence[Diagnostic]) -> Iterator[Diagnostic]:
    """Each finding at each of its layers, with its own message (`merge_repeats` merges the
    same finding on layers of different configurations)."""
    for diagnostic in diagnostics:
        if diagnostic.repeats:
            yield replace(diagnostic, message=diagnostic.repeats[0].message, repeats=())
            yield from diagnostic.repeats
        else:
            yield diagnostic


def errors_by_position(
    model: irpool.Model, count: int, layers_each: int, severities: tuple[str, ...] = ("error",)
) -> list[list[Diagnostic]] | None:
    """Each configuration's errors (or findings of these `severities`; its layers' ids from
    `layers_each * position`), in file order; None when one names no layer."""
    found: list[list[Diagnostic]] = [[] for _ in range(count)]
    for diagnostic in unmerged(model.validate()):
        if diagnostic.severity.value not in severities:
            continue
        if diagnostic.layer_id is None or not diagnostic.layer_id.isdigit():
            return None
        position = int(diagnostic.layer_id) // layers_each
        if position >= count:
            return None
        found[position].append(diagnostic)
    return [sorted(errors, key=Diagnostic.sort_key) for errors in found]


def shapes_by_position(model: irpool.Model, count: int) -> list[dict[str, str]] | None:
    """Each configuration's `output_shapes` of one output, by the names alone."""
    found: list[dict[str, str]] = [{} for _ in range(count)]
    for name, shapes in model.output_shapes().items():
        place = positioned(name)
        if place is None:
            return None
        if len(shapes) == 1:
            found[place[1]][place[0]] = str(shapes[0])
    return found


def predicts_rejection(errors: Sequence[Diagnostic]) -> bool:
    """irpool says OpenVINO refuses to read the configuration."""
    return any(RULES[d.code].runtime == "rejects" for d in errors)


def read_in_batches(
    items: list[Batched], read_batch: Callable[[list[Batched]], Any]
) -> Iterator[tuple[list[Batched], Any]]:
    """`read_batch` (OpenVINO's `read_model` of the items in one file) on `BATCH_SIZE` items
    at a time, halved where it refuses (`split_compiles`) down to one item: each batch with
    its model, or a single item with None (to be judged alone)."""

    def read(batch: list[Batched]) -> Any:
        try:
            return read_batch(batch)
        except Exception as error:  # the runtime's verdict, whatever its exception type
            raise RuntimeError(str(error)) from error

    for start in range(0, len(items), BATCH_SIZE):
        for batch, model in split_compiles(items[start : start + BATCH_SIZE], read):
            yield batch, None if isinstance(model, RuntimeError) else model


@dataclass
class Verdict:
    """A configuration's shape verdicts, as its file alone gets them: OpenVINO's output of
    it (None: `read_model` refuses it), the output written for irpool (`claim`: OpenVINO's,
    None: the first one), irpool's findings and its inferred shape of the op (layer 2)."""

    output: Any
    claim: Any
    diagnostics: list[Diagnostic]
    ours: str

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity.value == "error"]

    @property
    def problems(self) -> list[str]:
        """How irpool's findings disagree with OpenVINO's (`harness.shape_problems`)."""
        theirs = None if self.output is None else str(self.output.get_partial_shape())
        return shape_problems(self.errors, theirs, self.ours)


def one_kind(config: Any) -> object:
    """`Batches`' default: any configurations may share a file."""
    return None


def no_claim(config: Any, output: Any) -> Any:
    """`Batches`' default: irpool loads the file OpenVINO read."""
    return None


def openvino_dims(config: Any, output: Any) -> tuple[str, list[str] | None]:
    """A `claim`: the configuration's `element_type`, OpenVINO's dims ("-1" where not
    static; None for a dynamic rank)."""
    shape = output.get_partial_shape()
    dims = [str(d.get_length()) if d.is_static else "-1" for d in shape]
    return config.element_type, None if shape.rank.is_dynamic else dims


Item = tuple[Any, Any]  # a configuration and its output, as `write` takes them
Write = Callable[[Path, str, list[Item]], Path]
Claim = Callable[[Any, Any], Any]  # (configuration, OpenVINO's output) -> the output written
SEVERITIES = ("error", "warning", "info")


def alone(core: Any, directory: Path, item: Item, write: Write, claim: Claim) -> Verdict:
    """The configuration alone in a file (`item[1]` its output), read by OpenVINO; where it
    accepts and `claim` makes an output of its output, written again with that for irpool."""
    path = write(directory, f"shape{item[0].index}", [item])
    try:
        model = core.read_model(path)
    except Exception:  # read_model raises plain RuntimeErrors: any failure is a rejection
        model = None
    output = None if model is None else model.output(0)
    claimed = None if output is None else claim(item[0], output)
    if claimed is not None:
        path = write(directory, f"shape{item[0].index}", [(item[0], claimed)])
    loaded = irpool.load(path)
    return Verdict(output, claimed, loaded.validate(), inferred_shape(loaded, 2))


class Batches:
    """`alone` of many items, from batch files (`write` gives each item `ids_each` layer ids,
    its op the third, and names its layers by the configuration's index): irpool loads each
    batch once, and its findings predict what OpenVINO refuses; those are read alone, the
    rest in batches (`read_in_batches`), and where `claim` rewrites outputs, irpool loads a
    batch of the rewritten ones. Only configurations of one `kind` share a file (what makes
    a finding depend on the rest of the model, as FakeQuantize's levels do), and only those
    alike in their weights (`_weighs`). An item irpool was wrong about, whose findings
    name no layer, or which has a Const but no .bin, is judged `alone`."""

    def __init__(
        self,
        core: Any,
        directory: Path,
        write: Write,
        claim: Claim = no_claim,
        ids_each: int = 4,
        kind: Callable[[Any], object] = one_kind,
    ) -> None:
        self.core, self.directory, self.write, self.claim = core, directory, write, claim
        self.ids_each, self.kind = ids_each, kind

    def verdicts(self, items: list[Item]) -> list[Verdict]:
        kinds: dict[object, list[int]] = {}
        verdicts: dict[int, Verdict] = {}
        for position, item in enumerate(items):
            weighs = self._weighs(item)
            if weighs is None:
                verdicts[position] = self.alone(item)
            else:
                kinds.setdefault((self.kind(item[0]), weighs), []).append(position)
        for positions in kinds.values():
            mine = [items[p] for p in positions]
            for start in range(0, len(mine), BATCH_SIZE):
                chunk = mine[start : start + BATCH_SIZE]
                found = zip(positions[start : start + BATCH_SIZE], self._chunk(chunk), strict=True)
                verdicts |= dict(found)
        return [verdicts[position] for position in range(len(items))]

    def _weighs(self, item: Item) -> bool | None:
        """Whether the item alone is written with a .bin (None: it has a Const, but no .bin,
        which OpenVINO refuses and irpool reports once a file). Only items alike share a
        file: OpenVINO reads a Const of no bytes only from a file with a .bin."""
        path = self._write(f"weighs{item[0].index}", [item])
        if path.with_suffix(".bin").exists():
            return True
        return None if 'type="Const"' in path.read_text(encoding="utf-8") else False

    def _write(self, name: str, items: list[Item]) -> Path:
        """`write` with no .bin left from an earlier file of that name."""
        (self.directory / name).with_suffix(".bin").unlink(missing_ok=True)
        return self.write(self.directory, name, items)

    def alone(self, item: Item) -> Verdict:
        return alone(self.core, self.directory, item, self.write, self.claim)

    def _load(self, name: str, chunk: list[Item]) -> tuple[list[Verdict], list[str]] | None:
        """irpool's side of each item of one file, and the name of its Result (None: irpool
        raises, a finding names no layer, or an item has not one Result)."""
        try:
            loaded = irpool.load(self._write(name, chunk))
        except Exception:  # the configuration that makes irpool raise, raises alone
            return None
        edges = loaded.graph.producers.items()
        crossing = [e for e in edges if e[0][0] // self.ids_each != e[1][0] // self.ids_each]
        assert not crossing, f"`write` gives a configuration more than {self.ids_each} ids"
        found = errors_by_position(loaded, len(chunk), self.ids_each, SEVERITIES)
        results: list[list[str]] = [[] for _ in chunk]
        for layer in loaded.graph.layers.values():
            if layer.type == "Result" and layer.id // self.ids_each < len(chunk):
                results[layer.id // self.ids_each].append(layer.name)
        if found is None or any(len(names) != 1 for names in results):
            return None
        verdicts = [  # each configuration's findings merged as in its own file
            Verdict(None, None, sorted(merge_repeats(mine), key=Diagnostic.sort_key), shape)
            for mine, shape in zip(found, self._shapes(loaded, len(chunk)), strict=True)
        ]
        return verdicts, [names[0] for names in results]

    def _shapes(self, loaded: irpool.Model, count: int) -> list[str]:
        return [inferred_shape(loaded, self.ids_each * p + 2) for p in range(count)]

    def _chunk(self, chunk: list[Item]) -> list[Verdict]:
        """`alone` of each item of a batch."""
        loaded = self._load(f"shapes{chunk[0][0].index}", chunk)
        if loaded is None:
            return [self.alone(item) for item in chunk]
        found, results = loaded
        batched = []
        for position, item in enumerate(chunk):
            if not predicts_rejection(found[position].errors):
                batched.append(position)
                continue
            try:
                self.core.read_model(self._write(f"shape{item[0].index}", [item]))
            except Exception:  # the rejection irpool predicts: its findings are the batch's
                continue
            found[position] = self.alone(item)  # irpool was wrong

        def read_batch(positions: list[int]) -> Any:
            name = f"read{chunk[positions[0]][0].index}_{len(positions)}"
            return self.core.read_model(self._write(name, [chunk[p] for p in positions]))

        for positions, model in read_in_batches(batched, read_batch):
            outputs = (
                {}
                if model is None
                else {o.get_node().get_friendly_name(): o for o in model.outputs}
            )
            for position in positions:
                found[position].output = outputs.get(results[position])
            read = [p for p in positions if found[p].output is not None]
            if not self._claim([found[p] for p in read], [chunk[p] for p in read]):
                read = []
            for position in set(positions) - set(read):
                found[position] = self.alone(chunk[position])
        return found

    def _claim(self, found: list[Verdict], chunk: list[Item]) -> bool:
        """irpool's side of accepted items from a batch of their claimed outputs (False: it
        cannot be told apart)."""
        claims = [self.claim(item[0], v.output) for item, v in zip(chunk, found, strict=True)]
        if all(claimed is None for claimed in claims):
            return True
        items = [
            item if claimed is None else (item[0], claimed)
            for item, claimed in zip(chunk, claims, strict=True)
        ]
        again = self._load(f"claims{chunk[0][0].index}_{len(chunk)}", items)
        if again is None:
            return False
        for verdict, claimed, second in zip(found, claims, again[0], strict=True):
            verdict.claim, verdict.diagnostics, verdict.ours = (
                claimed,
                second.diagnostics,
                second.ours,
            )
        return True
