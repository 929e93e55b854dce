"""How OpenVINO's CPU plugin pairs the ReadValue and Assign layers of a variable: each
ReadValue with exactly one Assign. A layer left without a partner compiles, and the first
inference fails on it (IR638, measured: docs/ops/ReadValue.md#what-the-cpu-plugin-refuses).
"""

from __future__ import annotations

from collections.abc import Sequence

from irpool.graph.graph import Layer


def unpaired_layers(
    variable: str, reads: Sequence[Layer], writes: Sequence[Layer]
) -> list[tuple[Layer, str]]:
    """The layers of one variable (those OpenVINO builds, in XML order) the plugin leaves
    without a partner, each with why."""
    if not writes:
        return [
            (
                layer,
                f'no Assign writes variable "{variable}": OpenVINO reads the model, but the CPU '
                "plugin fails at the first inference (the ReadValue has no sibling output)",
            )
            for layer in reads
        ]
    found = [
        (
            layer,
            f'variable "{variable}" is read by {len(reads)} ReadValues; the CPU plugin pairs its '
            f'Assign with layer {reads[0].ref[0]} "{reads[0].name}" and fails at the first '
            "inference on this one (no sibling output)",
        )
        for layer in reads[1:]
    ]
    found += [
        (
            layer,
            f'variable "{variable}" is also assigned by layer {writes[0].ref[0]} '
            f'"{writes[0].name}": the CPU plugin fails at the first inference on this Assign '
            "(uninitialized assigned memory)",
        )
        for layer in writes[1:]
    ]
    return found
