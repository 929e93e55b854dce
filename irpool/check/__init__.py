"""Stage 3: checks driven by op declarations. `attributes` reads each op's `<data>`,
`layers` is the per-layer checker (shape inference, declared dims and precisions), `fixes`
the edits its findings carry for `--fix`, `names` tensor names, `suppression` inline
`irpool: ignore` comments."""
