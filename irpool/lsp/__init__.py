"""The language server (`irpool server`): `analysis` answers from the validation engine,
`server` speaks the protocol (pygls and lsprotocol, the `server` extra)."""
