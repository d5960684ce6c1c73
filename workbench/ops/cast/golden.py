"""Cast golden (docs/ops/cast.md §5): total chain semantics (D16) in numpy/ml_dtypes, helpers named as in §5.1.

mode "sat" (default) is the 310P AI Core (saturation only: Inf -> ±MAX, NaN -> +0 through a Cast hop,
F16 overflow -> ±65504); "ieee" gives the numpy/ml_dtypes/PyTorch `.to()` values for cross-checks (§5.3).
Float->int never goes through numpy's float->int cast of NaN/out-of-range values: T() pins them first.
Large arrays run in cache-sized chunks on a small thread pool (numpy releases the GIL inside ufuncs).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ...core._parallel import for_each
from ...core.dtypes import NUMPY
from ...core.errors import InvalidInput, UnknownName

if TYPE_CHECKING:
    from ...planning.case import Case

MODES = ("sat", "ieee")
_U32 = np.uint32
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_CHUNK = 1 << 18  # elements per work item: the 1-MiB scratch buffers of a thread stay in its L2


# -- §5.1 helpers -------------------------------------------------------------------------------------
def T(f: np.ndarray) -> np.ndarray:
    """float -> int32: NaN -> 0, else trunc toward 0 clamped to [-2^31, 2^31-1] (computed in float64)."""
    d = np.trunc(f.astype(np.float64))
    np.clip(d, _INT32_MIN, _INT32_MAX, out=d)  # ±Inf clamp too; NaN passes through clip
    d[np.isnan(d)] = 0.0
    return d.astype(np.int32)  # every value is now an in-range integer, so the cast is exact


def sat16(v: np.ndarray) -> np.ndarray:
    return np.clip(v, -32768, 32767).astype(np.int16)


def wrap8u(v: np.ndarray) -> np.ndarray:
    return v.astype(np.uint8)  # integer arrays only: numpy's int->int cast keeps the low byte, = v & 0xFF


def wrap8s(v: np.ndarray) -> np.ndarray:
    return wrap8u(v).view(np.int8)  # the same byte read as int8 = ((v + 128) mod 256) - 128


def wrap32(x: np.ndarray) -> np.ndarray:
    return x.astype(np.int32)  # numpy int->int casts keep the low 32 bits


def sext(v: np.ndarray) -> np.ndarray:
    return v.astype(np.int64)  # sign-extends signed sources, zero-extends uint8/bool


def E(h: np.ndarray) -> np.ndarray:
    """BF16 -> F32 by bits: the halfword becomes the high half (keeps -0, subnormals, Inf, NaN payloads)."""
    return (h.view(np.uint16).astype(_U32) << _U32(16)).view(np.float32)


def rne32(v: np.ndarray) -> np.ndarray:
    return v.astype(np.float32)  # int -> f32, round to nearest even


def nz(f: np.ndarray) -> np.ndarray:
    """0 for ±0 and NaN (D11), else 1 (subnormals -> 1)."""
    return (f != 0) & (f == f)


_SMALL = _U32(113 << 23)  # |y| < 2^-14: the f16 result is subnormal
_BIG = _U32(0x477FF000)  # |y| >= 65520 (incl. Inf/NaN): RNE leaves the finite f16 range
_REBIAS = _U32((0xFFF - (112 << 23)) & 0xFFFFFFFF)  # round-half bias and exponent rebias 127 -> 15
_REBIAS_LOW = _U32((0xFFF - (113 << 23)) & 0xFFFFFFFF)
_scratch = threading.local()


def rne16(y: np.ndarray, mode: str = "sat", out: np.ndarray | None = None) -> np.ndarray:
    """f32 -> f16 round-to-nearest-even, with the §5.3 float-special rule of `mode`.

    numpy's own f32->f16 cast is a scalar loop (no F16C in its baseline), so this rounds on the bit
    patterns: normal results add the round-half(-to-even) bias and rebias the exponent; subnormal
    results come from |y| + 0.5, whose f32 ulp (2^-24) is exactly the f16 subnormal grid. Lanes with
    |y| >= 65520 or NaN take numpy's cast and then the mode's rule.
    """
    y = np.ascontiguousarray(y, dtype=np.float32)
    out = np.empty(y.shape, np.float16) if out is None else out
    n = y.size
    if n == 0:
        return out
    buf = getattr(_scratch, "buf", None) if n <= _CHUNK else np.empty((3, n), _U32)
    if buf is None:
        buf = _scratch.buf = np.empty((3, _CHUNK), _U32)  # reused per thread: no page faults per chunk
    a, o, t = buf[0, :n], buf[1, :n], buf[2, :n]
    u = y.reshape(-1).view(_U32)
    np.bitwise_and(u, _U32(0x7FFFFFFF), out=a)
    small = a.min() < _SMALL
    np.right_shift(a, _U32(13), out=o)
    o &= _U32(1)  # the kept LSB: ties go to even
    o += a
    # With subnormal results about, rebias one binade low so that |y| < 2^-14 wraps to a huge value and
    # minimum() below picks the subnormal encoding there; the binade is added back after the shift.
    o += _REBIAS_LOW if small else _REBIAS
    o >>= _U32(13)
    if small:
        o += _U32(1024)
    if small:
        with np.errstate(invalid="ignore"):  # signalling-NaN lanes; they are replaced below
            np.add(a.view(np.float32), np.float32(0.5), out=t.view(np.float32))
        t -= _U32(126 << 23)  # = round(|y| / 2^-24); >= the normal encoding wherever |y| >= 2^-14
        np.minimum(o, t, out=o)
    np.right_shift(u, _U32(16), out=t)
    t &= _U32(0x8000)
    o |= t
    bits = out.reshape(-1).view(np.uint16)
    np.copyto(bits, o, casting="unsafe")
    if a.max() >= _BIG:
        special = np.flatnonzero(a >= _BIG)
        with np.errstate(over="ignore", invalid="ignore"):  # overflow to Inf is the point here
            fixed = y.reshape(-1)[special].astype(np.float16)
        if mode == "sat":
            fixed[np.isinf(fixed)] = np.copysign(np.float16(65504), fixed[np.isinf(fixed)])
            fixed[np.isnan(fixed)] = 0.0
        bits[special] = fixed.view(np.uint16)
    return out


def _sat_f32(y: np.ndarray, mode: str) -> np.ndarray:
    """A Cast hop into F32 in "sat" mode: ±Inf -> ±FLT_MAX, NaN -> +0 (§5.3)."""
    if mode == "sat" and not np.isfinite(y).all():
        inf = np.isinf(y)
        y[inf] = np.copysign(np.finfo(np.float32).max, y[inf])
        y[np.isnan(y)] = 0.0
    return y


# -- §5.2 per-destination rules -------------------------------------------------------------------------
_FROM_T: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "int16": sat16,
    "int8": wrap8s,
    "uint8": wrap8u,
    "int64": sext,
}


def convert(x: np.ndarray, src: str, dst: str, mode: str, out: np.ndarray) -> None:
    """Write cast(x) for the pair (src, dst) into `out` (1-D chunks; shapes are handled by the caller)."""
    # errstate is per thread (a context variable), so it is set here, inside each worker's chunk.
    with np.errstate(all="ignore"):  # signalling-NaN payloads raise "invalid" in adds and compares
        _convert(x, src, dst, mode, out)


def _convert(x: np.ndarray, src: str, dst: str, mode: str, out: np.ndarray) -> None:
    if src in ("float16", "float32", "bfloat16"):
        f = E(x) if src == "bfloat16" else x
        if dst == "float16":
            rne16(f, mode, out)
        elif dst == "float32":
            out[...] = f if src == "bfloat16" else _sat_f32(f.astype(np.float32), mode)
        elif dst == "bool":
            out[...] = nz(f)
        else:
            t = T(f)
            out[...] = t if dst == "int32" else _FROM_T[dst](t)
        return
    v = x.view(np.uint8) if src == "bool" else x
    if src == "int64" and dst not in ("bool", "int8", "uint8"):
        v = wrap32(v)  # D5: every I64 narrowing except ->BOOL/I8/U8 uses the low word
    if dst == "float32":
        out[...] = rne32(v)
    elif dst == "float16":
        rne16(rne32(v), mode, out)  # exact for 8-bit, one RNE for I16, rne16(rne32(v)) for I32/I64
    elif dst == "bool":
        out[...] = v != 0
    elif dst == "int16":
        out[...] = sat16(v)  # D4: I32/I64 saturate; I8/U8 are exact
    elif dst == "int8":
        out[...] = wrap8s(v)
    elif dst == "uint8":
        out[...] = wrap8u(v)
    else:  # int32 / int64: exact widening (or the low word of I64)
        out[...] = v


def _chunked(fn: Callable[[np.ndarray, np.ndarray], None], x: np.ndarray, out: np.ndarray) -> None:
    n = x.size
    bounds = [(i, min(i + _CHUNK, n)) for i in range(0, n, _CHUNK)]
    for_each(lambda b: fn(x[b[0] : b[1]], out[b[0] : b[1]]), bounds, parallel=n > _CHUNK)


def cast(x: np.ndarray, src: str, dst: str, mode: str = "sat") -> np.ndarray:
    """The golden conversion of an array of `src` values to `dst` (any shape)."""
    if mode not in MODES:
        raise UnknownName("mode", mode, ", ".join(MODES))
    x = np.asarray(x)
    if x.dtype != NUMPY[src]:
        raise InvalidInput("x.dtype", str(x.dtype), f"{src} (the case's source dtype)")
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty(flat.size, NUMPY[dst])
    _chunked(lambda xs, ys: convert(xs, src, dst, mode, ys), flat, out)
    return out.reshape(x.shape)


def golden(case: Case, inputs: Mapping[str, Any], mode: str = "sat") -> dict[str, np.ndarray]:
    src, dst = case.dtypes
    x = np.asarray(inputs["x"])
    if x.shape != case.shape:
        raise InvalidInput("x.shape", x.shape, f"{case.shape} (the case shape)")
    return {"y": cast(x, src, dst, mode)}
