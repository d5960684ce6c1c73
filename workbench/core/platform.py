"""SoC platform records read from CANN-format `platform_config/<SoC>.ini` files.

The shipped files live in `data/platforms/` (found through `resources.py`, in a checkout or a wheel). When
`ASCEND_HOME_PATH` points at a CANN install, its own
`<arch>-linux/data/platform_config/*.ini` files are read too and take precedence for the same SoC
name. Keys a real CANN ini does not carry (bandwidth, overflow mode, runtime UB reserve) come from the
`[Workbench]` section of our files, or else from the architecture defaults below (each with its source).
"""

from __future__ import annotations

import configparser
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from . import resources, shown
from .errors import UnknownName, UnsupportedPlatform


@dataclass(frozen=True)
class ArchTraits:
    """What an NPU architecture (NpuArch) can do, as far as our kernels care."""

    arch: str
    coupled: bool  # Cube and Vector in one AI Core (310P) vs split AIC/AIV (A2)
    has_data_copy_pad: bool
    has_bf16: bool
    has_sync_all: bool
    overflow_mode: str  # "saturation" or "inf_nan"
    runtime_ub_reserve: int
    source: str


ARCH_TRAITS: dict[int, ArchTraits] = {
    2002: ArchTraits(
        arch="dav-m200",
        coupled=True,
        has_data_copy_pad=False,
        has_bf16=False,
        has_sync_all=False,
        overflow_mode="saturation",
        runtime_ub_reserve=0,
        source="docs/hardware.md#platforms-at-a-glance; "
        "docs/hardware.md#overflow-mode-saturation-vs-infnan (AI Core saturation only); "
        "docs/hardware.md#32-byte-alignment-and-data-movement (no DataCopyPad on 310P AI Core); "
        "docs/hardware.md#atomics-and-inter-core-sync (no hard SyncAll on dav-m200); "
        "runtime UB reserve unknown on 310P [UNVERIFIED]",
    ),
    2201: ArchTraits(
        arch="dav-c220",
        coupled=False,
        has_data_copy_pad=True,
        has_bf16=True,
        has_sync_all=True,
        overflow_mode="inf_nan",
        runtime_ub_reserve=256,
        source="docs/hardware.md#platforms-at-a-glance; "
        "docs/hardware.md#overflow-mode-saturation-vs-infnan (A2 defaults to INF_NAN); "
        "docs/hardware.md#32-byte-alignment-and-data-movement (DataCopyPad on A2); "
        "docs/hardware.md#unified-buffer-size-and-reserves (GetCoreMemSize(UB) = ini - 256, measured on 910B3 [3P])",
    ),
}


@dataclass(frozen=True)
class Platform:
    """One SoC as host tiling and the emulator see it. Core counts are what GetCoreNum*() return."""

    soc: str
    short_soc: str
    npu_arch: int
    ai_core_cnt: int
    vector_core_cnt: int
    cube_core_cnt: int
    ub_size: int
    l2_size: int
    traits: ArchTraits
    memory_bandwidth: float  # bytes/s, whole chip
    bandwidth_source: str
    clock_mhz: int | None
    source: str  # the ini file this record came from
    uncertain: tuple[str, ...] = ()  # keys whose value is marked [UNVERIFIED]/assumed

    def __repr__(self) -> str:
        return shown.render(self, "repr")

    def _repr_html_(self) -> str:
        return shown.render(self, "html")

    @property
    def core_num(self) -> int:
        """GetCoreNum(): AI Cores on coupled SoCs, vector cores (AIV) on split ones.

        See docs/hardware.md#core-counts-getcorenum.
        """
        return self.ai_core_cnt if self.traits.coupled else self.vector_core_cnt

    @property
    def core_num_aiv(self) -> int:
        return self.core_num

    @property
    def core_num_aic(self) -> int:
        return self.ai_core_cnt

    @property
    def ub_runtime(self) -> int:
        """What GetCoreMemSize(UB) is modelled to return at run time."""
        return self.ub_size - self.traits.runtime_ub_reserve

    @property
    def has_data_copy_pad(self) -> bool:
        return self.traits.has_data_copy_pad

    @property
    def has_bf16(self) -> bool:
        return self.traits.has_bf16

    @property
    def has_sync_all(self) -> bool:
        return self.traits.has_sync_all

    @property
    def overflow_mode(self) -> str:
        return self.traits.overflow_mode

    def summary(self) -> dict[str, object]:
        return {
            "soc": self.soc,
            "short_soc": self.short_soc,
            "arch": self.traits.arch,
            "npu_arch": self.npu_arch,
            "core_num": self.core_num,
            "ai_core_cnt": self.ai_core_cnt,
            "vector_core_cnt": self.vector_core_cnt,
            "ub_size": self.ub_size,
            "ub_runtime": self.ub_runtime,
            "l2_size": self.l2_size,
            "data_copy_pad": self.has_data_copy_pad,
            "bf16": self.has_bf16,
            "sync_all": self.has_sync_all,
            "overflow_mode": self.overflow_mode,
            "memory_bandwidth": self.memory_bandwidth,
            "bandwidth_source": self.bandwidth_source,
            "source": self.source,
            "uncertain": list(self.uncertain),
        }


def _int(cfg: configparser.ConfigParser, section: str, key: str, path: Path, default: int | None = None) -> int:
    raw = cfg.get(section, key, fallback=None)
    if raw is None:
        if default is not None:
            return default
        raise UnsupportedPlatform(f"{path.name} [{section}] {key}", None, "an integer value")
    try:
        return int(raw.strip())
    except ValueError:
        raise UnsupportedPlatform(f"{path.name} [{section}] {key}", raw, "an integer value") from None


def parse_ini(path: Path) -> Platform:
    """Read one CANN-format platform ini (inline `;` comments allowed) into a Platform."""
    cfg = configparser.ConfigParser(inline_comment_prefixes=(";", "#"), interpolation=None)
    cfg.optionxform = str  # type: ignore[assignment,method-assign]  # CANN keys are case-sensitive
    try:
        with path.open(encoding="utf-8") as fh:
            cfg.read_file(fh)
    except (OSError, configparser.Error) as exc:
        raise UnsupportedPlatform("platform file", str(path), f"a readable CANN platform ini ({exc})") from None
    soc = cfg.get("version", "SoC_version", fallback=path.stem).strip()
    arch = _int(cfg, "version", "NpuArch", path)
    if arch not in ARCH_TRAITS:
        raise UnsupportedPlatform(f"{path.name} [version] NpuArch", arch, f"one of {sorted(ARCH_TRAITS)}")
    traits = ARCH_TRAITS[arch]
    wb = "Workbench"
    default_bw = _derived_bandwidth(cfg, path)
    bandwidth = float(cfg.get(wb, "memory_bandwidth", fallback=str(default_bw[0])))
    return Platform(
        soc=soc,
        short_soc=cfg.get("version", "Short_SoC_version", fallback=soc).strip(),
        npu_arch=arch,
        ai_core_cnt=_int(cfg, "SoCInfo", "ai_core_cnt", path),
        vector_core_cnt=_int(cfg, "SoCInfo", "vector_core_cnt", path, default=0),
        cube_core_cnt=_int(cfg, "SoCInfo", "cube_core_cnt", path, default=0),
        ub_size=_int(cfg, "AICoreSpec", "ub_size", path),
        l2_size=_int(cfg, "SoCInfo", "l2_size", path, default=0),
        traits=traits,
        memory_bandwidth=bandwidth,
        bandwidth_source=cfg.get(wb, "memory_bandwidth_source", fallback=default_bw[1]).strip(),
        clock_mhz=_int(cfg, "AICoreSpec", "cube_freq", path, default=0) or None,
        source=str(path),
        uncertain=tuple(k.strip() for k in cfg.get(wb, "uncertain", fallback="").split(",") if k.strip()),
    )


def _derived_bandwidth(cfg: configparser.ConfigParser, path: Path) -> tuple[float, str]:
    """ddr_rate (B/cycle/core) x cores x clock (docs/hardware.md#memory-bandwidth), for CANN's own files."""
    rate = cfg.get("AICoreMemoryRates", "ddr_rate", fallback=None)
    freq = cfg.get("AICoreSpec", "cube_freq", fallback=None)
    cores = cfg.get("SoCInfo", "ai_core_cnt", fallback=None)
    if rate and freq and cores:
        bw = float(rate) * int(cores) * int(freq) * 1e6
        return bw, f"derived: ddr_rate x ai_core_cnt x cube_freq from {path.name} (docs/hardware.md#memory-bandwidth)"
    return 0.0, "unknown: no [Workbench] memory_bandwidth and no ddr_rate/cube_freq in the ini"


def _cann_dirs() -> Iterator[Path]:
    home = os.environ.get("ASCEND_HOME_PATH")
    if not home:
        return
    root = Path(home)
    yield from sorted(root.glob("*-linux/data/platform_config"))
    yield from sorted(root.glob("data/platform_config"))


def load_platforms(extra_dirs: tuple[Path, ...] = ()) -> dict[str, Platform]:
    """Shipped platforms, then CANN's (ASCEND_HOME_PATH) and any extra dirs; later ones win per SoC."""
    shipped = resources.platforms_dir()
    searched = (shipped, *_cann_dirs(), *extra_dirs)
    found: dict[str, Platform] = {}
    for directory in searched:
        for path in sorted(directory.glob("*.ini")):
            try:
                plat = parse_ini(path)
            except UnsupportedPlatform:
                if directory == shipped:
                    raise
                continue  # a CANN SoC of an architecture we do not model (e.g. 950) is simply not offered
            found[plat.soc] = plat
    if not found:
        raise UnsupportedPlatform(
            "platform files", ", ".join(map(str, searched)), "CANN-format <SoC>.ini files in one of these folders"
        )
    return found


class _Platforms(Mapping[str, Platform]):
    """Lazy read-only mapping: the ini files are parsed on first use, not at `import workbench`."""

    @staticmethod
    @cache
    def _table() -> dict[str, Platform]:
        return load_platforms()

    def __getitem__(self, soc: str) -> Platform:
        table = self._table()
        if soc in table:
            return table[soc]
        raise UnknownName("platform", soc, ", ".join(table))

    def __contains__(self, soc: object) -> bool:
        return soc in self._table()

    def get(self, soc: str, default: Any = None) -> Any:  # Mapping.get expects KeyError; we raise UnknownName
        try:
            return self[soc]
        except UnknownName:
            return default

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())


PLATFORMS: Mapping[str, Platform] = _Platforms()


def get_platform(platform: str | Platform) -> Platform:
    return platform if isinstance(platform, Platform) else PLATFORMS[resolve(platform)]


def resolve(name: str) -> str:
    """A SoC name (any case), or the first SoC whose Short_SoC_version is `name` (ascend310p -> Ascend310P3)."""
    if not isinstance(name, str):
        raise UnknownName("platform", name, ", ".join(PLATFORMS))
    key = name.strip().lower()
    for soc in PLATFORMS:
        if soc.lower() == key:
            return soc
    for soc, plat in PLATFORMS.items():
        if plat.short_soc.lower() == key:
            return soc
    raise UnknownName("platform", name, ", ".join(PLATFORMS))
