"""A chain of identical pools, written as OpenVINO's serializer writes it, with each layer's
first line known: for tests of where findings point in a file of repeated layers."""

from __future__ import annotations

from pathlib import Path

# One AvgPool layer; {id} and {name} vary, the body is the same text every time. Its input
# dim " 4" is non-canonical (IR113) and its output declares 5 where 4 is inferred (IR301).
POOL = """\
		<layer id="{id}" name="{name}" type="AvgPool" version="opset1">
			<data kernel="3,3" strides="1,1" pads_begin="1,1" pads_end="1,1" exclude-pad="true" />
			<input>
				<port id="0" precision="FP32">
					<dim>1</dim>
					<dim>1</dim>
					<dim>4</dim>
					<dim> 4</dim>
				</port>
			</input>
			<output>
				<port id="1" precision="FP32"{names}>
					<dim>1</dim>
					<dim>1</dim>
					<dim>4</dim>
					<dim>5</dim>
				</port>
			</output>
		</layer>
"""


HEAD = """\
<?xml version="1.0"?>
<net name="repeated" version="11">
	<layers>
		<layer id="0" name="input" type="Parameter" version="opset1">
			<data shape="1,1,4,4" element_type="f32" />
			<output>
				<port id="0" precision="FP32">
					<dim>1</dim>
					<dim>1</dim>
					<dim>4</dim>
					<dim>4</dim>
				</port>
			</output>
		</layer>
"""


RESULT = """\
		<layer id="{id}" name="output" type="Result" version="opset1">
			<input>
				<port id="0" precision="FP32">
					<dim>1</dim>
					<dim>1</dim>
					<dim>4</dim>
					<dim>4</dim>
				</port>
			</input>
		</layer>
	</layers>
	<edges>
"""


EDGE = '\t\t<edge from-layer="{a}" from-port="{port}" to-layer="{b}" to-port="0" />\n'


def write_chain(path: Path, count: int, named: bool = False) -> list[int]:
    """A Parameter, `count` identical pools and a Result; returns each pool's first line.
    `named`: each pool's output has a tensor name of its own, as real models have."""
    text = HEAD
    starts = []
    for index in range(1, count + 1):
        starts.append(text.count("\n") + 1)
        names = f' names="tensor {index}"' if named else ""
        text += POOL.format(id=index, name=f"pool {index}", names=names)
    text += RESULT.format(id=count + 1)
    for index in range(1, count + 2):
        text += EDGE.format(a=index - 1, port=0 if index == 1 else 1, b=index)
    path.write_text(text + "\t</edges>\n</net>\n", encoding="utf-8")
    return starts
