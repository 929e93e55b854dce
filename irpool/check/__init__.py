"""Stage 3: checks driven by op declarations. `attributes` reads each op's `<data>`,
`layers` is the per-layer checker (shape inference, declared dims and precisions), whose
findings point at places `locators` names (with the edit of a certain fix), `names` checks
tensor names, `suppression` inline `irpool: ignore` comments."""
