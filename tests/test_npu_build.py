"""The NPU build (workbench/running/npu/build.py) and `workbench build`, without CANN.

The project text is checked as text; cann_home/cann_version against fake install trees; build() end to end with
the real cmake and a stand-in `ascendc.cmake` that compiles a host stub exporting `aclrtlaunch_<entry>` (so the
project, the cmake steps, finding the artefacts and the export check all run; CANN's compiler does not).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from workbench.core import resources
from workbench.core.errors import UnknownName, UnsupportedPlatform, WorkbenchError
from workbench.core.opspec import KernelInfo
from workbench.planning.pipeline import make_inputs, plan
from workbench.planning.registry import OPS
from workbench.running.launch import prepare
from workbench.running.npu import aclrtlaunch
from workbench.running.npu import build as npu_build
from workbench.running.npu.build import (
    CannNotFound,
    NpuBuildError,
    build,
    cann_home,
    cann_version,
    check_export,
    example_case,
    npu_project,
)
from workbench.view.cli import main


@pytest.fixture(autouse=True)
def _no_cann(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts from a machine without CANN, whatever the developer's shell has."""
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    monkeypatch.delenv("ASCENDC_CMAKE_DIR", raising=False)


def kernel_of(op: str, dtypes: str | None = None) -> KernelInfo:
    case = example_case(op, dtypes)
    assert case.spec.kernel is not None
    return case.spec.kernel(case)


# -- the project ---------------------------------------------------------------------------------------------------
def test_project_uses_cann_module_ascendc_library_shared_and_the_soc() -> None:
    info = kernel_of("cast", "float32:float16")
    files = npu_project("cast", "Ascend310P3", kernel=info)
    text = files["CMakeLists.txt"]
    source = resources.path("kernels/cast/cast_kernel.cpp")
    lib = npu_build.library_name(info, dump=False)
    assert lib.startswith("wb_cast_kernel_")
    assert f'ascendc_library({lib} SHARED "{source.as_posix()}")' in text
    assert 'set(SOC_VERSION "Ascend310P3"' in text
    assert 'set(CMAKE_BUILD_TYPE "Release"' in text
    assert 'include("${ASCENDC_CMAKE_DIR}/ascendc.cmake")' in text
    for folder in npu_build.MODULE_DIRS:
        assert f"${{ASCEND_CANN_PACKAGE_PATH}}/{folder}/ascendc.cmake" in text
    tiling_dir = resources.path("kernels/cast/cast_tiling.h").parent.as_posix()
    assert f'ascendc_include_directories({lib} PRIVATE "{tiling_dir}")' in text
    defines = next(line for line in text.splitlines() if line.startswith("ascendc_compile_definitions("))
    for item in ('"DTYPE_X=float"', '"DTYPE_Y=half"', '"CAST_SRC_BF16=0"', '"ASCENDC_DUMP=0"'):
        assert item in defines
    manifest = json.loads(files["workbench-build.json"])
    assert manifest["header"] == "aclrtlaunch_cast_kernel.h" and manifest["library"] == f"lib{lib}.so"


def test_each_variant_gets_its_own_library_name_and_a_bare_path_is_refused(tmp_path: Path) -> None:
    a, b = kernel_of("cast", "float32:float16"), kernel_of("cast", "float16:int8")
    names = {npu_build.library_name(a, False), npu_build.library_name(b, False), npu_build.library_name(a, True)}
    assert len(names) == 3
    case = example_case("cast", "float16:int8").replace(shape=(100,))
    launch = prepare(case, plan(case), make_inputs(case))  # a PreparedLaunch builds its own variant
    assert npu_project("cast", None, kernel=launch) == npu_project("cast", None, kernel=b)
    with pytest.raises(WorkbenchError, match="a path alone would build the op's default dtype variant"):
        npu_project("cast", None, kernel=tmp_path / "edited.cpp")  # type: ignore[arg-type]


def test_dump_build_keeps_ascendc_dump_on() -> None:
    text = npu_project("cast", "Ascend310P3", dump=True, kernel=kernel_of("cast"))["CMakeLists.txt"]
    assert "ASCENDC_DUMP" not in text.split("include(")[-1]
    assert "DTYPE_X=" in text
    edg = npu_project("embedding_dense_grad", None, dump=True)["CMakeLists.txt"]
    assert "HAVE_WORKSPACE" in edg and "ASCENDC_DUMP" not in edg  # a dump build: only the workspace define


def test_defaults_and_an_edited_copy_keep_the_shipped_tiling_header_dir(tmp_path: Path) -> None:
    edited = tmp_path / "my edited kernel.cpp"
    edited.write_text("// edited\n")
    info = dataclasses.replace(kernel_of("softmax_cross_entropy_with_logits", "bfloat16"), source=str(edited))
    text = npu_project("softmax_cross_entropy_with_logits", None, kernel=info)["CMakeLists.txt"]
    assert 'set(SOC_VERSION "Ascend910B3"' in text  # the op's first target
    assert f'SHARED "{edited.as_posix()}")' in text
    assert resources.path("kernels/softmax_cross_entropy_with_logits").as_posix() in text
    assert '"DTYPE_FEATURES=bfloat16_t"' in text


def test_project_refuses_a_soc_the_op_does_not_target() -> None:
    with pytest.raises(UnsupportedPlatform, match="embedding_dense_grad targets"):
        npu_project("embedding_dense_grad", "Ascend910B3")
    with pytest.raises(UnknownName):
        npu_project("cast", "Ascend999")
    assert 'SOC_VERSION "Ascend310P3"' in npu_project("cast", "ascend310p")["CMakeLists.txt"]


def test_cmake_strings_are_escaped() -> None:
    assert npu_build._cmake_str('a"b$c\\d') == '"a\\"b\\$c\\\\d"'


# -- finding CANN --------------------------------------------------------------------------------------------------
def test_cann_home_unset_missing_or_empty_raise_cann_not_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(CannNotFound) as info:
        cann_home()
    text = str(info.value)
    for hint in ("ASCEND_HOME_PATH", "CANN toolkit", "set_env.sh", "--backend emu", "WORKBENCH_ACL=emulated"):
        assert hint in text
    monkeypatch.setenv("ASCEND_HOME_PATH", str(tmp_path / "nowhere"))
    with pytest.raises(CannNotFound, match="an existing folder"):
        cann_home()
    monkeypatch.setenv("ASCEND_HOME_PATH", str(tmp_path))
    with pytest.raises(CannNotFound, match="a CANN install"):
        cann_home()
    (tmp_path / "lib64").mkdir()
    assert cann_home() == tmp_path


def test_cann_version_reads_the_toolkit_info_then_version_cfg(tmp_path: Path) -> None:
    assert cann_version(tmp_path) is None
    (tmp_path / "version.cfg").write_text("# CANN\ntoolkit_running_version=[8.3.0.1.200:8.3.RC1]\n")
    assert cann_version(tmp_path) == "8.3.RC1"
    info = tmp_path / f"{npu_build.arches()[0]}-linux" / "ascend_toolkit_install.info"
    info.parent.mkdir()
    info.write_text("package_name=Ascend-cann-toolkit\nversion=8.0.RC1\narch=x86_64\n")
    assert cann_version(tmp_path) == "8.0.RC1"


def test_build_without_cann_never_pretends(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(CannNotFound, match="ASCEND_HOME_PATH"):
        build("cast", "Ascend310P3", out)
    assert not out.exists()


def test_build_with_a_cann_that_lacks_the_cmake_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cann" / "lib64").mkdir(parents=True)
    monkeypatch.setenv("ASCEND_HOME_PATH", str(tmp_path / "cann"))
    with pytest.raises(CannNotFound, match=r"Ascend C CMake module.*ascendc_kernel_cmake/ascendc.cmake"):
        build("cast", "Ascend310P3", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_build_without_cmake_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_cann(tmp_path / "cann", monkeypatch)
    real_which = shutil.which
    monkeypatch.setattr(npu_build.shutil, "which", lambda name: None if name == "cmake" else real_which(name))
    with pytest.raises(WorkbenchError, match=r"CMake 3\.16 or newer on PATH"):
        build("cast", "Ascend310P3", tmp_path / "out")


# -- build() end to end with a stand-in ascendc.cmake ----------------------------------------------------------------
# Stands in for CANN's module: reads the kernel's entry and TilingData header from the source, compiles a host stub
# exporting aclrtlaunch_<entry> (through the include dir it was given), generates the header, records the defines.
FAKE_MODULE = r"""
function(ascendc_library target kind source)
  file(READ "${source}" text)
  string(REGEX MATCH "__aicore__ void ([A-Za-z0-9_]+)" _ "${text}")
  set(entry "${CMAKE_MATCH_1}")
  string(REGEX MATCH "#include \"([a-z_]+_tiling[.]h)\"" _ "${text}")
  set(tiling "${CMAKE_MATCH_1}")
  set(stub "${CMAKE_CURRENT_BINARY_DIR}/${target}_stub.cpp")
  set(symbol "aclrtlaunch_${entry}")
  if(WB_FAKE_NO_SYMBOL)
    set(symbol "something_else")
  endif()
  file(WRITE "${stub}" "#include \"${tiling}\"\nextern \"C\" unsigned ${symbol}(unsigned b, void *s) { return b; }\n")
  add_library(${target} ${kind} "${stub}")
  set(header "${CMAKE_CURRENT_BINARY_DIR}/include/${target}/aclrtlaunch_${entry}.h")
  file(WRITE "${header}" "extern \"C\" unsigned aclrtlaunch_${entry}(unsigned blockDim, void *stream);\n")
  install(TARGETS ${target} LIBRARY DESTINATION lib)
  install(FILES "${header}" DESTINATION include/${target})
endfunction()
function(ascendc_include_directories target)
  target_include_directories(${target} ${ARGN})
endfunction()
function(ascendc_compile_definitions target scope)
  target_compile_definitions(${target} ${scope} ${ARGN})
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/defines.txt" "${ARGN}")
endfunction()
"""


def fake_cann(home: Path, monkeypatch: pytest.MonkeyPatch, module: str = FAKE_MODULE) -> Path:
    folder = home / npu_build.MODULE_DIRS[0]
    folder.mkdir(parents=True)
    (folder / "ascendc.cmake").write_text(module)
    (home / "version.cfg").write_text("toolkit_running_version=[8.3.0.1.200:8.3.RC1]\n")
    monkeypatch.setenv("ASCEND_HOME_PATH", str(home))
    return home


def test_build_runs_cmake_and_checks_the_launch_symbol(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_cann(tmp_path / "cann", monkeypatch)
    out = tmp_path / "out"
    info = kernel_of("cast", "int64:int32")
    lib = npu_build.library_name(info, dump=False)
    result = build("cast", "Ascend310P3", out, kernel=info)
    assert result.library == out / "out" / "lib" / f"lib{lib}.so" and result.library.is_file()
    assert result.header == out / "out" / "include" / lib / "aclrtlaunch_cast_kernel.h"
    assert (result.entry, result.soc, result.dump, result.cann_version) == (
        "cast_kernel",
        "Ascend310P3",
        False,
        "8.3.RC1",
    )
    assert result.launch_symbol == "aclrtlaunch_cast_kernel"
    defines = (out / "build" / "defines.txt").read_text()
    assert "DTYPE_X=int64_t" in defines and "ASCENDC_DUMP=0" in defines
    assert "HAVE_WORKSPACE" in defines  # else GetUserWorkspace is null-based on the device (SYS_WORKSPACE_UNSET)
    assert "HAVE_TILING" in defines  # else the generated wrapper takes the tiling struct as the workspace
    assert "cmake --build" in (out / "build.log").read_text().replace(shutil.which("cmake") or "cmake", "cmake")
    assert (out / "CMakeLists.txt").read_text() == npu_project("cast", "Ascend310P3", kernel=info)["CMakeLists.txt"]
    other = build("cast", "Ascend310P3", out, kernel=kernel_of("cast", "float16:int8"))  # same folder, new variant
    assert other.library != result.library and result.library.is_file() and other.library.is_file()
    assert other.header.parent.name == other.library.name.removeprefix("lib").removesuffix(".so")


def test_build_refuses_a_library_without_the_launch_symbol(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_cann(tmp_path / "cann", monkeypatch, "set(WB_FAKE_NO_SYMBOL ON)\n" + FAKE_MODULE)
    with pytest.raises(WorkbenchError, match="exporting aclrtlaunch_embedding_dense_grad_kernel"):
        build("embedding_dense_grad", None, tmp_path / "out")


def test_a_failing_cmake_step_shows_the_log_tail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_cann(tmp_path / "cann", monkeypatch, 'message(FATAL_ERROR "bisheng: unknown SoC, boom")\n')
    with pytest.raises(NpuBuildError) as info:
        build("cast", "Ascend310P3", tmp_path / "out")
    err = info.value
    assert err.step == "configure" and "boom" in str(err) and str(err.log_path) in str(err)
    assert "boom" in err.log_path.read_text()


def test_check_export_falls_back_to_ctypes_without_nm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_cann(tmp_path / "cann", monkeypatch)
    library = build("cast", "Ascend310P3", tmp_path / "out").library
    real_which = shutil.which
    monkeypatch.setattr(npu_build.shutil, "which", lambda name: None if name == "nm" else real_which(name))
    assert npu_build.exported_symbols(library) is None
    check_export(library, "aclrtlaunch_cast_kernel")
    with pytest.raises(WorkbenchError, match="exporting aclrtlaunch_nothing"):
        check_export(library, "aclrtlaunch_nothing")


# -- workbench build -------------------------------------------------------------------------------------------------
def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse's own errors
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_cli_npu_build_without_cann_exits_2_naming_what_is_missing(tmp_path: Path) -> None:
    code, out, err = run_cli("build", "cast", "--target", "npu", "--soc", "Ascend310P3", "--out", str(tmp_path / "b"))
    assert code == 2 and out == ""
    assert "ASCEND_HOME_PATH" in err and "set_env.sh" in err and "--backend emu" in err
    assert not (tmp_path / "b").exists()


def test_cli_npu_build_with_the_stand_in_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_cann(tmp_path / "cann", monkeypatch)
    code, out, err = run_cli(
        "build", "cast", "--target", "npu", "--dtype", "float16:int8", "--out", str(tmp_path / "b"), "-q"
    )
    assert code == 0, err
    lib = npu_build.library_name(kernel_of("cast", "float16:int8"), dump=False)
    assert Path(out.strip()) == tmp_path / "b" / "out" / "lib" / f"lib{lib}.so"
    assert "aclrtlaunch_cast_kernel" in err
    assert '"DTYPE_X=half"' in (tmp_path / "b" / "CMakeLists.txt").read_text()


def test_cli_emu_build_prints_the_cached_binary() -> None:
    code, out, err = run_cli("build", "cast", "--target", "emu", "-q")
    assert code == 0, err
    binary = Path(out.strip())
    assert binary.is_file() and os.access(binary, os.X_OK) and binary.name.startswith("cast_kernel-")
    assert "cast_kernel for Ascend310P3" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("build", "cast", "--target", "emu", "--dump"), "--dump"),
        (("build", "cast", "--target", "gpu"), "invalid choice"),
        (("build", "embedding_dense_grad", "--target", "npu", "--soc", "Ascend910B3"), "targets Ascend310P"),
        (("build", "nosuchop", "--target", "emu"), "op: got 'nosuchop'"),
        (("build", "cast", "--target", "emu", "--dtype", "float16:float16"), "identity"),
    ],
)
def test_cli_build_rejects_bad_input_with_exit_2(argv: tuple[str, ...], message: str) -> None:
    code, _, err = run_cli(*argv)
    assert code == 2 and message in err


def test_every_op_builds_a_project() -> None:
    for name in OPS:
        text = npu_project(name, None)["CMakeLists.txt"]
        assert f"ascendc_library(wb_{name}_kernel_" in text and " SHARED " in text


# -- the stub generator's contract: HAVE_WORKSPACE and HAVE_TILING ---------------------------------------------------
def _params(op: str) -> tuple[aclrtlaunch.KernelParam, ...]:
    info = kernel_of(op)
    params = aclrtlaunch.declared_params(resources.path(info.source).read_text(), info.entry)
    assert params is not None and len(params) == len(info.args) + 2
    return params


@pytest.mark.parametrize("op", sorted(OPS))
def test_the_wrapper_takes_the_workspace_parameter_under_the_builds_defines(op: str) -> None:
    # asc-devkit extract_host_stub.py: with HAVE_WORKSPACE the generated wrapper takes the second to last parameter
    # as the workspace when HAVE_TILING is defined too, else the last one, here the tiling struct
    params = _params(op)
    workspace, tiling = params[-2], params[-1]
    assert (workspace.name, workspace.is_gm, tiling.is_gm) == ("workspace", True, False)
    text = npu_project(op, None, kernel=kernel_of(op))["CMakeLists.txt"]
    defines = next(line for line in text.splitlines() if line.startswith("ascendc_compile_definitions("))
    assert '"HAVE_WORKSPACE"' in defines and '"HAVE_TILING"' in defines
    assert aclrtlaunch.wrapper_workspace(params, ()) is None  # no system workspace set at all
    assert aclrtlaunch.wrapper_workspace(params, ("HAVE_WORKSPACE",)) == tiling
    assert aclrtlaunch.wrapper_workspace(params, ("HAVE_WORKSPACE", "HAVE_TILING")) == workspace
    with pytest.raises(WorkbenchError, match=r"tiling is a \w+TilingData: the device compile fails"):
        aclrtlaunch.check_stub_contract(params, ("HAVE_WORKSPACE",), workspace_index=len(params) - 2)
    aclrtlaunch.check_stub_contract(params, ("HAVE_WORKSPACE", "HAVE_TILING"), workspace_index=len(params) - 2)


def test_the_wrapper_with_only_have_workspace_does_not_compile(tmp_path: Path) -> None:
    # the generated wrapper, compiled with g++ against the emulator's headers: with HAVE_WORKSPACE alone it assigns
    # the TilingData struct to a GM_ADDR, as CANN's device compiler would refuse; the emulated ACL runtime compiles
    # and runs it with both defines for every op (tests/test_npu_backend.py)
    from workbench.running.emu.build import defines_of, gxx

    info = kernel_of("cast")
    entry, text = aclrtlaunch.device_wrapper(resources.path(info.source), info.entry, _params("cast"))
    wrapper = tmp_path / "wrapper.cpp"
    wrapper.write_text(text)
    flags = [f"-D{k}={v}" for k, v in defines_of(info.defines)]
    include = ["-I", str(resources.emu_dir() / "include"), "-I", str(resources.path(info.source).parent)]
    base = [gxx(), "-std=c++20", "-fsyntax-only", "-DASCEMU_PLATFORM=ascend310p", *include, *flags, str(wrapper)]
    refused = subprocess.run([*base, "-DHAVE_WORKSPACE"], capture_output=True, text=True)
    assert refused.returncode != 0 and "workspace_param" in refused.stderr and "CastTilingData" in refused.stderr
    assert entry == "auto_gen_cast_kernel_kernel"


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        ("GM_ADDR x, GM_ADDR y, CastTilingData tiling, GM_ADDR workspace", r"tiling is a CastTilingData: the device"),
        ("GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, CastTilingData tiling", r"workspace as parameter 3"),
    ],
)
def test_a_signature_the_wrapper_cannot_build_is_refused_before_cmake(
    tmp_path: Path, declared: str, message: str
) -> None:
    info = kernel_of("cast")
    source = tmp_path / "cast_kernel.cpp"
    text = resources.path(info.source).read_text()
    edited_text = text.replace(
        "void cast_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, CastTilingData tiling)",
        f"void cast_kernel({declared})",
    )
    assert edited_text != text
    source.write_text(edited_text)
    with pytest.raises(WorkbenchError, match=rf"kernel signature.*{message}"):
        npu_project("cast", None, kernel=dataclasses.replace(info, source=str(source)))
