"""The one place for what OpenVINO's CPU plugin does beyond the ops' plain semantics.

An op module (`irpool.ops`) says what an op means and a kernel (`irpool.execute.kernels`)
computes it; what the CPU plugin 2026.4 adds lives here, each behaviour once:

- `numerics`: how the CPU holds, rounds and saturates each element type, and its f32 path for
  integers (what a kernel computes in, and how its result is stored);
- `maxima`: how its max kernels (MaxPool, AdaptiveMaxPool, ReduceMax) compare and store;
- `isa`: the instruction set it computes with here, which some kernels' forms follow;
  `bf16_in_f32`: bf16 layers computed in f32 on a host without AVX-512;
- `compilation`: what it decides per layer when it compiles a model, where that changes the
  results (which dims a MaxPool pads, whether attention scales the key, which Convert kernel);
- `subnormal_constants`: how it holds f32 constants that hold subnormals;
- `trigonometry`: its Sin and Cos, the C library's sinf and cosf;
- `eltwise_fusion`, `reduce_merge`, `product_fusion`, `linear_fusion`, `rms_fusion`,
  `rope_fusion`: the fusions and rewrites that change results, as what runs in the layers'
  place (`replacements`);
- `pull_through_reduce`: a rewrite that breaks a Reduce's axes, which checking reports (IR309);
- `refusals` (its table in `declare`, the shape ops in `shape_refusals`): what it refuses to
  compile or run of what `read_model` takes, one rule per cause (IR6xx; IR214 names them all).

Each behaviour has a section in docs/cpu.md and a measuring function in tools/measure_cpu.py,
which `python tools/measure_cpu.py` re-runs against the installed OpenVINO.
"""
