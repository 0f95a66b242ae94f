"""Small clips made here (so the tests need no shared data) and the built
`vqscope` binary to compare against (VQSCOPE_BIN, else target/debug)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def vqscope_bin() -> Path:
    if os.environ.get("VQSCOPE_BIN"):
        return Path(os.environ["VQSCOPE_BIN"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "debug" / "vqscope"


def clip_frames(n: int, width: int, height: int, bitdepth: int, seed: int, noise: float):
    """n frames of a moving textured pattern (Y, U, V numpy planes), with
    ``noise`` (0 for none) added: a reference and its distortions."""
    rng = np.random.default_rng(seed)
    peak = (1 << bitdepth) - 1
    dtype = np.uint8 if bitdepth == 8 else np.uint16
    y, x = np.mgrid[0:height, 0:width]
    frames = []
    base = np.random.default_rng(1).random((height, width))
    for t in range(n):
        luma = 0.5 + 0.3 * np.sin((x + 3 * t) / 7.0) * np.cos(y / 5.0) + 0.15 * base
        if noise:
            luma = luma + rng.normal(0.0, noise, luma.shape)
        planes = [luma]
        cy, cx = (height + 1) // 2, (width + 1) // 2
        for k in (1, 2):
            c = 0.5 + 0.1 * np.sin((np.mgrid[0:cy, 0:cx][1] + k * t) / 4.0)
            if noise:
                c = c + rng.normal(0.0, noise / 2, c.shape)
            planes.append(c)
        frames.append(tuple(np.clip(np.rint(p * peak), 0, peak).astype(dtype) for p in planes))
    return frames


def write_y4m(path: Path, frames, width: int, height: int, bitdepth: int) -> Path:
    tag = "C420jpeg" if bitdepth == 8 else f"C420p{bitdepth}"
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{width} H{height} F25:1 Ip A1:1 {tag}\n".encode())
        for planes in frames:
            f.write(b"FRAME\n")
            for p in planes:
                f.write(p.astype("<u2" if bitdepth > 8 else "u1").tobytes())
    return path


class Clips:
    """A reference and three distortions of it, 8-bit and 10-bit."""

    def __init__(self, root: Path):
        self.width, self.height, self.n = 192, 176, 6
        self.frames = {}
        self.paths = {}
        for depth in (8, 10):
            for seed, (name, noise) in enumerate((("ref", 0.0), ("a", 0.01), ("b", 0.03),
                                                  ("c", 0.08))):
                frames = clip_frames(self.n, self.width, self.height, depth, seed, noise)
                key = (name, depth)
                self.frames[key] = frames
                self.paths[key] = write_y4m(root / f"{name}{depth}.y4m", frames, self.width,
                                            self.height, depth)

    def path(self, name: str, depth: int = 8) -> str:
        return str(self.paths[(name, depth)])


@pytest.fixture(scope="session")
def clips(tmp_path_factory) -> Clips:
    return Clips(tmp_path_factory.mktemp("clips"))


def run_cli(*args: str) -> subprocess.CompletedProcess:
    exe = vqscope_bin()
    if not exe.exists():
        pytest.fail(f"{exe} is missing: build it (cargo build -p vqscope) or set VQSCOPE_BIN")
    return subprocess.run([str(exe), "score", "-q", *args], capture_output=True, text=True)


def cli_json(tmp_path: Path, ref: str, dis: str, *args: str) -> tuple[dict, list[str]]:
    """The CLI's JSON report and the pooled lines it printed."""
    out = tmp_path / "cli.json"
    done = run_cli("-r", ref, "-d", dis, "--json", "-o", str(out), *args)
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text()), done.stdout.splitlines()
