"""`irpool server`: a language server (LSP over stdin/stdout) for editors, which validates
each open document as `validate` does, as it is typed.

Exit codes: 0 when the client shuts the server down, 2 when pygls/lsprotocol (the `server`
extra) are not installed.
"""

from __future__ import annotations

import sys

import click

from irpool.cli.app import EXIT_USAGE

# The modules of the `server` extra, as an ImportError names them.
EXTRA_MODULES = ("pygls", "lsprotocol", "cattrs", "attrs", "attr")


@click.command()
def command() -> None:
    """Serve the Language Server Protocol on stdin/stdout (needs irpool[server])."""
    try:
        from irpool.lsp.server import serve
    except ImportError as error:
        package = (error.name or "").split(".")[0]
        if package not in EXTRA_MODULES:
            raise
        click.echo(
            f"irpool: `irpool server` needs the `server` extra ({package} is not "
            "installed): pip install 'irpool[server]'",
            err=True,
        )
        sys.exit(EXIT_USAGE)
    serve()
