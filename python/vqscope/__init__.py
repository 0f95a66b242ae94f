"""vqscope: libvmaf 3.2's VMAF and features, bit-exact, on the GPU (Vulkan).

The same engine as the ``vqscope score`` command, called in-process::

    import vqscope
    r = vqscope.score("ref.y4m", "enc.y4m")
    r.pooled_lines          # what `vqscope score` prints: ['vmaf_v0.6.1: 94.123456']
    r["vmaf"]               # per-frame values as a numpy array
    r.to_pandas()           # one row a frame, one column a metric

Options are ``vqscope score``'s flags, by name: ``models``/``features``
(lists of ``--model``/``--feature`` strings), ``aom_ctc``, ``nflx_ctc``,
``no_prediction``, ``frame_cnt``, ``frame_skip_ref``, ``frame_skip_dist``,
``subsample``, raw input's ``width``/``height``/``pixel_format``/``bitdepth``,
``scale_distorted``, ``threads``, ``decode`` (``"auto"``, the default,
``"gpu"`` or ``"cpu"``: which decoder reads compressed files, for this call
only); and ``device`` (an index or a name substring, as ``VQSCOPE_DEVICE``
takes it; default: ``VQSCOPE_DEVICE`` or the first GPU). Errors raise :class:`VqscopeError` with the line the CLI prints.
"""

from __future__ import annotations

import os
import threading as _threading
import warnings as _warnings
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from . import _native
from ._native import VqscopeError

if TYPE_CHECKING:
    import numpy as np


def _import_numpy() -> None:
    import numpy  # noqa: F401 (kept in sys.modules for _numpy)


# numpy takes about as long to import as the Vulkan device takes to make
# (a tenth of a second or more): a fresh interpreter's first score() would
# pay both in turn. It is imported on a thread instead, while the native
# code (which releases the GIL) opens the inputs and makes the device;
# _numpy() waits for it. The thread is not a daemon: an interpreter that
# exits first waits for it, never ending in the middle of the import.
_numpy_import = _threading.Thread(target=_import_numpy, name="vqscope: import numpy")
_numpy_import.start()


def _numpy():
    """numpy, once the thread has imported it (an import error shows here)."""
    _numpy_import.join()
    import numpy
    return numpy

__all__ = ["Result", "VqscopeError", "device_name", "score", "score_frames", "score_many"]


class Result:
    """One scored pair: per-frame values, pooled values and the CLI's lines.

    ``names`` are the columns in report order (features, then model
    outputs); ``values[i, k]`` is column ``k`` at frame ``frame_numbers[i]``
    (the frames a report keeps: every ``subsample``-th). ``result[name]`` is
    one column. ``pooled[name]`` holds ``min``, ``max``, ``mean`` and
    ``harmonic_mean`` as the report's ``pooled_metrics`` (``None`` where the
    report has none). ``pooled_lines`` are the lines ``vqscope score``
    prints after scoring.
    """

    def __init__(self, native: Any):
        np = _numpy()
        self._native = native
        self.names: list[str] = native.names
        self.frame_numbers = np.asarray(native.frame_numbers, dtype=np.int64)
        values = np.frombuffer(native.values, dtype=np.float64)
        self.values = values.reshape(len(self.frame_numbers), len(self.names))
        self.pooled: dict[str, dict[str, float] | None] = {
            name: None if p is None else dict(zip(("min", "max", "mean", "harmonic_mean"), p))
            for name, p in native.pooled
        }
        self.pooled_lines: list[str] = native.pooled_lines
        self.aggregates: dict[str, float] = dict(native.aggregates)
        self.warnings: list[str] = native.warnings
        self.device: str = native.device
        self.size: tuple[int, int] = native.size
        self.seconds: float = native.seconds

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self.values[:, self.names.index(name)]
        except ValueError:
            raise KeyError(f"{name}: the columns are {', '.join(self.names)}") from None

    @property
    def frames(self) -> dict[str, np.ndarray]:
        """Every column by name."""
        return {name: self.values[:, k] for k, name in enumerate(self.names)}

    def report(self, format: str = "json") -> str:
        """The report ``vqscope score -o`` writes (``xml``, ``json``, ``csv``, ``sub``)."""
        return self._native.report(format)

    def to_pandas(self):
        """A DataFrame: one row a frame (indexed by frame number), one column a metric."""
        import pandas as pd

        return pd.DataFrame(self.values, columns=self.names,
                            index=pd.Index(self.frame_numbers, name="frame"))

    def __repr__(self) -> str:
        lines = "; ".join(self.pooled_lines) or f"{len(self.names)} features"
        return f"<vqscope.Result {len(self.frame_numbers)} frames on {self.device}: {lines}>"

    # Pickling (Ray sends results between processes): the native state,
    # rebuilt by the same Rust code on the other side.
    def __reduce__(self):
        return (_restore, (self._native.state(),))


def _restore(state) -> Result:
    return Result(_native.restore_result(state))


def _options(options: dict) -> Any:
    for key in ("models", "features"):
        if isinstance(options.get(key), str):
            options[key] = [options[key]]
    return _native.Options(**options)


def _is_path(x: Any) -> bool:
    return isinstance(x, (str, bytes, os.PathLike))


def _result(native: Any) -> Result:
    for w in native.warnings:
        _warnings.warn(f"vqscope: {w}", stacklevel=3)
    return Result(native)


def score(reference, distorted, models: Sequence[str] | str | None = None,
          features: Sequence[str] | str | None = None, **options) -> Result:
    """Scores ``distorted`` against ``reference``, as ``vqscope score -r -d``.

    Both are paths (y4m, raw yuv with ``width``/``height``/``pixel_format``/
    ``bitdepth``, anything ffmpeg reads) or both are sequences of frames as
    :func:`score_frames` takes them (then give ``pixel_format`` and, above 8
    bits, ``bitdepth``).
    """
    if not _is_path(reference) and not _is_path(distorted):
        return score_frames(zip(reference, distorted), models=models, features=features,
                            **options)
    native, = _native.score_files(os.fspath(reference), [os.fspath(distorted)],
                                  _options(dict(options, models=models, features=features)))
    return _result(native)


def score_many(reference, distorted: Iterable, models: Sequence[str] | str | None = None,
               features: Sequence[str] | str | None = None, **options) -> list[Result]:
    """Scores each of ``distorted`` (a ladder's renditions) against ``reference``.

    The results equal separate :func:`score` calls; the renditions share one
    GPU context (and its pipelines' cache) and are scored one after another.
    """
    paths = [os.fspath(d) for d in distorted]
    natives = _native.score_files(os.fspath(reference), paths,
                                  _options(dict(options, models=models, features=features)))
    return [_result(n) for n in natives]


def _plane_sizes(width: int, height: int, pixel_format: str) -> list[tuple[int, int]]:
    """(height, width) of each plane; chroma rounds up, as ffmpeg and libvmaf do."""
    shifts = {"420": (1, 1), "422": (1, 0), "444": (0, 0)}
    if pixel_format == "400":
        return [(height, width)]
    if pixel_format not in shifts:
        raise VqscopeError(f"pixel_format {pixel_format}: 420, 422, 444 or 400")
    sx, sy = shifts[pixel_format]
    chroma = ((height + (1 << sy) - 1) >> sy, (width + (1 << sx) - 1) >> sx)
    return [(height, width), chroma, chroma]


def _frame_bytes(frame, index: int, which: str, pixel_format: str, bitdepth: int) -> bytes:
    np = _numpy()
    planes = [frame] if isinstance(frame, np.ndarray) else list(frame)
    luma = np.asarray(planes[0])
    if luma.ndim != 2:
        raise VqscopeError(f"{which} frame {index}: the Y plane must be 2-D (height, width)")
    sizes = _plane_sizes(luma.shape[1], luma.shape[0], pixel_format)
    if len(planes) != len(sizes):
        raise VqscopeError(f"{which} frame {index}: {len(planes)} planes, but {pixel_format} "
                           f"has {len(sizes)}")
    dtype = np.dtype("u1") if bitdepth <= 8 else np.dtype("<u2")
    out = []
    for p, (plane, shape) in enumerate(zip(planes, sizes)):
        plane = np.asarray(plane)
        if plane.shape != shape:
            raise VqscopeError(f"{which} frame {index}: plane {p} is {plane.shape}, "
                               f"expected {shape} (height, width)")
        if plane.dtype.kind != "u" or plane.dtype.itemsize != dtype.itemsize:
            raise VqscopeError(f"{which} frame {index}: plane {p} is {plane.dtype}; "
                               f"{bitdepth}-bit samples are {'uint8' if bitdepth <= 8 else 'uint16'}")
        out.append(np.ascontiguousarray(plane, dtype=dtype).tobytes())
    return b"".join(out)


def score_frames(frames: Iterable, *, pixel_format: str = "420", bitdepth: int | None = None,
                 models: Sequence[str] | str | None = None,
                 features: Sequence[str] | str | None = None, **options) -> Result:
    """Scores frames decoded by the caller.

    ``frames`` yields ``(reference, distorted)`` pairs (a generator is read
    one pair at a time). Each frame is a tuple of planes ``(Y, U, V)`` (or
    the Y plane alone for ``pixel_format="400"``), each a 2-D numpy array
    ``(height, width)`` of ``uint8`` for 8-bit samples or ``uint16`` (the
    sample values, not shifted) for 9 to 16 bits. ``pixel_format`` is
    ``420``, ``422``, ``444`` or ``400``; chroma planes are
    ``ceil(height/2) × ceil(width/2)`` in 4:2:0. The results equal those of
    the same frames in a y4m file.
    """
    frames = iter(frames)
    try:
        first = next(frames)
    except StopIteration:
        raise VqscopeError("no frames to score") from None
    ref0 = first[0]
    np = _numpy()
    luma = np.asarray(ref0 if isinstance(ref0, np.ndarray) else ref0[0])
    if bitdepth is None:
        if luma.dtype != np.uint8:
            raise VqscopeError(f"{luma.dtype} samples: give bitdepth (9 to 16)")
        bitdepth = 8
    if luma.ndim != 2:
        raise VqscopeError("reference frame 0: the Y plane must be 2-D (height, width)")
    height, width = luma.shape

    def encoded():
        for i, (ref, dis) in enumerate(_chain(first, frames)):
            yield (_frame_bytes(ref, i, "reference", pixel_format, bitdepth),
                   _frame_bytes(dis, i, "distorted", pixel_format, bitdepth))

    opts = _options(dict(options, models=models, features=features))
    native = _native.score_frames(encoded(), width, height, pixel_format, bitdepth, opts)
    return _result(native)


def _chain(first, rest):
    yield first
    yield from rest


def device_name(device: str | None = None) -> str:
    """The Vulkan device vqscope scores on (``device`` as in :func:`score`)."""
    return _native.device_name(device)
