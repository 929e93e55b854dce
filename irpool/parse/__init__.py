"""Stage 1: reading IR XML (hardened), values as OpenVINO reads them, and source positions."""
