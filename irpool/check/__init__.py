"""Stage 3: checks driven by op declarations. `attributes` reads each op's `<data>`;
`layer_checker` is the per-layer checker (shape inference in topological order), which
compares each port's declaration with what is inferred (`declarations`) and places its
findings where `locators` say (with the edit of a certain fix); `rewrites` finds what the CPU
plugin rewrites into something else, `names` checks tensor names, `coverage` counts what was
checked, `suppression` reads inline `irpool: ignore` comments."""
