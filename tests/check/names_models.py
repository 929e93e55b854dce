"""Small IR models with colliding names, for the tensor-name tests (irpool/check/names.py)."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

NAMES = ("a", "b", "p", "q")
DIMS = "<dim>1</dim><dim>1</dim><dim>2</dim><dim>2</dim>"


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
            written = f' names="{",".join(names)}"' if names else ""
            return f'<port id="{port_id}" precision="FP32"{written}>{DIMS}</port>'

        for index, (name, names) in enumerate(self.parameters):
            layers.append(
                f'<layer id="{index}" name="{name}" type="Parameter" version="opset1">'
                f'<data shape="1,1,2,2" element_type="f32"/><output>{port(0, names)}</output>'
                "</layer>"
            )
        for index, (name, names, source) in enumerate(self.pools, start=len(self.parameters)):
            layers.append(
                f'<layer id="{index}" name="{name}" type="AvgPool" version="opset1">'
                '<data kernel="1,1" strides="1,1" pads_begin="0,0" pads_end="0,0" '
                'exclude-pad="true"/>'
                f"<input>{port(0, ())}</input><output>{port(1, names)}</output></layer>"
            )
            edges.append(self.edge(source, index))
        first = len(self.parameters) + len(self.pools)
        for index, (source, output_names) in enumerate(self.results, start=first):
            written = f' output_names="{",".join(output_names)}"' if output_names else ""
            layers.append(
                f'<layer id="{index}" name="result {index}" type="Result" version="opset1"'
                f"{written}><input>{port(0, ())}</input></layer>"
            )
            edges.append(self.edge(source, index))
        return (
            f'<?xml version="1.0"?>\n<net name="names" version="{self.version}"><layers>'
            f"{''.join(layers)}</layers><edges>{''.join(edges)}</edges></net>\n"
        )

    def edge(self, tensor: int, to_layer: int) -> str:
        port = 0 if tensor < len(self.parameters) else 1
        return f'<edge from-layer="{tensor}" from-port="{port}" to-layer="{to_layer}" to-port="0"/>'


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
