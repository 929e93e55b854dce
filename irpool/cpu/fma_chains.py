"""Matrix products summed as the CPU's FMA kernels sum them, bit for bit: each output a
chain of f32 FMAs over K (or over blocks of K, added), as MLAS's sgemm, the attention
snippet and the CPU's products by grouped compressed weights compute it. The chains take a
few NumPy calls per K, so callers emulate them only up to `EXACT_MACS` multiply-adds a
product (`EXACT_MACS_QUANTIZED` where an int8 quantization reads it) and use BLAS beyond
(within the op's tolerance).
"""

from __future__ import annotations

from math import prod

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import F32

EXACT_MACS = 2**24  # products emulated up to here (about a second of NumPy at most)
# and up to here where an int8 quantization of activations reads the result (a last bit can
# move one of its steps): 0.2 s or so
EXACT_MACS_QUANTIZED = 2**27
_PRODUCTS_HELD = 2**16  # the products of several K a chain holds at a time (a step's few)


def fma_chains(x: NDArray[np.float32], y: NDArray[np.float32], stride: int) -> NDArray[np.float32]:
    """x @ y, each element FMAs over a block of `stride` of K from 0, the blocks added: the
    products exact in f64 (the operands widened once: f64 by f64 is NumPy's fastest loop),
    each sum rounded to f32 as an FMA rounds."""
    batch = x.shape[:-2]
    if batch != y.shape[:-2]:  # np.broadcast_shapes costs microseconds
        batch = np.broadcast_shapes(batch, y.shape[:-2])
    shape = (*batch, x.shape[-2], y.shape[-1])
    depth = x.shape[-1]
    group = min(depth, max(1, _PRODUCTS_HELD // prod(shape)))
    wide_x = np.moveaxis(x, -1, 0).astype(np.float64)[..., None]  # [K, ..., M, 1]
    wide_y = np.moveaxis(y, -2, 0).astype(np.float64)[..., None, :]  # [K, ..., 1, N]
    products = np.empty((group, *shape))  # each K's a contiguous array
    result = None
    for start in range(0, depth, stride):
        chain = np.zeros(prod(shape), F32)  # flat: a ufunc call on 1-D costs the least
        wide = np.zeros(chain.size)  # the chain in f64
        stop = min(start + stride, depth)
        for first in range(start, stop, group):
            last = min(first + group, stop)
            held = products[: last - first]
            np.multiply(wide_x[first:last], wide_y[first:last], out=held)
            for product in held.reshape(last - first, -1):
                np.add(product, wide, out=wide)  # summed in f64, rounded as an FMA rounds
                chain[...] = wide
                wide[...] = chain
        result = chain if result is None else result + chain
    assert result is not None
    return result.reshape(shape)
