"""`--openvino-version`: what an older OpenVINO release's reader refuses (IR230), from the
table tools/gen_releases.py measured with each release (irpool/ops/releases.json)."""

from __future__ import annotations

from importlib import metadata  # the test may load it; irpool does not
from pathlib import Path

import pytest
from click.testing import CliRunner

import irpool
from irpool.check.releases import ReleaseError, default_target, parse_release
from irpool.cli import cli
from tests import ir


def _bitwise_model(directory: Path) -> Path:
    """x, y boolean [4] -> BitwiseAnd-13 -> Result."""
    shape = (4,)
    p = "BOOL"
    layers = [
        ir.parameter(0, "x", shape, "boolean"),
        ir.parameter(1, "y", shape, "boolean"),
        ir.layer(
            2, "and", "BitwiseAnd", "opset13", "",
            [ir.port(0, shape, p), ir.port(1, shape, p)], [ir.port(2, shape, p)],
        ),
        ir.result(3, "z", shape, "BOOL"),
    ]  # fmt: skip
    edges = [ir.edge(0, 0, 2, 0), ir.edge(1, 0, 2, 1), ir.edge(2, 2, 3, 0)]
    return ir.write(directory, ir.net(layers, edges))


def _codes(path: Path, release: str) -> list[str]:
    """The IR230 findings (BitwiseAnd may also be IR202 where irpool does not model it)."""
    found = irpool.load(path, openvino_version=release).validate()
    return [d.code for d in found if d.code == "IR230"]


@pytest.mark.parametrize(
    ("text", "release"),
    [("2023.0", (2023, 0)), ("2024.6.0", (2024, 6)), ("2026.4.1-20939-abc", (2026, 4))],
)
def test_releases_are_read_as_openvino_numbers_them(text: str, release: tuple[int, int]) -> None:
    assert parse_release(text) == release


@pytest.mark.parametrize("text", ["2023", "latest", "23.0", "２０２３.0", ""])
def test_what_is_no_release_is_refused(text: str) -> None:
    with pytest.raises(ReleaseError):
        parse_release(text)


def test_an_op_of_a_newer_opset_is_refused_by_older_releases(tmp_path: Path) -> None:
    path = _bitwise_model(tmp_path)
    assert _codes(path, "2023.0") == ["IR230"]
    found = irpool.load(path, openvino_version="2023.0").validate()
    (finding,) = [d for d in found if d.code == "IR230"]
    assert finding.message.startswith("BitwiseAnd of opset13 is read from OpenVINO 2023.2;")
    assert _codes(path, "2026.4") == []


def test_before_the_oldest_release_measured_only_what_came_later_is_reported(
    tmp_path: Path,
) -> None:
    """2022.3 cannot be measured here; opset1 is older than 2023.0, so it is not reported,
    and BitwiseAnd, first read after 2023.0, is."""
    assert _codes(ir.write(tmp_path, ir.pool_model()), "2022.3") == []
    (tmp_path / "b").mkdir()
    assert _codes(_bitwise_model(tmp_path / "b"), "2022.3") == ["IR230"]


def test_an_element_type_of_a_newer_release_is_refused(tmp_path: Path) -> None:
    path = ir.write(tmp_path, ir.pool_model().replace('element_type="f32"', 'element_type="u2"'))
    assert _codes(path, "2024.0") == ["IR230"]  # u2 is read from 2024.1
    assert _codes(path, "2024.1") == []


def test_an_attribute_value_of_a_newer_release_is_refused(tmp_path: Path) -> None:
    """AvgPool-14's rounding_type ceil_torch came a release after AvgPool-14 itself."""
    text = ir.pool_model().replace('"AvgPool" version="opset1"', '"AvgPool" version="opset14"')
    path = ir.write(tmp_path, text.replace('rounding_type="floor"', 'rounding_type="ceil_torch"'))
    assert _codes(path, "2024.0") == ["IR230"]
    assert _codes(path, "2024.1") == []


def test_the_default_is_the_installed_release() -> None:
    try:
        installed = parse_release(metadata.version("openvino"))
    except metadata.PackageNotFoundError:
        pytest.skip("OpenVINO is not installed: the default is the newest measured")
    assert default_target() == installed


@pytest.mark.parametrize(
    ("args", "config", "code"),
    [
        (["--openvino-version", "2023.0"], "", 1),
        (["--openvino-version", "2024.0"], "", 0),
        ([], 'openvino-version = "2023.0"\n', 1),
        (["--openvino-version", "2026.4"], 'openvino-version = "2023.0"\n', 0),
        (["--openvino-version", "soon"], "", 2),
        ([], "openvino-version = 2023\n", 2),
    ],
)
def test_the_command_line_and_the_configuration(
    tmp_path: Path, args: list[str], config: str, code: int
) -> None:
    path = _bitwise_model(tmp_path)
    (tmp_path / "pyproject.toml").write_text(f"[tool.irpool]\n{config}", encoding="utf-8")
    settings = ["--config", str(tmp_path / "pyproject.toml")]
    result = CliRunner().invoke(cli, ["validate", str(path), *settings, *args])
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
