"""Low-bit element types as OpenVINO 2026.4 packs them in a `.bin`, decoded into NumPy.

Measured (tools/gen_low_bit_golden.py, tests/golden/low_bit_cpu.json; docs/element-types.md):
- u1: eight elements a byte, the first in the most significant bit;
- u2: four a byte, the first in the least significant bits;
- u4, i4, nf4, f4e2m1: two a byte, the first in the low nibble (i4: two's complement);
- u3: eight elements in three bytes: the low two bits of elements 0-3 in byte 0 and of 4-7
  in byte 1 (the first element in the top bits), their high bits in byte 2 (first at the top);
- u6: four elements in three bytes: the low four bits of elements 0 and 1 in byte 0 and of 2
  and 3 in byte 1 (the first in the high nibble), their high two bits in byte 2 (first at the
  top);
- f8e4m3 (no infinity; S.1111.111 is NaN), f8e5m2 (f16's top byte), f8e8m0 (2**(byte-127);
  0xff is NaN).
The padding of a last byte (or three-byte block) is never read. irpool holds the unsigned types
as u8, i4 as i8, and the float types as f32, which hold every value exactly.

NumPy is imported on first use: checking a model reads only the sizes.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

# nf4's sixteen values (its element is an index), as the CPU converts them to f32 (measured).
NF4_VALUES = (
        -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
        -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
        0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
        0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0,
)  # fmt: skip
F4E2M1_VALUES = (0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6)
# Elements per block and bytes per block: u3 and u6 are packed in three-byte blocks.
BLOCKS = {"u3": (8, 3), "u6": (4, 3)}
BITS = {
    "u1": 1, "u2": 2, "u3": 3, "u4": 4, "u6": 6, "i4": 4, "nf4": 4, "f4e2m1": 4,
    "f8e4m3": 8, "f8e5m2": 8, "f8e8m0": 8,
}  # fmt: skip
LOW_BIT_TYPES = frozenset(BITS)


def packed_size(type_name: str, count: int) -> int:
    """The bytes `ov.save_model` writes for `count` elements (whole blocks for u3 and u6)."""
    if type_name in BLOCKS:
        elements, block = BLOCKS[type_name]
        return -(-count // elements) * block
    return (count * BITS[type_name] + 7) // 8


def held_dtype(type_name: str) -> np.dtype[Any]:
    """The NumPy dtype irpool holds a low-bit type's values in."""
    import numpy as np

    if type_name == "i4":
        return np.dtype(np.int8)
    return np.dtype(np.uint8 if type_name.startswith("u") else np.float32)


def unpack(type_name: str, raw: bytes | memoryview | NDArray[np.uint8], count: int) -> NDArray[Any]:
    """The first `count` elements packed in `raw`, as irpool holds them; `raw` holds at least
    `packed_size` bytes, except that u3 and u6 may stop within their last block (OpenVINO
    reads a `size` of whole bits) and read as zeros beyond."""
    import numpy as np

    data = np.frombuffer(raw, np.uint8) if not isinstance(raw, np.ndarray) else raw
    if type_name in BLOCKS:
        return _blocks(type_name, data, count)
    if type_name == "u1":
        return np.unpackbits(data, count=count, bitorder="big")
    if type_name == "u2":
        shifts = np.array([0, 2, 4, 6], np.uint8)
        return ((data[:, None] >> shifts) & 3).reshape(-1)[:count]
    if BITS[type_name] == 4:
        return _nibbles(type_name, data[: (count + 1) // 2])[:count]
    return _table(type_name)[data[:count]]


def _blocks(type_name: str, data: NDArray[np.uint8], count: int) -> NDArray[np.uint8]:
    import numpy as np

    elements, block = BLOCKS[type_name]
    blocks = -(-count // elements)
    padded = np.zeros(blocks * block, np.uint8)
    padded[: min(len(data), len(padded))] = data[: len(padded)]
    rows = padded.reshape(blocks, block)
    two_bits = np.array([6, 4, 2, 0], np.uint8)
    if type_name == "u3":
        low = (rows[:, :2, None] >> two_bits) & 3  # [blocks, 2 bytes, 4 elements]
        high = np.unpackbits(rows[:, 2:], axis=1, bitorder="big")
        values = low.reshape(blocks, 8) | (high << 2)
    else:
        low = np.stack([rows[:, :2] >> 4, rows[:, :2] & 15], axis=-1).reshape(blocks, 4)
        values = low | (((rows[:, 2:] >> two_bits) & 3) << 4)
    return values.reshape(-1)[:count].astype(np.uint8)


def _nibbles(type_name: str, data: NDArray[np.uint8]) -> NDArray[Any]:
    """Both elements of each byte, low nibble first: each byte widened to a little-endian
    16 bits with its high nibble moved into the high byte, whose bytes are then the elements
    in order (three passes over contiguous arrays, no strided writes); i4 sign-extended as
    (v ^ 8) - 8; nf4 and f4e2m1 looked up."""
    import numpy as np

    wide = data.astype(np.dtype("<u2"))
    wide |= wide << 4
    wide &= 0x0F0F
    nibbles = wide.view(np.uint8)
    if type_name == "i4":
        signed = np.bitwise_xor(nibbles, 8).view(np.int8)
        signed -= 8
        return signed
    return nibbles if type_name == "u4" else _table(type_name)[nibbles]


@cache
def _table(type_name: str) -> NDArray[np.float32]:
    """A float type's value of each code (as f32), read-only."""
    import numpy as np

    if type_name in ("nf4", "f4e2m1"):
        values = np.array(NF4_VALUES if type_name == "nf4" else F4E2M1_VALUES, np.float32)
    elif type_name == "f8e5m2":  # f16's top byte
        values = (np.arange(256, dtype=np.uint16) << 8).view(np.float16).astype(np.float32)
    elif type_name == "f8e8m0":
        values = np.append(np.ldexp(1.0, np.arange(255) - 127), np.nan).astype(np.float32)
    else:  # f8e4m3: no infinity; S.1111.111 is NaN
        codes = np.arange(256)
        exponent, mantissa = (codes >> 3) & 15, codes & 7
        magnitude = np.where(
            exponent == 0, mantissa * 2.0**-9, (1 + mantissa / 8) * 2.0 ** (exponent - 7)
        )
        magnitude = np.where((codes & 0x7F) == 0x7F, np.nan, magnitude)
        values = np.where(codes >= 128, -magnitude, magnitude).astype(np.float32)
    values.flags.writeable = False
    return values
