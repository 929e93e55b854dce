"""Shared fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from click.testing import CliRunner


@pytest.fixture(autouse=True, scope="session")
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """irpool keeps its measured strategy choices in the user's cache directory
    (irpool/execute/engine/tuning.py): tests, and the commands they start, use their own."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
        yield


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()
