"""Shared fixtures, and OpenVINO's telemetry kept off for every test run.

`openvino.convert_model` reports each conversion to an analytics host (openvino_telemetry,
from a forked process: 25 name lookups for 3 conversions, measured) unless `CI=true`, or the
user has opted out in ~/intel/openvino_telemetry. `OPENVINO_TELEMETRY_DISABLED` is read by
neither. The converter falls back to its own no-op stub when openvino_telemetry cannot be
imported, so the tests make it unimportable before anything imports OpenVINO: nothing is
sent, and neither the environment (CI=true would also switch hypothesis to its CI profile)
nor the user's home is touched."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from irpool.cpu import compressed_weights
from irpool.cpu.isa import AVX512_CORE

sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]


@pytest.fixture(autouse=True, scope="session")
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """irpool measures its strategy choices and keeps them in the user's cache directory
    (irpool/execute/engine/tuning.py): tests, and the commands they start, take the cost
    model's choices (IRPOOL_TUNE=0: the same on every machine and every run, whatever the
    load) and a cache directory of their own; tests/execute/test_tuning.py measures."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
        patch.setenv("IRPOOL_TUNE", "0")
        yield


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def vnni_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compressed products as an AVX-512 (VNNI) host runs them, whatever this host is: unit
    tests of that path; an AVX2 host's are tests/differential/test_compressed_products.py's."""
    monkeypatch.setattr(compressed_weights, "cpu_isa", lambda: AVX512_CORE)
