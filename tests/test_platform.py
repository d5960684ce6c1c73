from __future__ import annotations

import configparser
import textwrap
from pathlib import Path

import pytest

from workbench.core.errors import UnknownName, UnsupportedPlatform
from workbench.core.platform import PLATFORMS, load_platforms, parse_ini
from workbench.core.resources import platforms_dir


def test_shipped_socs() -> None:
    assert set(PLATFORMS) == {"Ascend310P3", "Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4"}


@pytest.mark.parametrize(
    ("soc", "core_num", "aic", "ub", "ub_runtime"),
    [
        ("Ascend310P3", 8, 8, 262144, 262144),  # coupled: GetCoreNum = AI Cores (facts §1.4)
        ("Ascend910B1", 48, 24, 196608, 196352),  # split: GetCoreNumAiv = vector cores
        ("Ascend910B2", 48, 24, 196608, 196352),
        ("Ascend910B3", 40, 20, 196608, 196352),
        ("Ascend910B4", 40, 20, 196608, 196352),
    ],
)
def test_core_counts_and_ub_as_tiling_sees_them(soc: str, core_num: int, aic: int, ub: int, ub_runtime: int) -> None:
    p = PLATFORMS[soc]
    assert (p.core_num, p.core_num_aiv, p.core_num_aic, p.ub_size, p.ub_runtime) == (
        core_num,
        core_num,
        aic,
        ub,
        ub_runtime,
    )


def test_capabilities_per_architecture() -> None:
    m200, c220 = PLATFORMS["Ascend310P3"], PLATFORMS["Ascend910B3"]
    assert (m200.has_data_copy_pad, m200.has_bf16, m200.has_sync_all, m200.overflow_mode) == (
        False,
        False,
        False,
        "saturation",
    )
    assert (c220.has_data_copy_pad, c220.has_bf16, c220.has_sync_all, c220.overflow_mode) == (
        True,
        True,
        True,
        "inf_nan",
    )
    assert m200.memory_bandwidth == 204.8e9 and "UNVERIFIED" in m200.bandwidth_source
    assert c220.memory_bandwidth == 1.148e12
    assert "memory_bandwidth" in m200.uncertain


def test_every_value_line_in_shipped_files_names_a_source() -> None:
    for path in platforms_dir().glob("*.ini"):
        for line in path.read_text().splitlines():
            key = line.split("=")[0].strip()
            if (
                "=" in line
                and not line.lstrip().startswith(";")
                and key not in ("uncertain", "memory_bandwidth_source")
            ):
                assert ";" in line, f"{path.name}: {line!r} has no source comment"


def test_shipped_files_parse_as_plain_ini() -> None:
    for path in platforms_dir().glob("*.ini"):
        cfg = configparser.ConfigParser(inline_comment_prefixes=(";",))
        cfg.read(path)
        assert {"version", "SoCInfo", "AICoreSpec"} <= set(cfg.sections())


def _cann_tree(root: Path, body: str) -> Path:
    d = root / "aarch64-linux" / "data" / "platform_config"
    d.mkdir(parents=True)
    (d / "Ascend910B9.ini").write_text(textwrap.dedent(body))
    return d


CANN_INI = """
[version]
SoC_version=Ascend910B9
Short_SoC_version=Ascend910B
NpuArch=2201
[SoCInfo]
ai_core_cnt=10
vector_core_cnt=20
[AICoreSpec]
ub_size=196608
cube_freq=1000
[AICoreMemoryRates]
ddr_rate=32
"""


def test_reads_cann_platform_config_from_ascend_home_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _cann_tree(tmp_path, CANN_INI)
    (tmp_path / "aarch64-linux/data/platform_config/Ascend950.ini").write_text("[version]\nNpuArch=3510\n")
    monkeypatch.setenv("ASCEND_HOME_PATH", str(tmp_path))
    table = load_platforms()
    p = table["Ascend910B9"]
    assert p.core_num == 20 and p.core_num_aic == 10 and p.ub_runtime == 196352
    assert p.memory_bandwidth == 32 * 10 * 1000e6 and "derived" in p.bandwidth_source
    assert "Ascend950" not in table  # an architecture we do not model is skipped, not fatal
    assert "Ascend310P3" in table


def test_bad_ini_names_the_key(tmp_path: Path) -> None:
    path = tmp_path / "X.ini"
    path.write_text("[version]\nNpuArch=2002\n[SoCInfo]\nai_core_cnt=eight\n[AICoreSpec]\nub_size=1\n")
    with pytest.raises(UnsupportedPlatform, match=r"X.ini \[SoCInfo\] ai_core_cnt: got 'eight'"):
        parse_ini(path)


def test_unknown_platform_lists_the_known_ones() -> None:
    with pytest.raises(UnknownName, match=r"platform: got 'Ascend999'.*Ascend310P3"):
        PLATFORMS["Ascend999"]
