"""Small IR models with colliding names, for the tensor-name tests (irpool/check/names.py)."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from tests import ir

NAMES = ("a", "b", "p", "q")
SHAPE = (1, 1, 2, 2)


@dataclass(frozen=True)
class Case:
    version: int
    parameters: tuple[tuple[str, tuple[str, ...]], ...]  # (layer name, tensor names)
    pools: tuple[tuple[str, tuple[str, ...], int], ...]  # (layer name, names, source tensor)
    results: tuple[tuple[int, tuple[str, ...]], ...]  # (the tensor it takes, output_names)

    def xml(self) -> str:
        """Tensors are numbered: the Parameters first, then the pools; layer ids likewise."""
        layers, edges = [], []

        def port(port_id: int, names: tuple[str, ...]) -> str:
            return ir.port(port_id, SHAPE, names=",".join(names))

        for index, (name, names) in enumerate(self.parameters):
            data = ir.data([("shape", "1,1,2,2"), ("element_type", "f32")])
            layers.append(ir.layer(index, name, "Parameter", "opset1", data, (), [port(0, names)]))
        pool = ir.data(
            [
                ("kernel", "1,1"),
                ("strides", "1,1"),
                ("pads_begin", "0,0"),
                ("pads_end", "0,0"),
                ("exclude-pad", "true"),
            ]
        )
        for index, (name, names, source) in enumerate(self.pools, start=len(self.parameters)):
            inputs, outputs = [port(0, ())], [port(1, names)]
            layers.append(ir.layer(index, name, "AvgPool", "opset1", pool, inputs, outputs))
            edges.append(self.edge(source, index))
        first = len(self.parameters) + len(self.pools)
        for index, (source, output_names) in enumerate(self.results, start=first):
            result = ir.layer(index, f"result {index}", "Result", "opset1", "", [port(0, ())])
            if output_names:
                written = f' output_names="{",".join(output_names)}">'
                result = result.replace('version="opset1">', f'version="opset1"{written}', 1)
            layers.append(result)
            edges.append(self.edge(source, index))
        return ir.net(layers, edges, "names", self.version)

    def edge(self, tensor: int, to_layer: int) -> str:
        return ir.edge(tensor, 0 if tensor < len(self.parameters) else 1, to_layer, 0)


names = st.lists(st.sampled_from(NAMES), max_size=2, unique=True).map(tuple)


@st.composite
def cases(draw: st.DrawFn) -> Case:
    parameters = tuple(
        (draw(st.sampled_from(NAMES)), draw(names)) for _ in range(draw(st.integers(1, 2)))
    )
    pools: list[tuple[str, tuple[str, ...], int]] = []
    for _ in range(draw(st.integers(0, 3))):
        source = draw(st.integers(0, len(parameters) + len(pools) - 1))
        pools.append((draw(st.sampled_from(NAMES)), draw(names), source))
    tensors = len(parameters) + len(pools)
    result = st.tuples(st.integers(0, tensors - 1), st.one_of(st.just(()), names))
    results = tuple(draw(st.lists(result, min_size=1, max_size=2)))
    return Case(draw(st.sampled_from((10, 11))), parameters, tuple(pools), results)
