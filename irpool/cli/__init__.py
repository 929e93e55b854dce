"""The command line: one module per command; each only calls the API and formats results.

Exit codes: 0 no errors (warnings allowed), 1 at least one error, 2 usage or internal error.
"""

from irpool.cli.app import EXIT_FINDINGS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, cli, main

__all__ = ["EXIT_FINDINGS", "EXIT_INTERNAL", "EXIT_OK", "EXIT_USAGE", "cli", "main"]
