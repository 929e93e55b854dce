"""Stage 5: formatters. Each renders diagnostic records and nothing else."""
