"""The built-in op through aclnn (workbench/running/npu/aclnn.py), without CANN.

- PROTOTYPES against the C declarations of CANN's public headers, parsed here by a tiny declaration parser;
- Builtin driven through ctypes stand-ins made with CFUNCTYPE from PROTOTYPES (real ctypes marshalling both ways),
  for each op's BuiltinCall: the aclTensors it creates, the phase-1 arguments, the repeatable executor, launches,
  the clean-up, and the errors;
- load() against small C libraries compiled here that export the same symbols, so the C ABI of every argument
  (uint64 paddingIdx, bool scaleGradByFreq, enum dtype) is exercised through dlopen.
"""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from workbench.core import builtin_call
from workbench.core.builtin_call import BuiltinCall, tensor
from workbench.core.dtypes import GE_ENUM, NUMPY
from workbench.core.errors import WorkbenchError
from workbench.planning.registry import OPS
from workbench.running.npu import aclnn
from workbench.running.npu.aclnn import (
    ACL_DTYPE,
    PROTOTYPES,
    AclnnError,
    AclnnLibrary,
    Builtin,
    DeviceTensor,
    contiguous_strides,
    load,
)
from workbench.running.npu.build import CannNotFound, example_case

# -- the documented C declarations ---------------------------------------------------------------------------------
# Quoted from CANN's public headers and API pages (whitespace folded), with where each comes from.
DECLARATIONS = {
    # hicann/opbase, include/nnopbase/aclnn/acl_meta.h
    "aclCreateTensor": "aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,"
    " const int64_t *stride, int64_t offset, aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,"
    " void *tensorData);",
    "aclDestroyTensor": "aclnnStatus aclDestroyTensor(const aclTensor *tensor);",
    "aclSetAclOpExecutorRepeatable": "aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor);",
    "aclDestroyAclOpExecutor": "aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);",
    # hicann/runtime, include/external/acl/acl_rt.h (acl.h includes it)
    "aclGetRecentErrMsg": "const char* aclGetRecentErrMsg();",
    # hicann/ops-math, math/cast/op_api/aclnn_cast.h
    "aclnnCastGetWorkspaceSize": "aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor* self, const aclDataType dtype,"
    " aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);",
    "aclnnCast": "aclnnStatus aclnnCast(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,"
    " aclrtStream stream);",
    # hicann/ops-nn, activation/softmax_cross_entropy_with_logits/op_api/aclnn_softmax_cross_entropy_with_logits.cpp
    "aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize": "aclnnStatus"
    " aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize(const aclTensor* features, aclTensor* labels,"
    " aclTensor* loss, aclTensor* backprop, uint64_t* workspaceSize, aclOpExecutor** executor)",
    "aclnnSoftmaxCrossEntropyWithLogits": "aclnnStatus aclnnSoftmaxCrossEntropyWithLogits(void* workspace,"
    " uint64_t workspaceSize, aclOpExecutor* executor, const aclrtStream stream)",
    # hicann/ops-nn, index/embedding_dense_grad/docs/aclnnEmbeddingDenseBackward.md
    "aclnnEmbeddingDenseBackwardGetWorkspaceSize": "aclnnStatus aclnnEmbeddingDenseBackwardGetWorkspaceSize("
    "const aclTensor *grad, const aclTensor *indices, uint64_t numWeights, uint64_t paddingIdx, bool scaleGradByFreq,"
    " const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)",
    "aclnnEmbeddingDenseBackward": "aclnnStatus aclnnEmbeddingDenseBackward(void *workspace, uint64_t workspaceSize,"
    " aclOpExecutor *executor, const aclrtStream stream)",
}

SCALARS = {
    "int64_t": ctypes.c_int64,
    "uint64_t": ctypes.c_uint64,
    "int32_t": ctypes.c_int32,
    "bool": ctypes.c_bool,
    "double": ctypes.c_double,
}
TYPEDEFS = {
    "aclnnStatus": ctypes.c_int32,  # typedef int32_t aclnnStatus (acl_meta.h)
    "aclDataType": ctypes.c_int,  # an enum (acl_base_rt.h)
    "aclFormat": ctypes.c_int,  # an enum (acl_base_rt.h)
    "aclrtStream": ctypes.c_void_p,  # typedef void *aclrtStream (acl_base_rt.h)
}
OPAQUE = {"void", "aclTensor", "aclOpExecutor", "char"}  # char *: read with string_at, so an address


def c_type(text: str) -> Any:
    """One C type (a parameter without its name, or a return type) -> its ctypes type."""
    depth = text.count("*")
    words = [w for w in re.findall(r"[A-Za-z_]\w*", text) if w != "const"]
    assert len(words) == 1, f"cannot parse C type {text!r}"
    base = words[0]
    if depth == 0:
        return SCALARS.get(base) or TYPEDEFS[base]
    if depth == 2 or base in OPAQUE:  # T ** is the address of a handle; T * of an opaque T is a handle
        return ctypes.POINTER(ctypes.c_void_p) if depth == 2 else ctypes.c_void_p
    return ctypes.POINTER(SCALARS[base])


def parse(declaration: str) -> tuple[str, Any, list[tuple[str, Any]]]:
    """'ret name(T a, T *b)' -> (name, restype, [(param name, ctypes type)])."""
    m = re.fullmatch(r"\s*(.+?)\b(\w+)\s*\((.*)\)\s*;?\s*", declaration, re.S)
    assert m, declaration
    ret, name, params = m.groups()
    out = []
    for param in filter(None, (p.strip() for p in params.split(","))):
        if param == "void":
            continue
        pm = re.fullmatch(r"(.*?[\s*])(\w+)", param)
        assert pm, param
        out.append((pm.group(2), c_type(pm.group(1))))
    return name, c_type(ret), out


def test_parser_reads_pointers_enums_and_typedefs() -> None:
    name, ret, params = parse("aclnnStatus f(const aclTensor *t, uint64_t *n, aclOpExecutor **e, const aclDataType d);")
    assert (name, ret) == ("f", ctypes.c_int32)
    assert [p for _, p in params] == [
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_uint64),
        ctypes.POINTER(ctypes.c_void_p),
        ctypes.c_int,
    ]
    assert parse("const char *g();")[1:] == (ctypes.c_void_p, [])


@pytest.mark.parametrize("symbol", sorted(DECLARATIONS))
def test_prototype_matches_the_header(symbol: str) -> None:
    name, restype, params = parse(DECLARATIONS[symbol])
    assert name == symbol
    assert PROTOTYPES[symbol][0] == restype, f"{symbol}: restype"
    assert list(PROTOTYPES[symbol][1]) == [t for _, t in params], f"{symbol}: {[p for p, _ in params]}"


def test_every_prototype_has_a_declaration() -> None:
    assert set(PROTOTYPES) == set(DECLARATIONS)


def test_edg_attribute_types_are_the_documented_ones() -> None:
    params = dict(parse(DECLARATIONS["aclnnEmbeddingDenseBackwardGetWorkspaceSize"])[2])
    assert params["paddingIdx"] is ctypes.c_uint64 and params["numWeights"] is ctypes.c_uint64
    assert params["scaleGradByFreq"] is ctypes.c_bool


def test_acl_dtype_enum_agrees_with_the_ge_enum_for_every_dtype() -> None:
    assert set(NUMPY) <= set(ACL_DTYPE)
    assert all(ACL_DTYPE[name] == GE_ENUM[name] for name in GE_ENUM)
    assert ACL_DTYPE["bfloat16"] == 27 and ACL_DTYPE["float32"] == 0 and aclnn.ACL_FORMAT["ND"] == 2


def test_contiguous_strides_are_in_elements() -> None:
    assert contiguous_strides((4, 3, 5)) == (15, 5, 1)
    assert contiguous_strides(()) == ()
    assert contiguous_strides((0, 7)) == (7, 1)


# -- a fake aclnn library made of CFUNCTYPE stand-ins ----------------------------------------------------------------
class FakeAclnn:
    """Records every call; statuses[name] makes that function fail with that status."""

    def __init__(self, statuses: dict[str, int] | None = None, workspace: int = 4096) -> None:
        self.statuses = statuses or {}
        self.workspace = workspace
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.tensors: dict[int, dict[str, Any]] = {}
        self.destroyed: list[int] = []
        self.executor = 0xE0E0
        self.message = ctypes.create_string_buffer(b"EZ1001: the dtype is not supported")

    def library(self, without: tuple[str, ...] = ()) -> AclnnLibrary:
        functions = {}
        for name, (restype, argtypes) in PROTOTYPES.items():
            if name not in without:
                functions[name] = ctypes.CFUNCTYPE(restype, *argtypes)(self._handler(name))
        return AclnnLibrary(functions, ("fake",))

    def _handler(self, name: str) -> Any:
        if name == "aclCreateTensor":
            return self.create_tensor
        if name == "aclGetRecentErrMsg":
            return lambda: ctypes.addressof(self.message)
        if name.endswith("GetWorkspaceSize"):
            return lambda *args: self.phase1(name, args)

        def record(*args: Any) -> int:
            self.calls.append((name, args))
            if name == "aclDestroyTensor":
                self.destroyed.append(args[0])
            return self.statuses.get(name, 0)

        return record

    def create_tensor(self, dims: Any, n: int, dtype: int, strides: Any, offset: int, fmt: int, storage: Any,
                      sn: int, data: int | None) -> int:  # fmt: skip
        handle = 0x1000 + 0x10 * len(self.tensors)
        self.tensors[handle] = {
            "dims": tuple(dims[i] for i in range(n)),
            "strides": tuple(strides[i] for i in range(n)),
            "storage": tuple(storage[i] for i in range(sn)),
            "dtype": dtype,
            "offset": offset,
            "format": fmt,
            "data": data,
        }
        self.calls.append(("aclCreateTensor", (handle,)))
        return handle

    def phase1(self, name: str, args: tuple[Any, ...]) -> int:
        *values, workspace, executor = args
        self.calls.append((name, tuple(values)))
        status = self.statuses.get(name, 0)
        if status == 0:
            workspace[0] = self.workspace
            executor[0] = self.executor
        return status

    def named(self, name: str) -> list[tuple[Any, ...]]:
        return [args for n, args in self.calls if n == name]


def call_of(op: str, case: Any) -> BuiltinCall:
    builtin = OPS[op].builtin
    assert builtin is not None, f"{op} has no built-in call"
    return builtin(case)


def device_tensors(case: Any, call: BuiltinCall) -> dict[str, DeviceTensor]:
    descs = case.spec.describe(case)
    return {n: DeviceTensor(0x7000_0000 + 0x100_0000 * i, descs[n].dtype, descs[n].shape)
            for i, n in enumerate(call.tensor_names)}  # fmt: skip


CASES = {
    "cast": lambda: example_case("cast", "bfloat16:int8"),
    "embedding_dense_grad": lambda: example_case("embedding_dense_grad").replace(
        shape=(16, 64), attrs={"num_weights": 10, "padding_idx": 3, "scale_grad_by_freq": True}
    ),
    "softmax_cross_entropy_with_logits": lambda: example_case("softmax_cross_entropy_with_logits", "float16"),
}


def test_every_op_has_a_builtin_call() -> None:
    for name, spec in OPS.items():
        assert spec.builtin is not None, name
        call = spec.builtin(CASES[name]())
        assert call.phase1 in PROTOTYPES and call.function in PROTOTYPES
        assert set(call.tensor_names) <= set(spec.describe(CASES[name]()))


@pytest.mark.parametrize("op", sorted(CASES))
def test_builtin_creates_contiguous_nd_tensors_and_runs_both_phases(op: str) -> None:
    case = CASES[op]()
    call = OPS[op].builtin(case)  # type: ignore[misc]
    fake = FakeAclnn()
    tensors = device_tensors(case, call)
    with Builtin(fake.library(), call, tensors) as prepared:
        assert prepared.workspace_bytes == fake.workspace
        created = list(fake.tensors.values())
        assert len(created) == len(call.tensor_names)
        for name, made in zip(call.tensor_names, created, strict=True):
            t = tensors[name]
            assert made["dims"] == t.shape and made["storage"] == t.shape
            assert made["strides"] == contiguous_strides(t.shape)
            assert made["dtype"] == ACL_DTYPE[t.dtype] and made["format"] == 2 and made["offset"] == 0
            assert made["data"] == t.ptr
        (phase1,) = fake.named(call.phase1)
        handles = list(fake.tensors)
        assert [v for v, a in zip(phase1, call.args, strict=True) if a.kind == "tensor"] == handles
        assert fake.named("aclSetAclOpExecutorRepeatable") == [(fake.executor,)]
        prepared.launch(0xA000, 0x5000)
        prepared.launch(0xA000, 0x5000)
        assert fake.named(call.function) == [(0xA000, fake.workspace, fake.executor, 0x5000)] * 2
        assert fake.destroyed == []
    assert fake.named("aclDestroyAclOpExecutor") == [(fake.executor,)]
    assert sorted(fake.destroyed) == sorted(handles)


def test_cast_passes_the_destination_dtype_enum() -> None:
    case = CASES["cast"]()
    fake = FakeAclnn()
    call = call_of("cast", case)
    Builtin(fake.library(), call, device_tensors(case, call)).close()
    (args,) = fake.named("aclnnCastGetWorkspaceSize")
    assert args[1] == ACL_DTYPE["int8"] == 2
    assert [t["dtype"] for t in fake.tensors.values()] == [ACL_DTYPE["bfloat16"], ACL_DTYPE["int8"]]


@pytest.mark.parametrize(
    ("padding", "passed"), [(3, 3), (0, 0), (9, 9), (-1, 2**64 - 1), (10, 2**64 - 1), (-5, 2**64 - 1)]
)
def test_edg_passes_num_weights_normalised_padding_and_scale(padding: int, passed: int) -> None:
    case = CASES["embedding_dense_grad"]().replace(attrs={"num_weights": 10, "padding_idx": padding})
    fake = FakeAclnn()
    call = call_of("embedding_dense_grad", case)
    assert call.tensor_names == ("grad", "sort_indices", "out")
    Builtin(fake.library(), call, device_tensors(case, call)).close()
    (args,) = fake.named("aclnnEmbeddingDenseBackwardGetWorkspaceSize")
    assert args[2:5] == (10, passed, False)
    assert [t["dtype"] for t in fake.tensors.values()] == [ACL_DTYPE["float32"], ACL_DTYPE["int32"], 0]
    assert [t["dims"] for t in fake.tensors.values()] == [(16, 64), (16,), (10, 64)]


def test_edg_scale_reaches_the_call_and_310p_carries_a_note() -> None:
    case = CASES["embedding_dense_grad"]()
    call = call_of("embedding_dense_grad", case)
    fake = FakeAclnn()
    Builtin(fake.library(), call, device_tensors(case, call)).close()
    assert fake.named("aclnnEmbeddingDenseBackwardGetWorkspaceSize")[0][4] is True
    assert "Ascend310P" in call.note and not call.unsupported


def test_sce_nchw_is_not_comparable_and_calls_nothing() -> None:
    case = example_case("softmax_cross_entropy_with_logits").replace(shape=(2, 3, 4, 5), format="NCHW")
    call = call_of("softmax_cross_entropy_with_logits", case)
    assert case.format == "NCHW" and "rank-2" in call.unsupported
    fake = FakeAclnn()
    with pytest.raises(WorkbenchError, match="rank-2"):
        Builtin(fake.library(), call, device_tensors(case, call))
    assert fake.calls == []
    assert call_of("softmax_cross_entropy_with_logits", CASES["softmax_cross_entropy_with_logits"]()).unsupported == ""


def test_a_failing_phase1_names_the_function_status_and_cann_message_and_frees_the_tensors() -> None:
    case = CASES["cast"]()
    call = call_of("cast", case)
    fake = FakeAclnn({"aclnnCastGetWorkspaceSize": 161002})
    with pytest.raises(AclnnError) as info:
        Builtin(fake.library(), call, device_tensors(case, call))
    err = info.value
    assert (err.function, err.status, err.code) == ("aclnnCastGetWorkspaceSize", 161002, 161002)
    assert "ACLNN_ERR_PARAM_INVALID" in str(err) and "EZ1001: the dtype is not supported" in str(err)
    assert sorted(fake.destroyed) == sorted(fake.tensors) and len(fake.destroyed) == 2
    assert fake.named("aclDestroyAclOpExecutor") == []


def test_without_aclgetrecenterrmsg_the_error_still_names_the_status() -> None:
    case = CASES["cast"]()
    call = call_of("cast", case)
    fake = FakeAclnn({"aclnnCastGetWorkspaceSize": 561003})
    with pytest.raises(AclnnError, match="561003 is ACLNN_ERR_INNER_FIND_KERNEL_ERROR") as info:
        Builtin(fake.library(without=("aclGetRecentErrMsg",)), call, device_tensors(case, call))
    assert "CANN says" not in str(info.value)


def test_a_failing_launch_and_repeatable_raise_with_their_names() -> None:
    case = CASES["softmax_cross_entropy_with_logits"]()
    call = call_of("softmax_cross_entropy_with_logits", case)
    fake = FakeAclnn({"aclnnSoftmaxCrossEntropyWithLogits": 361001})
    prepared = Builtin(fake.library(), call, device_tensors(case, call))
    with pytest.raises(AclnnError, match=r"^aclnnSoftmaxCrossEntropyWithLogits: got 361001"):
        prepared.launch(0, 0)
    assert fake.named("aclnnSoftmaxCrossEntropyWithLogits") == [(None, fake.workspace, fake.executor, None)]
    prepared.close()
    prepared.close()  # idempotent
    assert len(fake.named("aclDestroyAclOpExecutor")) == 1
    with pytest.raises(WorkbenchError, match="before close"):
        prepared.launch(0, 0)
    fake = FakeAclnn({"aclSetAclOpExecutorRepeatable": 561103})
    with pytest.raises(AclnnError, match="aclSetAclOpExecutorRepeatable"):
        Builtin(fake.library(), call, device_tensors(case, call))
    assert fake.named("aclDestroyAclOpExecutor") == [(fake.executor,)]  # still destroyed, not leaked


def test_close_reports_a_failed_destroy_after_destroying_the_rest() -> None:
    case = CASES["cast"]()
    call = call_of("cast", case)
    fake = FakeAclnn({"aclDestroyAclOpExecutor": 161001})
    prepared = Builtin(fake.library(), call, device_tensors(case, call))
    with pytest.raises(AclnnError, match="aclDestroyAclOpExecutor"):
        prepared.close()
    assert len(fake.destroyed) == 2


def test_an_error_inside_the_with_block_wins_and_everything_is_freed() -> None:
    case = CASES["cast"]()
    call = call_of("cast", case)
    fake = FakeAclnn({"aclDestroyTensor": 161001})
    with pytest.raises(KeyError, match="user"), Builtin(fake.library(), call, device_tensors(case, call)):
        raise KeyError("user")
    assert len(fake.destroyed) == 2 and len(fake.named("aclDestroyAclOpExecutor")) == 1


def test_missing_tensor_symbol_and_null_handles_are_clear_errors() -> None:
    case = CASES["cast"]()
    call = call_of("cast", case)
    tensors = device_tensors(case, call)
    with pytest.raises(WorkbenchError, match=r"\['y'\] missing"):
        Builtin(FakeAclnn().library(), call, {"x": tensors["x"]})
    with pytest.raises(WorkbenchError, match=r"aclnnCastGetWorkspaceSize.*searched fake"):
        Builtin(FakeAclnn().library(without=("aclnnCastGetWorkspaceSize",)), call, tensors)
    fake = FakeAclnn()
    fake.executor = 0
    with pytest.raises(WorkbenchError, match="NULL executor"):
        Builtin(fake.library(), call, tensors)
    null_tensor = FakeAclnn()
    null_tensor.create_tensor = lambda *a: 0  # type: ignore[method-assign]
    with pytest.raises(WorkbenchError, match="aclCreateTensor: got 'NULL for x'"):
        Builtin(null_tensor.library(), call, tensors)


def test_a_plain_tuple_and_a_scalar_tensor_are_accepted() -> None:
    fake = FakeAclnn()
    call = BuiltinCall("aclnnCast", (tensor("self", "x"), builtin_call.dtype("dtype", "float16"), tensor("out", "y")))
    Builtin(fake.library(), call, {"x": (0x10, "float32", ()), "y": (0x20, "float16", ())}).close()
    assert [t["dims"] for t in fake.tensors.values()] == [(), ()]
    assert [t["data"] for t in fake.tensors.values()] == [0x10, 0x20]


# -- load() against real shared libraries ------------------------------------------------------------------------------
FAKE_NNOPBASE = r"""
#include <stdint.h>
#include <stdbool.h>
int64_t g_dims[8], g_strides[8], g_storage[8]; uint64_t g_ndim; int g_dtype, g_format; void *g_data;
int g_created, g_destroyed, g_repeatable;
void *aclCreateTensor(const int64_t *d, uint64_t n, int dtype, const int64_t *s, int64_t off, int fmt,
                      const int64_t *sd, uint64_t sn, void *data) {
    for (uint64_t i = 0; i < n && i < 8; ++i) { g_dims[i] = d[i]; g_strides[i] = s[i]; g_storage[i] = sd[i]; }
    g_ndim = n; g_dtype = dtype; g_format = fmt; g_data = data; return (void *)(0x1000 + 16 * (uintptr_t)++g_created);
}
int32_t aclDestroyTensor(const void *t) { ++g_destroyed; return 0; }
int32_t aclSetAclOpExecutorRepeatable(void *e) { g_repeatable = (e == (void *)0xE0E0); return 0; }
int32_t aclDestroyAclOpExecutor(void *e) { return e == (void *)0xE0E0 ? 0 : 561103; }
"""
FAKE_OPAPI = r"""
#include <stdint.h>
#include <stdbool.h>
uint64_t g_num_weights, g_padding, g_ws_seen; int g_scale = -1; void *g_stream;
int32_t aclnnEmbeddingDenseBackwardGetWorkspaceSize(const void *g, const void *i, uint64_t nw, uint64_t pad,
                                                    bool scale, const void *o, uint64_t *ws, void **ex) {
    g_num_weights = nw; g_padding = pad; g_scale = scale; *ws = 512; *ex = (void *)0xE0E0; return 0;
}
int32_t aclnnEmbeddingDenseBackward(void *w, uint64_t n, void *ex, void *stream) {
    g_ws_seen = n; g_stream = stream; return ex == (void *)0xE0E0 ? 0 : 161001;
}
"""


def _compile(source: str, out: Path) -> None:
    cc = shutil.which("gcc") or shutil.which("cc")
    assert cc, "a C compiler (gcc) is needed to build the fake CANN libraries"
    src = out.with_suffix(".c")
    src.write_text(source)
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(out), str(src)], check=True, capture_output=True)


@pytest.fixture(scope="module")
def fake_cann(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("cann")
    (home / "lib64").mkdir()
    _compile(FAKE_NNOPBASE, home / "lib64" / "libnnopbase.so")
    _compile(FAKE_OPAPI, home / "lib64" / "libopapi.so")
    return home


def test_load_binds_every_exported_symbol_with_its_prototype(fake_cann: Path) -> None:
    lib = load(fake_cann)
    assert lib.sources == ("libnnopbase.so", "libopapi.so")
    for name in ("aclCreateTensor", "aclnnEmbeddingDenseBackwardGetWorkspaceSize", "aclnnEmbeddingDenseBackward"):
        fn = lib.functions[name]
        assert fn.restype == PROTOTYPES[name][0] and list(fn.argtypes) == PROTOTYPES[name][1]  # type: ignore[attr-defined]
    assert "aclnnCast" not in lib.functions and lib.recent_error() == ""
    with pytest.raises(WorkbenchError, match="aclnnCastGetWorkspaceSize"):
        lib.function("aclnnCastGetWorkspaceSize")


def test_builtin_through_dlopen_marshals_uint64_bool_and_pointers(fake_cann: Path) -> None:
    lib = load(fake_cann)
    case = CASES["embedding_dense_grad"]().replace(
        shape=(4, 6, 8), attrs={"num_weights": 10, "padding_idx": -1, "scale_grad_by_freq": True}
    )
    call = call_of("embedding_dense_grad", case)
    with Builtin(lib, call, device_tensors(case, call)) as prepared:
        prepared.launch(0xB000, 0x5000)
    opapi = ctypes.CDLL(str(fake_cann / "lib64" / "libopapi.so"))
    nnop = ctypes.CDLL(str(fake_cann / "lib64" / "libnnopbase.so"))
    assert ctypes.c_uint64.in_dll(opapi, "g_num_weights").value == 10
    assert ctypes.c_uint64.in_dll(opapi, "g_padding").value == 2**64 - 1
    assert ctypes.c_int.in_dll(opapi, "g_scale").value == 1
    assert ctypes.c_uint64.in_dll(opapi, "g_ws_seen").value == 512 == prepared.workspace_bytes
    assert ctypes.c_void_p.in_dll(opapi, "g_stream").value == 0x5000
    # the last tensor created is out: [num_weights, D], float32, ND, contiguous
    assert ctypes.c_uint64.in_dll(nnop, "g_ndim").value == 2
    assert list((ctypes.c_int64 * 2).in_dll(nnop, "g_dims")) == [10, 8]
    assert list((ctypes.c_int64 * 2).in_dll(nnop, "g_strides")) == [8, 1]
    assert (ctypes.c_int.in_dll(nnop, "g_dtype").value, ctypes.c_int.in_dll(nnop, "g_format").value) == (0, 2)
    assert ctypes.c_int.in_dll(nnop, "g_repeatable").value == 1
    assert ctypes.c_int.in_dll(nnop, "g_destroyed").value == 3


def test_load_without_the_libraries_names_what_is_missing(tmp_path: Path) -> None:
    (tmp_path / "lib64").mkdir()
    with pytest.raises(CannNotFound, match=r"libnnopbase\.so"):
        load(tmp_path)


# -- the two layouts of CANN's operator libraries ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def split_cann(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CANN with both layouts installed: libopapi_nn.so and libopapi_math.so (one library per ops repository, CANN
    8.5 and later), and the retired libopapi.so beside them."""
    home = tmp_path_factory.mktemp("cann_split")
    (home / "lib64").mkdir()
    _compile(FAKE_NNOPBASE, home / "lib64" / "libnnopbase.so")
    _compile(FAKE_OPAPI, home / "lib64" / "libopapi_nn.so")
    _compile("int g_math_loaded = 1;\n", home / "lib64" / "libopapi_math.so")
    _compile(FAKE_OPAPI, home / "lib64" / "libopapi.so")
    return home


def _mapped(path: Path) -> bool:
    return str(path) in Path("/proc/self/maps").read_text()


def test_the_ops_own_library_is_used_and_the_retired_one_never_beside_it(
    split_cann: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ops-nn docs/zh/op_api_list.md: libopapi.so "will be retired ... not supported together with" libopapi_<repo>.so
    monkeypatch.setattr(aclnn, "_LAYOUT_LOADED", [])
    lib = load(split_cann, library=call_of("embedding_dense_grad", CASES["embedding_dense_grad"]()).library)
    assert lib.sources == ("libnnopbase.so", "libopapi_math.so", "libopapi_nn.so") and lib.layout == "per-repository"
    assert lib.describe() == "libopapi_math.so, libopapi_nn.so (per-repository layout)"
    assert "aclnnEmbeddingDenseBackward" in lib.functions
    assert _mapped(split_cann / "lib64" / "libopapi_nn.so") and not _mapped(split_cann / "lib64" / "libopapi.so")


def test_a_process_never_loads_the_other_layout_beside_the_first(
    split_cann: Path, fake_cann: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(aclnn, "_LAYOUT_LOADED", [])
    load(split_cann, library="libopapi_nn.so")
    with pytest.raises(WorkbenchError, match=r"libopapi\.so beside the per-repository libopapi_<repo>\.so"):
        load(fake_cann, library="libopapi_nn.so")  # only libopapi.so there


def test_without_the_ops_library_the_single_library_is_used_and_named(
    fake_cann: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(aclnn, "_LAYOUT_LOADED", [])
    lib = load(fake_cann, library="libopapi_math.so")  # an older CANN: no per-repository library
    assert lib.sources == ("libnnopbase.so", "libopapi.so") and lib.describe() == "libopapi.so (libopapi.so layout)"


@pytest.mark.parametrize("op", sorted(CASES))
def test_each_ops_builtin_names_its_repositorys_library(op: str) -> None:
    library = call_of(op, CASES[op]()).library
    assert library == {"cast": "libopapi_math.so"}.get(op, "libopapi_nn.so") and library in aclnn.OPS_LIBRARIES


def test_neither_layout_names_both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aclnn, "_LAYOUT_LOADED", [])
    (tmp_path / "lib64").mkdir()
    _compile(FAKE_NNOPBASE, tmp_path / "lib64" / "libnnopbase.so")
    with pytest.raises(CannNotFound, match=r"libopapi_nn\.so \(CANN 8\.5 and later\) or libopapi\.so \(older\)"):
        load(tmp_path, library="libopapi_nn.so")
    with pytest.raises(WorkbenchError, match="aclnn library"):
        load(tmp_path, library="libopapi_everything.so")
