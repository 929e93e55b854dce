"""Stage 3: checks driven by op declarations, and shape inference."""
