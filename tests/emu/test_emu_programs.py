"""Whole single-source programs (.asc) on the emulator: workbench.running.emu.run_program and `workbench emu-run`.

The programs in programs/ are ours, written in the styles of CANN's examples: `__global__ __vector__` kernels
with AscendC::InitSocState(), a tiling struct copied to device memory, a kernel template with two template
arguments launched with <<<>>>, faults (an out-of-bounds write, trap, a crash, a hang), a call the ACL shim
lacks, and the names CANN's samples use that need -D / -I to build (cann_names.asc). Each result is checked against
numpy. The programs are built once per session, two at a time; `name@SoC` is a program built for another SoC.
"""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from workbench.core.errors import InvalidInput
from workbench.running.emu import run_program
from workbench.running.emu.build import Built
from workbench.running.emu.program import UnsupportedAclCall, build_program, shim_calls
from workbench.running.emu.rewrite import instantiated, rewrite_launches
from workbench.view.cli import main

PROGRAMS = Path(__file__).resolve().parent / "programs"
PLATFORM = {"scale_tiling": "Ascend910B3", "cann_names": "Ascend910B3"}  # the others: the default, Ascend310P3
SCENARIOS = PROGRAMS / "scenarios"
OPTIONS: dict[str, dict[str, Any]] = {"cann_names": {"defines": {"SCENARIO_NUM": 1}, "include_dirs": [SCENARIOS]}}


def target(key: str) -> tuple[str, str]:
    """The program and SoC of a build key: `name` (its usual SoC) or `name@SoC`."""
    name, _, soc = key.partition("@")
    return name, soc or PLATFORM.get(name, "Ascend310P3")


def program(name: str) -> Path:
    return PROGRAMS / f"{name}.asc"


def marker_line(name: str, marker: str) -> int:
    """The line of `program(name)` that ends with the comment `// marker`."""
    lines = program(name).read_text().splitlines()
    found = [n for n, line in enumerate(lines, 1) if re.search(r"//\s*" + re.escape(marker) + r"$", line)]
    assert len(found) == 1, f"{marker} in {name}.asc: {found}"
    return found[0]


def launch_line(name: str, kernel: str) -> int:
    lines = program(name).read_text().splitlines()
    found = [n for n, line in enumerate(lines, 1) if re.search(re.escape(kernel) + r"(<[^<]*>)?<<<", line)]
    assert len(found) == 1, f"{kernel}<<< in {name}.asc: {found}"
    return found[0]


@pytest.fixture(scope="module")
def builds() -> dict[str, Built | Exception]:
    """Every program built (or refused) once, two compilers at a time."""
    names = [
        "vector_add",
        "scale_tiling",
        "templated_muls",
        "oob_write",
        "unsupported_acl",
        "cann_names",
        "cann_names@Ascend310P3",
    ]

    def one(key: str) -> Built | Exception:
        name, soc = target(key)
        try:
            return build_program(program(name), soc, **OPTIONS.get(name, {}))
        except Exception as exc:  # the refused build is a result too
            return exc

    with ThreadPoolExecutor(2) as pool:
        return dict(zip(names, pool.map(one, names), strict=True))


def run(builds: dict[str, Built | Exception], key: str, *args: object, **options: object):
    assert isinstance(builds[key], Built), builds[key]
    name, soc = target(key)
    return run_program(program(name), soc, [str(a) for a in args], **{**OPTIONS.get(name, {}), **options})


# ------------------------------------------------------------------------------------------------ the rewrite
def test_rewrite_keeps_every_line_and_skips_comments_and_strings() -> None:
    src = (
        "// k<<<1, nullptr, s>>>(x) in a comment\n"
        'const char* text = "k<<<1, 0, s>>>()";\n'
        "int n = 1'000;\n"
        "void f() {\n"
        "    ns::add<float,\n"
        "            8><<<blocks, nullptr,\n"
        "                 stream>>>(a,\n"
        "        b);\n"
        "    hello<<<8, 0, nullptr>>>();\n"
        "}\n"
        "int after = __LINE__;\n"
    )
    out, sites = rewrite_launches(src, "/p/a.asc")
    first, body = out.split("\n", 1)
    assert first == '#line 1 "/p/a.asc"'
    assert body.count("\n") == src.count("\n")
    assert body.splitlines()[-1] == "int after = __LINE__;"  # still line 11
    assert body.splitlines()[:3] == src.splitlines()[:3]  # the comment, the string and 1'000 untouched
    assert [(s.kernel, s.line) for s in sites] == [("ns::add<float, 8>", 6), ("hello", 9)]
    assert "ns::add<float,\n            8>(ascemu_args_...); }, a,\n        b);" in body
    assert '{"hello", __FILE__, 9, __PRETTY_FUNCTION__}, (8), ( 0), ( nullptr)' in body
    assert "hello(ascemu_args_...); });" in body  # no arguments: no trailing comma


def test_rewrite_inside_a_macro_keeps_the_continuation() -> None:
    src = "#define LAUNCH(x) k<<<1, \\\n    nullptr, s>>>(x)\nint after;\n"
    out, sites = rewrite_launches(src, "m.asc")
    lines = out.splitlines()[1:]
    assert len(lines) == 3 and lines[0].endswith("\\") and lines[2] == "int after;"
    assert [(s.kernel, s.line) for s in sites] == [("k", 1)]


@pytest.mark.parametrize("launch", ["k<<<8, stream>>>(x);", "k<<<8, nullptr, s>>> x;", "(*f)<<<8, 0, s>>>(x);"])
def test_rewrite_refuses_what_is_not_a_launch(launch: str) -> None:
    with pytest.raises(InvalidInput, match=r"w\.asc:2"):
        rewrite_launches("void f() {\n" + launch + "\n}\n", "w.asc")


def test_launch_names_take_the_template_arguments_of_the_launching_function() -> None:
    pretty = "std::vector<T> scaled(const std::vector<T>&) [with T = float; int FACTOR = 3; uint32_t = unsigned int]"
    assert instantiated("muls<T, FACTOR>", pretty) == "muls<float, 3>"
    assert instantiated("plain", pretty) == "plain"
    assert instantiated("muls<T, 4>", "int main()") == "muls<T, 4>"


# ------------------------------------------------------------------------------------------------ programs
def test_vector_qualifier_and_init_soc_state(builds: dict[str, Built | Exception], tmp_path: Path) -> None:
    """`__global__ __vector__` kernels starting with InitSocState add fp16 vectors bit-exactly; InitSocState also
    turns atomic accumulation off again (the second kernel's copy overwrites its destination)."""
    n = 4 * 2048
    rng = np.random.default_rng(11)
    x = rng.standard_normal(n).astype(np.float16)
    y = (rng.standard_normal(n) * 4).astype(np.float16)
    x.tofile(tmp_path / "x.bin")
    y.tofile(tmp_path / "y.bin")
    result = run(builds, "vector_add", tmp_path / "x.bin", tmp_path / "y.bin", tmp_path / "z.bin", n)
    assert result.exit_code == 0 and not result.faulted, result.summary()
    z = np.fromfile(tmp_path / "z.bin", np.float16)
    np.testing.assert_array_equal(z.view(np.uint16), (x + y).view(np.uint16))
    assert "sync 0" in result.stdout
    assert "copied[0] 0 copied[63] 63" in result.stdout  # not 1 and 64: the atomic add was switched off
    assert [(launch.kernel, launch.block_dim) for launch in result.launches] == [
        ("vector_add", 4),
        ("copy_after_reset", 1),
    ]
    assert [launch.line for launch in result.launches] == [
        launch_line("vector_add", "vector_add"),
        launch_line("vector_add", "copy_after_reset"),
    ]
    assert all(launch.exit_code == 0 and not launch.diagnostics for launch in result.launches)
    assert result.host_diagnostics == ()


def test_tiling_struct_copied_to_device_memory(builds: dict[str, Built | Exception]) -> None:
    n, scale, bias = 1000, np.float32(1.5), np.float32(-0.25)
    result = run(builds, "scale_tiling", n, scale, bias)
    assert result.exit_code == 0 and not result.faulted, result.summary()
    got = np.array(result.stdout.split(), dtype=np.float32)
    x = ((np.arange(n) % 97 - 48) / 8).astype(np.float32)
    np.testing.assert_array_equal(got, x * scale + bias)
    (launch,) = result.launches
    assert (launch.kernel, launch.block_dim) == ("scale_kernel", 3)
    assert launch.site == f"scale_tiling.asc:{launch_line('scale_tiling', 'scale_kernel')}"
    assert launch.trace["cores"][2]["mte2"]["bytes"] == (n - 2 * 336) * 4  # the last core takes the rest


def test_template_kernel_with_two_template_arguments(builds: dict[str, Built | Exception]) -> None:
    result = run(builds, "templated_muls")
    assert result.exit_code == 0 and not result.faulted, result.summary()
    rows = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines() if line[:1].isalpha()}
    xf = np.float32(0.25) * np.arange(128, dtype=np.float32) - np.float32(3)
    xi = np.arange(256, dtype=np.int32) * 7 - 500
    np.testing.assert_array_equal(np.array(rows["float"], dtype=np.float32), xf * np.float32(3))
    np.testing.assert_array_equal(np.array(rows["int32"], dtype=np.int64), xi * -5)
    line = launch_line("templated_muls", "muls_kernel")
    assert [(launch.kernel, launch.block_dim, launch.line) for launch in result.launches] == [
        ("muls_kernel<float, 3>", 2, line),
        ("muls_kernel<int, -5>", 4, line),
    ]
    assert [launch.printf for launch in result.launches] == [((0, "cores 2\n"),), ((0, "cores 4\n"),)]
    assert "[core 0] cores 4" in result.stdout


def test_out_of_bounds_write_names_the_program_line(builds: dict[str, Built | Exception]) -> None:
    result = run(builds, "oob_write")
    assert result.exit_code == 0 and result.faulted
    (launch,) = result.launches
    assert launch.exit_code == 1 and launch.faulted
    (oob,) = [d for d in launch.diagnostics if d.is_fault]
    assert oob.kind == "GM_OOB" and oob.core == 3
    assert (oob.file, oob.line) == (str(program("oob_write")), marker_line("oob_write", "OOB-LINE"))
    # the host: the fault surfaces at the next synchronize; the wrong memcpy kind is refused; the data is there
    assert "sync 507015" in result.stdout and "wrong kind 107000" in result.stdout
    got = [float(v) for v in re.search(r"^y (.*)$", result.stdout, re.M).group(1).split()]
    np.testing.assert_array_equal(got, np.arange(4.0))
    host = {(d.kind, d.details.get("code"), d.line) for d in result.host_diagnostics}
    assert host == {
        ("ACL_ERROR", 507015, marker_line("oob_write", "SYNC-LINE")),
        ("ACL_ERROR", 107000, marker_line("oob_write", "KIND-LINE")),
        ("ACL_COPY_UNWRITTEN", None, marker_line("oob_write", "UNWRITTEN-LINE")),
    }
    assert "GM_OOB at oob_write.asc:" in result.host_diagnostics[0].message


def test_fatal_records_crashes_and_hangs_end_the_program(builds: dict[str, Built | Exception]) -> None:
    trapped = run(builds, "oob_write", "trap")
    assert trapped.exit_code == 2 and trapped.faulted
    assert trapped.stdout == "mode trap\n"  # printed before the launch; nothing after it ran
    assert [(d.kind, d.core) for d in trapped.launches[0].diagnostics] == [("KERNEL_ABORT", 1)]
    crashed = run(builds, "oob_write", "segv")
    assert crashed.exit_code == 4 and crashed.launches[0].exit_code == 4
    (crash,) = crashed.launches[0].diagnostics
    assert (crash.kind, Path(crash.file).name, crash.line) == (
        "CRASH",
        "oob_write.asc",
        marker_line("oob_write", "SEGV-LINE"),
    )
    refused = run(builds, "oob_write", "none")
    assert refused.launches == () and "sync 0" in refused.stdout
    (zero,) = [d for d in refused.host_diagnostics if d.api == "<<<>>>"]
    assert (zero.kind, zero.details["code"], zero.line) == ("ACL_ERROR", 107000, marker_line("oob_write", "ZERO-LINE"))
    assert "blockDim 0 is outside [1, 65535]" in zero.message
    hung = run(builds, "oob_write", "hang", timeout_s=1.0)
    assert hung.exit_code == 3 and hung.launches[0].exit_code == 3
    assert [d.kind for d in hung.launches[0].diagnostics] == ["TIMEOUT"]


def test_an_acl_call_the_shim_lacks_is_a_build_error_naming_it(builds: dict[str, Built | Exception]) -> None:
    refused = builds["unsupported_acl"]
    assert isinstance(refused, UnsupportedAclCall)
    assert refused.names == ("aclrtMemcpy2d",)
    assert "aclrtMemcpy2d (unsupported_acl.asc:17)" in str(refused)
    assert {"aclrtMalloc", "aclrtMemcpy", "aclrtSynchronizeStream", "aclGetRecentErrMsg"} <= set(shim_calls())
    assert ", aclrtMemcpy," in str(refused)  # the message lists what the shim has


def test_builds_are_cached_by_content(builds: dict[str, Built | Exception]) -> None:
    again = build_program(program("templated_muls"))
    first = builds["templated_muls"]
    assert isinstance(first, Built) and again.cached and again.path == first.path


# ------------------------------------------------------------------------------------------------ CANN's names
NAMES_X = (0.5 * (np.arange(2 * 512) % 41) - 7).astype(np.float32)  # cann_names.asc: x, 2 cores x 512
NAMES_SRC = np.arange(1000, 1128, dtype=np.uint16)
NAMES_OFFSETS = [224, 192, 160, 128, 96, 64, 32, 0, 0, 64, 128, 192, 32, 96, 160, 224]


def printed(stdout: str, name: str, dtype: type) -> np.ndarray:
    """The numbers cann_names.asc printed on its line `name v0 v1 ...`."""
    (line,) = [ln for ln in stdout.splitlines() if ln.split()[:1] == [name]]
    return np.array(line.split()[1:], dtype=np.float64).astype(dtype)


def names_expected(fill: float, scale: int, add: float) -> dict[str, np.ndarray]:
    y = np.full((2, 512), fill, np.float32)
    y[:, :200] = NAMES_X.reshape(2, 512)[:, :200] * np.float32(scale)
    v = np.arange(-8, 8)
    gather = np.concatenate([NAMES_SRC[o // 2 : o // 2 + 16] for o in NAMES_OFFSETS])
    return {
        "y": y.ravel(),
        "z": np.full(96, np.float32(0.75) + np.float32(add), np.float32),
        "int4": ((3 * v + 8) & 15) - 8,  # 4-bit two's complement wrap-around
        "gather": gather,
    }


def test_cann_names_fill_gatherb_int4_and_the_template_header(builds: dict[str, Built | Exception]) -> None:
    """Scenario 1 (-DSCENARIO_NUM=1, found through -I): Fill then a scaled head; Fill under SetAtomicAdd adds;
    int4b_t scalars wrap and sign-extend; Gatherb moves 32-byte blocks by byte offset (910B)."""
    result = run(builds, "cann_names")
    assert result.exit_code == 0 and not result.faulted, result.summary()
    want = names_expected(fill=1.5, scale=2, add=1.5)
    for name, dtype in (("y", np.float32), ("z", np.float32), ("int4", np.int64), ("gather", np.uint16)):
        np.testing.assert_array_equal(printed(result.stdout, name, dtype), want[name], err_msg=name)
    assert [launch.kernel for launch in result.launches] == [
        "fill_scale<SCENARIO_SCALE, SCENARIO_BY_INIT>",
        "fill_accumulate",
        "int4_values",
        "gather_blocks",
    ]
    assert all(not launch.diagnostics for launch in result.launches), result.summary()
    fill = result.launches[0].trace["cores"][0]["mte3"]
    assert fill["ops"] == 1 + 4 and fill["bytes"] == 512 * 4 + 200 * 4  # one Fill transfer, then 4 tiles


def test_cann_names_on_310p_refuse_gatherb_at_run_time(builds: dict[str, Built | Exception]) -> None:
    result = run(builds, "cann_names@Ascend310P3")
    want = names_expected(fill=1.5, scale=2, add=1.5)
    for name, dtype in (("y", np.float32), ("z", np.float32), ("int4", np.int64)):
        np.testing.assert_array_equal(printed(result.stdout, name, dtype), want[name], err_msg=name)
    assert [launch.faulted for launch in result.launches] == [False, False, False, True]
    (refused,) = [d for d in result.launches[3].diagnostics if d.is_fault]
    assert (refused.kind, refused.line) == ("UNSUPPORTED_API", marker_line("cann_names", "GATHERB"))
    assert "Gatherb is not available on ascend310p" in refused.message


def test_fill_past_the_allocation_is_reported_at_its_line(builds: dict[str, Built | Exception]) -> None:
    result = run(builds, "cann_names", "oob")
    (launch,) = result.launches
    (oob,) = [d for d in launch.diagnostics if d.is_fault]
    assert (oob.kind, oob.api, oob.line) == ("GM_OOB", "Fill", marker_line("cann_names", "FILL-OOB"))


# ------------------------------------------------------------------------------------------------ the CLI
def test_cli_emu_run(builds: dict[str, Built | Exception], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["emu-run", str(program("scale_tiling")), "--platform", "Ascend910B3", "--json", "--", "16", "2", "-1"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["exit_code"] == 0 and not out["faulted"]
    x = ((np.arange(16) % 97 - 48) / 8).astype(np.float32)
    np.testing.assert_array_equal(np.array(out["stdout"].split(), dtype=np.float32), x * 2 - 1)
    assert [(launch["kernel"], launch["block_dim"]) for launch in out["launches"]] == [("scale_kernel", 3)]

    assert main(["emu-run", str(program("oob_write"))]) == 3  # a kernel fault
    captured = capsys.readouterr()
    assert "sync 507015" in captured.out
    assert "error GM_OOB [core 3, DataCopy]" in captured.err and "oob_write.asc:" in captured.err

    assert main(["emu-run", str(program("unsupported_acl"))]) == 2
    assert "aclrtMemcpy2d" in capsys.readouterr().err


def test_cli_emu_run_takes_defines_and_include_dirs(capsys: pytest.CaptureFixture[str]) -> None:
    """`-D NAME=VALUE` and `-I DIR` reach g++: scenario 2 fills with -0.25 through InitGlobalMemory and scales by 3."""
    prog = str(program("cann_names"))
    code = main(["emu-run", prog, "--platform", "Ascend910B3", "-DSCENARIO_NUM=2", "-I", str(SCENARIOS), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and not out["faulted"], out
    want = names_expected(fill=-0.25, scale=3, add=-0.25)
    for name in ("y", "z"):
        np.testing.assert_array_equal(printed(out["stdout"], name, np.float32), want[name], err_msg=name)

    for argv, field in (
        (["-D", "1SCENARIO=2"], "define: got '1SCENARIO'"),
        (["-D", "SCENARIO NUM=2"], "define: got 'SCENARIO NUM'"),
        (["-D", "SCENARIO_NUM=1", "-D", "SCENARIO_NUM=2"], "-D: got 'SCENARIO_NUM=2'"),
        (["-D", "SCENARIO_NUM="], "-D: got 'SCENARIO_NUM='"),
        (["-DSCENARIO_NUM=1", "-I", str(SCENARIOS / "missing")], "include dir: got"),
    ):
        assert main(["emu-run", prog, *argv]) == 2, argv
        err = capsys.readouterr().err
        assert field in err and "allowed:" in err, (argv, err)
