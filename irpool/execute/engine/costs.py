"""Every measured constant of the engine, in one place: what NumPy operations cost on the
reference machine (AMD EPYC), which the strategies' cost estimates are
built from, and the block sizes the loops use. Strategies compare estimates made of these,
so a constant re-measured here moves every estimate that uses it alike."""

from __future__ import annotations

# Blocks of N×C planes: smaller ones pay more NumPy calls, larger ones leave the cache
# between passes (measured for every strategy and for MaxPool's passes).
CHUNK_BYTES = 1 << 22
# Below this many input bytes, worker threads cost more than they save.
PARALLEL_MIN_BYTES = 1 << 21
# A matrix product is cut into tiles for the threads from this many multiply-adds a tile
# (about 0.1 ms; a hand-off to a worker costs tens of µs) and this many output rows or
# columns (each tile packs the other operand again: at 256, a few % of the product's time).
TILE_MACS = 1 << 22
SPAN_MIN = 256
# A convolution's tiles are shared by the threads only when each thread gets at least this
# many multiply-adds: handing a share to a worker and waking the caller when it is done cost
# 50-150 µs on the reference machine (an idle virtual core wakes slowly). Measured on
# mobilenet_v2's 1x1 layers: two tiles of 5.4M multiply-adds (24 -> 144 channels at 56x56,
# 96 -> 576 at 14x14) ran 1.2x slower on 2 threads than on 1; 15M (960 -> 320 at 7x7) 1.1x
# faster, 19-20M in 4 tiles 1.3-1.45x faster.
THREAD_MACS = 6 << 20
# A convolution whose output positions make one tile is cut along its output channels
# instead, in spans of at least this many (each packs the windows again: 0-4% of the
# product's time at 128 channels, 5-8% at 64, measured on resnet18's 7x7 to 28x28 shapes).
CHANNEL_SPAN_MIN = 128
# A product that copies its operand first (im2col, Winograd's transforms) does so in spans
# of about this many bytes, the reference machine's L2 (1 MB a core), so the product reads
# the copy from the cache (measured: 16 -> 16 channels 3x3 at 160x160 by im2col 3.8 ms whole,
# 2.5 ms in spans of 7 rows); spans of this many output positions (im2col) or tiles
# (Winograd) at the most, past which smaller spans measured no slower.
SPAN_BYTES = 1 << 20
COLUMN_SPAN_POSITIONS = 1024
WINOGRAD_SPAN_TILES = 256

# ns per element: a contiguous NumPy operation; a multiplication by a grid broadcast over
# the planes; a uint64 -> uint32 cast; an operation or copy with element strides.
FLAT_NS = 0.11
GRID_NS = 0.16
CAST_NS = 0.13
STRIDED_NS = 0.28
# ns per row of a row copy, of an operation on rows NumPy cannot merge, and per column (a
# 1-D view with one cache line per element).
COPY_ROW_NS = 3.5
ROW_NS = 11.0
COLUMN_NS = 1.4
# ns per ufunc call from Python (add, multiply, copyto on views, views made included).
UFUNC_CALL_NS = 1500.0
# Inputs larger than COLD_BYTES come from memory, where only streaming reads (contiguous,
# or one 1-D strided sweep) keep full bandwidth: extra ns per element that a first pass
# reads as strided rows, and per element and phase that it casts.
COLD_BYTES = 1 << 24
COLD_NS = 0.24
COLD_CAST_NS = 0.08
# Extra ns for each strided operand NumPy copies through its buffer, per element and per
# row; rows of BUFFER elements or more are used in place.
BUFFERED_NS = 0.045
BUFFERED_ROW_NS = 3.5
BUFFER = 2048

# ns per multiply-add in an OpenBLAS sgemm; per matrix product called from Python (BLAS's
# dispatch included, which a ufunc call does not pay); per product of a batch (NumPy loops
# over the batch in C).
MAC_NS = 0.02
MATMUL_CALL_NS = 2000.0
MATMUL_BATCH_NS = 300.0
# ns per element of the transformed input and output tiles of a Winograd convolution (its
# adds over strided views, with channels last; measured on 64 to 512 channels): F(2x2, 3x3),
# and F(4x4, 3x3), whose transforms are matrix products (0.7 times F(2x2)'s per element at 16
# to 64 channels). Products of few tiles by F(4x4)'s 36 filter matrices also cost BLAS's
# packing of those matrices: ns per filter element and span (resnet18's 256 and 512 channels
# at 14x14 and 7x7 took 2.1 and 5.0 ms, against 1.8 and 3.6 by F(2x2)).
WINOGRAD_NS = 0.7
WINOGRAD4_NS = 0.5
PACKED_NS = 0.4
# Entries of a combined (Kronecker) matrix up to which one product beats one per axis.
KRON_LIMIT = 1 << 16
# Output widths a banded matrix is cut into, so zeros far from the diagonal are skipped.
MATMUL_BLOCKS = (16, 32, 64)

# Plane lengths below this are summed by one matrix-vector product (NumPy's per-row
# reduction overhead dominates); longer ones by pairwise summation.
PAIRWISE_MIN = 256
