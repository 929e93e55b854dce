"""`irpool.load(path).run({name: array})`: results, documented exceptions, one-time work."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import irpool
from irpool.execute import memory, plan, registry, run
from irpool.ops.registry import registered_ops
from tests import ir

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
POOL = EXAMPLES / "valid" / "avgpool1_4d.xml"
CHAIN = EXAMPLES / "valid" / "chain_avgpool_adaptive.xml"


def test_run_returns_results_by_result_name() -> None:
    x = np.arange(50, dtype=np.float32).reshape(1, 2, 5, 5)
    outputs = irpool.load(POOL).run({"input": x})
    assert list(outputs) == ["output"]
    np.testing.assert_allclose(
        outputs["output"][0, 0], [[3, 4.5, 6], [10.5, 12, 13.5], [18, 19.5, 21]]
    )


def test_inputs_bind_by_tensor_name_too() -> None:
    model = irpool.load(POOL)
    names = model.inputs[0].names
    assert names[0] == "input"
    for name in names:
        assert model.run({name: np.zeros((1, 2, 5, 5), np.float32)})["output"].shape == (1, 2, 3, 3)


def test_plan_is_built_once(monkeypatch: pytest.MonkeyPatch) -> None:
    model = irpool.load(CHAIN)
    calls = []
    original = plan.plan_execution
    monkeypatch.setattr(plan, "plan_execution", lambda m: calls.append(1) or original(m))
    x = np.ones((1, 3, 32, 32), np.float32)
    first = model.run({"input": x})
    second = model.run({"input": x})
    assert len(calls) == 1
    np.testing.assert_array_equal(first["output"], second["output"])


def test_a_static_model_is_not_inferred_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its shapes and peak memory come from validation, once: a run binds and computes."""

    def refuse(*args: object) -> None:
        raise AssertionError("a static model's shapes are known")

    model = irpool.load(CHAIN)
    x = np.ones((1, 3, 32, 32), np.float32)
    first = model.run({"input": x})["output"]  # plans the model
    monkeypatch.setattr(run, "reinfer", refuse)
    monkeypatch.setattr(memory, "replay", refuse)
    np.testing.assert_array_equal(model.run({"input": x})["output"], first)


@pytest.mark.parametrize(
    ("path", "error"),
    [
        (EXAMPLES / "broken" / "zero_stride.xml", irpool.InvalidModelError),
        (POOL, irpool.InputError),
    ],
)
def test_errors_are_irerror_subclasses(path: Path, error: type[irpool.IRError]) -> None:
    with pytest.raises(error) as caught:
        irpool.load(path).run({})
    assert isinstance(caught.value, irpool.IRError)


def test_invalid_model_error_carries_the_diagnostics() -> None:
    with pytest.raises(irpool.InvalidModelError) as caught:
        irpool.load(EXAMPLES / "broken" / "zero_stride.xml").run({})
    assert [d.code for d in caught.value.diagnostics] == ["IR206"]


def test_unknown_op_on_the_path_is_an_execution_error(tmp_path: Path) -> None:
    text = POOL.read_text().replace(
        'type="AvgPool" version="opset1"', 'type="Erf" version="opset1"'
    )
    path = tmp_path / "erf.xml"
    path.write_text(text)
    model = irpool.load(path)
    assert {d.code for d in model.validate()} <= {"IR202", "IR210"}
    with pytest.raises(
        irpool.ExecutionError, match=r'layer 1 "pool" \(Erf\).*cannot be executed'
    ) as caught:
        model.run({"input": np.zeros((1, 2, 5, 5), np.float32)})
    # The list names every op a kernel runs, those of a shared base class (Reduce) too.
    assert "ReduceMax, ReduceMean, ReduceMin, ReduceProd, ReduceSum, Reshape" in str(caught.value)


def test_what_a_kernel_refuses_names_its_layer(tmp_path: Path) -> None:
    """A u8 ReduceProd whose product reaches 40,000: the CPU's result depends on its kernel,
    so irpool refuses it, and says which layer."""
    layers = [
        ir.layer(
            0,
            "input",
            "Parameter",
            "opset1",
            ir.data([("shape", "2,3"), ("element_type", "u8")]),
            (),
            [ir.port(0, (2, 3), "U8", names="input")],
        ),
        ir.const(1, "axes", [1]),
        ir.layer(
            2,
            "product",
            "ReduceProd",
            "opset1",
            ir.data([("keep_dims", "false")]),
            [ir.port(0, (2, 3), "U8"), ir.port(1, (1,), "I64")],
            [ir.port(2, (2,), "U8")],
        ),
        ir.layer(3, "out", "Result", "opset1", "", [ir.port(0, (2,), "U8")]),
    ]
    edges = [ir.edge(0, 0, 2, 0), ir.edge(1, 0, 2, 1), ir.edge(2, 2, 3, 0)]
    path = tmp_path / "product.xml"
    path.write_text(ir.net(layers, edges))
    path.with_suffix(".bin").write_bytes(np.array([1], np.int64).tobytes())
    model = irpool.load(path)
    assert not [d for d in model.validate() if d.severity is irpool.Severity.ERROR]
    rows = np.array([[1, 200, 200], [1, 2, 3]], np.uint8)
    with pytest.raises(irpool.ExecutionError, match=r'^layer 2 "product" \(ReduceProd\): '):
        model.run({"input": rows})
    small = np.array([[1, 20, 10], [1, 2, 3]], np.uint8)
    np.testing.assert_array_equal(model.run({"input": small})["out"], [200, 6])


def test_the_cannot_run_message_names_every_op_irpool_models(tmp_path: Path) -> None:
    # Every op irpool checks, it also runs; the message is derived, so none is left out.
    text = POOL.read_text().replace(
        'type="AvgPool" version="opset1"', 'type="Erf" version="opset1"'
    )
    path = tmp_path / "erf.xml"
    path.write_text(text)
    with pytest.raises(irpool.ExecutionError) as caught:
        irpool.load(path).run({"input": np.zeros((1, 2, 5, 5), np.float32)})
    listed = str(caught.value).split("it runs ")[1].removesuffix(" only").split(", ")
    assert listed == sorted({op.type_name for op in registered_ops()})
    assert {"ReduceMean", "ReduceMax", "Parameter", "Const", "Result"} <= set(listed)


def test_memory_is_checked_before_allocating(monkeypatch: pytest.MonkeyPatch) -> None:
    # On a 1 MiB machine every run needs a share of the memory worth checking.
    monkeypatch.setattr(memory, "physical_memory", lambda: 1 << 20)
    monkeypatch.setattr(memory, "available_memory", lambda: 250)
    expected = r'"pool".*\[1,2,3,3\] \(f32\) needs 72 bytes,.* only 250 bytes'
    with pytest.raises(irpool.ExecutionError, match=expected):
        irpool.load(POOL).run({"input": np.zeros((1, 2, 5, 5), np.float32)})


def _retyped(tmp_path: Path, element_type: str, precision: str) -> Path:
    """POOL with another element type on every tensor."""
    text = POOL.read_text().replace('element_type="f32"', f'element_type="{element_type}"')
    path = tmp_path / f"pool_{element_type}.xml"
    path.write_text(text.replace('precision="FP32"', f'precision="{precision}"'))
    return path


def _holding(dtype: str, value: float, index: tuple[int, ...] = (0, 1, 2, 3)) -> np.ndarray:
    array = np.ones((1, 2, 5, 5), dtype)
    array[index] = value
    return array


@pytest.mark.parametrize(
    ("element_type", "precision", "given", "message"),
    [
        ("i32", "I32", _holding("f8", np.nan), "cannot cast float64 to i32"),
        (
            "i32",
            "I32",
            _holding("i8", 1).astype(np.int64) * 2**40,
            "value 1099511627776 at index [0,0,0,0] does not fit in i32 (-2147483648..2147483647)",
        ),
        (
            "i32",
            "I32",
            _holding("i8", -(2**31) - 1, (0, 1, 4, 2)),
            "value -2147483649 at index [0,1,4,2]",
        ),
        ("f32", "FP32", _holding("f8", 1e39), "value 1e+39 at index [0,1,2,3] does not fit in f32"),
        ("f16", "FP16", _holding("f8", -7e4), "value -70000.0 at index [0,1,2,3] does not fit"),
        ("f16", "FP16", _holding("i4", 65520), "value 65520 at index [0,1,2,3] does not fit"),
        ("bf16", "BF16", _holding("f4", 3.4e38), "does not fit in bf16 (largest 3.38953e+38)"),
    ],
)
def test_cast_refuses_values_beyond_the_target_range(
    tmp_path: Path, element_type: str, precision: str, given: np.ndarray, message: str
) -> None:
    model = irpool.load(_retyped(tmp_path, element_type, precision))
    with pytest.raises(irpool.InputError, match=re.escape(message)):
        model.run({"input": given}, cast=True)


def test_cast_keeps_non_finite_floats_and_rounds_within_range(tmp_path: Path) -> None:
    x = _holding("f8", np.inf)
    x[0, 0, 0, 0] = np.nan
    x[0, 0, 4, 4] = 1 + 2**-30  # rounds to 1 in f32: a cast, not an overflow
    notes: list[str] = []
    output = irpool.load(POOL).run({"input": x}, cast=True, on_cast=notes.append)["output"]
    assert notes == ['input "input": cast float64 to f32']
    assert np.isnan(output[0, 0, 0, 0]) and np.isinf(output[0, 1, 1, 1])


def test_a_small_run_does_not_read_the_memory_available(monkeypatch: pytest.MonkeyPatch) -> None:
    def unread() -> int:
        raise AssertionError("a run needing under 1/16 of the machine's memory reads no more")

    monkeypatch.setattr(memory, "physical_memory", lambda: 1 << 40)
    monkeypatch.setattr(memory, "available_memory", unread)
    model = irpool.load(POOL)
    assert model.run({"input": np.zeros((1, 2, 5, 5), np.float32)})["output"].shape == (1, 2, 3, 3)


# (IR version, the pool's port names, the Result's output_names, the key OpenVINO's
# get_any_name gives; None: no such attribute). The Result layer is named "Result_3".
OUTPUT_NAMES = {
    "v11 port names: the smallest": (11, "zeta,alpha", None, "alpha"),
    "v11 output_names replace the port's": (11, "y", "logits", "logits"),
    "v11 output_names: the smallest": (11, "y", "zz,logits", "logits"),
    "v11 escaped comma": (11, "y", "b\\,a,c", "b,a"),
    "v11 empty output_names": (11, "y", "", "y"),
    "v11 no names: the Result layer's": (11, None, None, "Result_3"),
    "v10 adds the producing layer's name": (10, "y", None, "pool"),
    "v10 port names": (10, "zeta,alpha", None, "alpha"),
    "v10 reads no output_names": (10, "y", "a", "pool"),
    "v10 no names": (10, None, None, "pool"),
}


def _named(tmp_path: Path, version: int, port_names: str | None, output_names: str | None) -> Path:
    text = POOL.read_text().replace('version="11"', f'version="{version}"', 1)
    port = '<port id="1" precision="FP32"'
    named = f'{port} names="{port_names}">' if port_names is not None else f"{port}>"
    text = text.replace(f'{port} names="output">', named)
    result = 'name="Result_3" type="Result" version="opset1"'
    if output_names is not None:
        result += f' output_names="{output_names}"'
    text = text.replace(
        'name="output" type="Result" version="opset1" output_names="output"', result
    )
    path = tmp_path / "named.xml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("version", "port", "declared", "key"), OUTPUT_NAMES.values(), ids=list(OUTPUT_NAMES)
)
def test_results_are_keyed_as_openvino_names_them(
    tmp_path: Path, version: int, port: str | None, declared: str | None, key: str
) -> None:
    model = irpool.load(_named(tmp_path, version, port, declared))
    assert [o.name for o in model.outputs] == [key]
    assert model.outputs[0].layer.name == "Result_3"
    assert list(model.run({"input": np.zeros((1, 2, 5, 5), np.float32)})) == [key]


@pytest.mark.oracle
@pytest.mark.parametrize(
    ("version", "port", "declared", "key"), OUTPUT_NAMES.values(), ids=list(OUTPUT_NAMES)
)
def test_openvino_names_the_outputs_so(
    tmp_path: Path, version: int, port: str | None, declared: str | None, key: str
) -> None:
    ov = pytest.importorskip("openvino")
    (output,) = ov.Core().read_model(_named(tmp_path, version, port, declared)).outputs
    names = output.get_names()
    assert (output.get_any_name() if names else output.get_node().get_friendly_name()) == key


def test_two_results_of_one_tensor_keep_both(tmp_path: Path) -> None:
    again = ir.result(3, "again", (1, 2, 3, 3))
    text = POOL.read_text().replace("</layers>", again + "</layers>")
    text = text.replace("</edges>", ir.edge(1, 1, 3, 0) + "</edges>")
    path = tmp_path / "twice.xml"
    path.write_text(text)
    outputs = irpool.load(path).run({"input": np.ones((1, 2, 5, 5), np.float32)})
    assert list(outputs) == ["output", "again"]


def test_a_dynamic_model_keeps_a_bounded_number_of_kernel_preparations() -> None:
    """What a kernel prepares is kept per op and input shape; a model run on many shapes
    keeps the latest few, not one per shape it ever saw."""
    model = irpool.load(EXAMPLES / "valid" / "avgpool14_dynamic.xml")
    for width in range(1, 3 * registry.PREPARED_PER_OP):
        model.run({"input": np.ones((1, 3, 4, width), np.float32)})
    pool = next(op for op in model.checked.ops.values() if op.kernel_cache)
    assert len(pool.kernel_cache) == registry.PREPARED_PER_OP


def test_the_dtype_message_names_the_api_s_argument() -> None:
    with pytest.raises(irpool.InputError) as raised:
        irpool.load(POOL).run({"input": np.ones((1, 2, 5, 5))})
    assert str(raised.value).endswith("got float64 (cast=True converts within a kind, and says so)")
    assert "--cast" not in str(raised.value)


def _two_inputs(tmp_path: Path) -> Path:
    """a + b, each f32 [2]."""
    ports = [ir.port(0, (2,)), ir.port(1, (2,))]
    add = ir.layer(2, "sum", "Add", "opset1", "", ports, [ir.port(2, (2,))])
    layers = [
        ir.parameter(0, "a", (2,)),
        ir.parameter(1, "b", (2,)),
        add,
        ir.result(3, "out", (2,)),
    ]
    edges = [ir.edge(0, 0, 2, 0), ir.edge(1, 0, 2, 1), ir.edge(2, 2, 3, 0)]
    return ir.write(tmp_path, ir.net(layers, edges))


def test_inputs_come_as_openvino_takes_them(tmp_path: Path) -> None:
    """A list or tuple in the Parameters' order, and one array for a model of one input."""
    a, b = np.float32([1, 2]), np.float32([10, 20])
    model = irpool.load(_two_inputs(tmp_path))
    for given in ([a, b], (a, b), {"a": a, 1: b}):
        np.testing.assert_array_equal(model.run(given)["out"], [11, 22])
    x = np.arange(50, dtype=np.float32).reshape(1, 2, 5, 5)
    pool = irpool.load(POOL)
    np.testing.assert_array_equal(pool.run(x)["output"], pool.run({"input": x})["output"])


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (np.float32([1, 2]), 'one array given for 2 inputs ("a" (f32 [2]), "b" (f32 [2]))'),
        ("a", "inputs of type str: give a mapping"),
        (3, "inputs of type int: give a mapping"),
    ],
)
def test_inputs_of_another_form_are_an_input_error(
    tmp_path: Path, given: object, message: str
) -> None:
    model = irpool.load(_two_inputs(tmp_path))
    with pytest.raises(irpool.InputError, match=re.escape(message)):
        model.run(given)  # type: ignore[arg-type]
