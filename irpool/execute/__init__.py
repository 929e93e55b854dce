"""Stage 4: NumPy execution."""
