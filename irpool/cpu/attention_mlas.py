"""The MLAS products of the CPU plugin's attention node on a prompt (irpool.cpu.attention_node):
each head's query rows go in blocks of 4 through MLAS's sgemm, whose elements are FMA chains
over K in blocks of its K stride, a block of one row through its M=1 AVX kernels. The same on
AVX-512 and AVX2 hosts (docs/ops/ScaledDotProductAttention.md#the-attention-node). Measured
2026-12-07 (AMD EPYC family 25 model 17, AVX-512, and family 25 model 1, AVX2; OpenVINO
2026.4.1).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.fma_chains import fma_chains
from irpool.cpu.numerics import F32

ROW_BLOCK = 4  # query rows per MLAS call
PRODUCT_LANES = 8  # the M=1 kernel's AVX lanes
_STRIDE = 128  # MLAS_SGEMM_STRIDEN and MLAS_SGEMM_STRIDEK


def mlas_product(
    x: NDArray[np.float32], y: NDArray[np.float32], by_keys: bool
) -> NDArray[np.float32]:
    """x @ y as the node's MLAS calls compute it, a call per block of 4 rows of x (the same
    chains in every block of several rows, so those go in one); `by_keys`: y is keyᵀ (MLAS
    reads it transposed)."""
    rows, depth = x.shape[-2:]
    alone = rows % ROW_BLOCK == 1  # the last block holds one row: MLAS's M=1 kernel
    body = rows - 1 if alone else rows
    parts = [fma_chains(x[..., :body, :], y, _stride_k(y.shape[-1], depth))] if body else []
    if alone:
        last = x[..., body:, :]
        parts.append(_one_row_by_keys(last, y) if by_keys else _one_row_by_values(last, y))
    return np.concatenate(parts, axis=-2) if len(parts) > 1 else parts[0]


def _stride_k(columns: int, depth: int) -> int:
    """MLAS's K stride: 128, halved while half still covers K when N >= K, else doubled
    while N leaves half of a (halved) N stride of at least 16."""
    stride_n, stride_k = _STRIDE, _STRIDE
    if columns >= depth:
        while stride_k // 2 >= depth:
            stride_n, stride_k = stride_n * 2, stride_k // 2
    else:
        while stride_n > 16 and stride_n // 2 >= columns:
            stride_n, stride_k = stride_n // 2, stride_k * 2
    return stride_k


def _one_row_by_keys(x: NDArray[np.float32], keys: NDArray[np.float32]) -> NDArray[np.float32]:
    """MlasSgemmKernelM1TransposeBAvx: one query row by every key, products rounded, summed
    in 8 lanes over E, the lanes reduced as the key's group (4, then 2, then 1 keys) does."""
    depth, count = x.shape[-1], keys.shape[-1]
    padded = -(-depth // PRODUCT_LANES) * PRODUCT_LANES
    products = np.swapaxes(keys, -1, -2) * x  # [..., keys, E]
    products = np.concatenate(
        [products, np.zeros((*products.shape[:-1], padded - depth), F32)], axis=-1
    )
    chunks = products.reshape(*products.shape[:-1], padded // PRODUCT_LANES, PRODUCT_LANES)
    s = np.add.accumulate(chunks, axis=-2)[..., -1, :]
    by_four = (((s[..., 0] + s[..., 1]) + s[..., 2]) + s[..., 3]) + (
        ((s[..., 4] + s[..., 5]) + s[..., 6]) + s[..., 7]
    )
    by_two = ((s[..., 0] + s[..., 2]) + (s[..., 4] + s[..., 6])) + (
        (s[..., 1] + s[..., 3]) + (s[..., 5] + s[..., 7])
    )
    alone = ((s[..., 0] + s[..., 1]) + (s[..., 2] + s[..., 3])) + (
        (s[..., 4] + s[..., 5]) + (s[..., 6] + s[..., 7])
    )
    fours = count // 4 * 4
    pairs = fours + (2 if count % 4 >= 2 else 0)
    place = np.arange(count)
    result = np.where(place < fours, by_four, np.where(place < pairs, by_two, alone))
    return (result + F32(0))[..., None, :]  # type: ignore[no-any-return]


def _one_row_by_values(x: NDArray[np.float32], y: NDArray[np.float32]) -> NDArray[np.float32]:
    """MlasSgemmKernelM1Avx: one row of weights by the values, products rounded, each group
    of 4 keys (then 2, then 1) summed in order and added to the running sum."""
    count = x.shape[-1]
    products = x[..., 0, :, None] * y  # [..., keys, Ev]
    fours = count // 4 * 4
    groups = products[..., :fours, :].reshape(*products.shape[:-2], fours // 4, 4, -1)
    sums = ((groups[..., 0, :] + groups[..., 1, :]) + groups[..., 2, :]) + groups[..., 3, :]
    if count % 4 >= 2:
        pair = products[..., fours, :] + products[..., fours + 1, :]
        sums = np.concatenate([sums, pair[..., None, :]], axis=-2)
    if count % 2:
        sums = np.concatenate([sums, products[..., -1:, :]], axis=-2)
    start = np.zeros((*sums.shape[:-2], 1, sums.shape[-1]), F32)
    running = np.add.accumulate(np.concatenate([start, sums], axis=-2), axis=-2)
    last: NDArray[np.float32] = running[..., -1:, :]
    return last
