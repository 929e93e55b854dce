"""The Python API: `load` does the per-model work once; `validate` returns what it found."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from irpool.check.checked import CheckedLayers
from irpool.check.coverage import Coverage
from irpool.check.layer_checker import check_layers
from irpool.check.names import check_names
from irpool.check.releases import Release, check_releases, default_target, parse_release
from irpool.check.rewrites import check_rewrites
from irpool.check.runtime_values import check_pad_values
from irpool.check.suppression import apply_suppressions
from irpool.check.variable_pairs import check_variables
from irpool.diagnostics import Collector, Diagnostic, merge_repeats
from irpool.execute.errors import InvalidModelError
from irpool.graph.build import build_graph
from irpool.graph.graph import Graph, Layer
from irpool.graph.source_text import SourceReadingBeside
from irpool.graph.weights import Weights
from irpool.ops.base import TensorInfo
from irpool.parse.xml_reader import Document, start_document
from irpool.rules import Severity
from irpool.shape import Shape

if TYPE_CHECKING:
    # Only running needs the engine and NumPy; `irpool validate` starts faster without them.
    from numpy.typing import NDArray

    from irpool.check.reshaping import Reshaping
    from irpool.execute.bind import Inputs, ModelInput
    from irpool.execute.plan import ExecutionPlan, ModelOutput, RunnerInput
    from irpool.execute.run import Observer
    from irpool.execute.tensors import ComputedTensor


def display_path(path: Path) -> str:
    """Paths in reports: relative to the working directory when below it, POSIX separators."""
    resolved = path.resolve()
    cwd = Path.cwd()
    if resolved.is_relative_to(cwd):
        return resolved.relative_to(cwd).as_posix()
    return path.as_posix()


class Model:
    """A loaded IR file: its document, graph, weights, and what checking learned of each
    layer (`checked`: its op and the tensors it produces)."""

    def __init__(
        self,
        document: Document,
        graph: Graph,
        weights: Weights,
        checked: CheckedLayers,
        diagnostics: list[Diagnostic],
        reshaping: Reshaping | None = None,
        reshaped_from: Model | None = None,
    ) -> None:
        self.document = document
        # What `reshape` made this model of, and from which model (None: the file's shapes).
        self.reshaping = reshaping
        self.reshaped_from = reshaped_from
        self.graph = graph
        self.weights = weights
        self.checked = checked
        self._diagnostics = sorted(diagnostics, key=Diagnostic.sort_key)
        self._runner: RunnerInput | None = None
        self._execution_plan: ExecutionPlan | None = None

    @property
    def path(self) -> Path:
        return self.document.path

    def validate(self) -> list[Diagnostic]:
        """Every problem found, sorted by position."""
        return list(self._diagnostics)

    @property
    def coverage(self) -> Coverage:
        """How many layers checking covered, and the types whose outputs it trusted."""
        return Coverage.of(self.graph, self.checked)

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self._diagnostics)

    @overload
    def run(
        self,
        inputs: Inputs,
        *,
        cast: bool = False,
        on_cast: Callable[[str], None] | None = None,
        intermediates: Literal[False] = False,
        observe: Observer | None = None,
    ) -> dict[str, NDArray[Any]]: ...

    @overload
    def run(
        self,
        inputs: Inputs,
        *,
        cast: bool = False,
        on_cast: Callable[[str], None] | None = None,
        intermediates: Literal[True],
        observe: Observer | None = None,
    ) -> tuple[dict[str, NDArray[Any]], dict[str, NDArray[Any]]]: ...

    def run(
        self,
        inputs: Inputs,
        *,
        cast: bool = False,
        on_cast: Callable[[str], None] | None = None,
        intermediates: bool = False,
        observe: Observer | None = None,
    ) -> dict[str, NDArray[Any]] | tuple[dict[str, NDArray[Any]], dict[str, NDArray[Any]]]:
        """Execute on NumPy inputs keyed by Parameter name (or a tensor name of its output),
        or by position among the Parameters (an int, as OpenVINO takes it; the only way to
        give a Parameter named "", which OpenVINO loads and renames). As OpenVINO's compiled
        model, it also takes a list or tuple in the Parameters' order, and one array for a
        model of one input.

        Returns {output name: array}, the name OpenVINO's `get_any_name()` gives each
        Result's tensor (its Result layer name when the tensor has none; see `outputs`).
        Safe to call from several threads at once. Raises `InvalidModelError` when validation found
        errors, `InputError` for inputs that do not fit, `ExecutionError` for what irpool
        cannot run; all subclass `IRError`. With `cast`, a dtype differing from a Parameter's
        element type is converted within its kind and `on_cast` is told. bf16 comes and goes
        as float32 arrays of bf16 values; other float32 values are rounded only with `cast`,
        float16 is never taken (`bf16_from_bits` converts OpenVINO's bit arrays).

        With `intermediates`, returns (outputs, tensors): also every tensor the run computed,
        in run order, keyed as `tensors` describes (constants and inputs are not among them).
        Nothing is freed before the run ends then: its memory is the sum of all those tensors.
        `observe(step, tensors)` sees each step of the plan (`execution_plan()`) right after it
        computes, with the tensors alive then, so a caller can stream them (`irpool compare`).
        """
        from irpool.execute.run import execute  # NumPy: imported on the first run only

        plan = self._planned()
        outputs, tensors = execute(
            self._runner_input(), plan, inputs, cast, on_cast, intermediates, observe
        )
        return (outputs, tensors) if intermediates else outputs

    @property
    def inputs(self) -> list[ModelInput]:
        """The Parameters in XML order, with the names each answers to."""
        return list(self._planned().parameters)

    @property
    def outputs(self) -> list[ModelOutput]:
        """The Results in XML order: the key `run` gives each (`name`) and its Result layer."""
        return list(self._planned().outputs)

    @property
    def tensors(self) -> list[ComputedTensor]:
        """What `run(..., intermediates=True)` returns beside the outputs, in run order: each
        tensor's key (`name`), all its names, its layer and output index."""
        return list(self._planned().tensors)

    def execution_plan(self) -> ExecutionPlan:
        """How `run` computes the model: its steps, constants and tensors (built once)."""
        return self._planned()

    def create_infer_request(self) -> InferRequest:
        """A request that carries the model's variables (ReadValue/Assign) from one `infer`
        to the next, as OpenVINO's InferRequest does; `run` never keeps them."""
        self._planned()  # a model with errors fails here, as compile_model would
        return InferRequest(self)

    def _planned(self) -> ExecutionPlan:
        # Threads racing here each build the same plan; the last one is kept.
        if self._execution_plan is None:
            if self.has_errors:
                errors = [d for d in self._diagnostics if d.severity is Severity.ERROR]
                raise InvalidModelError(
                    f"{self.document.display_path}: the model has {len(errors)} error(s); fix "
                    "them before running it",
                    self.validate(),
                )
            from irpool.execute.plan import plan_execution

            self._execution_plan = plan_execution(self._runner_input())
        return self._execution_plan

    def _runner_input(self) -> RunnerInput:
        if self._runner is None:
            from irpool.execute.plan import RunnerInput

            found = self.document.root.find("rt_info/runtime_options")
            options = [] if found is None else [o for o in found if isinstance(o.tag, str)]
            self._runner = RunnerInput(
                self.graph, self.checked, self.document.ir_version, self.weights.read,
                {str(o.tag): o.get("value", "") for o in options},
            )  # fmt: skip
        return self._runner

    def reshape(self, shapes: Mapping[str | int, str | Shape | Sequence[int]]) -> Model:
        """The model at other input shapes, as OpenVINO's `model.reshape` re-infers it:
        {input name or position: shape} (a shape as OpenVINO writes one, `"[1,3,?,?]"` or
        `"1..8,3,640,640"`, a `Shape`, or ints with -1 for a dynamic dim; the key "" for
        a model's only input). Its `validate()` has every finding at the new shapes; where
        OpenVINO's reshape would fail, an IR311 error on the layer that refuses. The
        declared `<dim>`s describe the old shapes and are not compared. Raises `ReshapeError`
        (a ValueError) for a name that is no input or a text that is no shape.
        """
        from irpool.check.reshaping import reshape_findings, reshaped_graph, resolve

        original = self.reshaped_from or self  # shapes asked before stay, as in OpenVINO
        requested = {key: _shape_of(value) for key, value in shapes.items()}
        reshaping = resolve(self.graph, self.checked, self.document.ir_version, requested)
        if self.reshaping is not None:
            reshaping = self.reshaping.updated(reshaping)
        graph = reshaped_graph(original.graph, reshaping)
        sink = Collector(self.document.display_path)
        checked, found = _check(self.document, graph, self.weights, sink)
        findings = reshape_findings(
            original.validate(), found, graph, checked, reshaping, original.checked
        )
        diagnostics = merge_repeats(findings)
        return Model(self.document, graph, self.weights, checked, diagnostics, reshaping, original)

    def layer(self, name: str) -> Layer:
        for layer in self.graph.layers.values():
            if layer.name == name:
                return layer
        raise KeyError(f'no layer named "{name}"')

    def outputs_of(self, layer: Layer) -> list[TensorInfo] | None:
        """The inferred (or, where irpool cannot infer, declared) tensors a layer produces."""
        return self.checked.outputs.get(layer.id)

    def output_shapes(self) -> dict[str, list[Shape]]:
        """Layer name -> inferred output shapes, for every layer irpool could infer."""
        return {
            layer.name: [info.shape for info in self.checked.outputs[layer.id]]
            for layer in self.graph.layers.values()
            if layer.id in self.checked.outputs and layer.id not in self.checked.trusted
        }


def _shape_of(value: str | Shape | Sequence[int]) -> Shape:
    from irpool.check.reshaping import read_shape

    if isinstance(value, Shape):
        return value
    if isinstance(value, str):
        return read_shape(value)
    return read_shape(",".join(str(int(dim)) for dim in value))


class InferRequest:
    """Runs of a stateful model that share its variables, shaped like OpenVINO's
    InferRequest. Requests are independent of each other; one request runs one `infer` at a
    time (calls from several threads wait for each other)."""

    def __init__(self, model: Model) -> None:
        self._model = model
        self._variables: dict[str, NDArray[Any]] = {}
        self._lock = threading.Lock()

    def infer(
        self,
        inputs: Inputs,
        *,
        cast: bool = False,
        on_cast: Callable[[str], None] | None = None,
    ) -> dict[str, NDArray[Any]]:
        """One run, as `Model.run` (same inputs, same keys), from the variables the previous
        runs left; the Assigns' values are the variables of the next run."""
        from irpool.execute.run import execute

        model = self._model
        with self._lock:
            outputs, _ = execute(
                model._runner_input(), model._planned(), inputs, cast, on_cast,
                variables=self._variables,
            )  # fmt: skip
        return outputs

    def reset_state(self) -> None:
        """Back to the first values: the next `infer` starts as `Model.run` does."""
        with self._lock:
            self._variables = {}

    def query_state(self) -> dict[str, NDArray[Any]]:
        """Variable id -> a copy of its value; a KV cache as the CPU holds it (u8 codes read
        back, or f16 values: docs/compressed-weights.md#the-kv-cache). A variable no run has
        assigned yet is zeros, as OpenVINO's query_state shows it
        (docs/ops/ReadValue.md#first-values), though the next run starts from the
        initializer's value."""
        from irpool.execute.run import first_values

        with self._lock:
            values = first_values(self._model._runner_input(), self._model._planned())
            values.update(self._variables)
            return {name: value.copy() for name, value in values.items()}


def load(
    path: str | os.PathLike[str],
    weights: str | os.PathLike[str] | None = None,
    *,
    data: bytes | None = None,
    openvino_version: str | None = None,
) -> Model:
    """Read, build and check an IR file (`data`: its content, when already read, e.g. from
    stdin; `path` then only names it and locates the default weights). `openvino_version`:
    the release whose reader the file must suit (IR230; default: the installed OpenVINO's,
    else the newest irpool knows); `ReleaseError` (a ValueError) when it is no release.

    Raises `IRError` (carrying diagnostics) only when the file cannot be read as IR at all:
    unreadable, malformed XML, unsafe XML, not `<net>`, or an unsupported IR version.
    """
    xml_path = Path(path)
    shown = display_path(xml_path)
    sink = Collector(shown)
    parse = start_document(xml_path, sink, data)
    # While lxml parses a large file, a worker reads its layers and edges from the text.
    beside = SourceReadingBeside(parse.text if parse.large else None)
    try:
        beside.begin()
        document = parse.document()
    finally:
        early = beside.result()
    graph = build_graph(document, sink, early)
    bin_path = Path(weights) if weights is not None else xml_path.with_suffix(".bin")
    weights_file = Weights(bin_path)
    target = default_target() if openvino_version is None else parse_release(openvino_version)
    checked, found = _check(document, graph, weights_file, sink, target)
    return Model(document, graph, weights_file, checked, merge_repeats(found))


def _check(
    document: Document,
    graph: Graph,
    weights: Weights,
    sink: Collector,
    target: Release | None = None,
) -> tuple[CheckedLayers, list[Diagnostic]]:
    """Stage 3 on a built graph: what each layer is and what checking found (and what the
    `target` release cannot read)."""
    checked = check_layers(document, graph, weights, sink)
    if target is not None:
        check_releases(document, graph, sink, target)
    check_names(document, graph, sink)
    check_rewrites(document, graph, checked, sink)
    check_pad_values(document, graph, checked, sink)
    check_variables(document, graph, checked, sink)
    return checked, apply_suppressions(document, sink.diagnostics)
