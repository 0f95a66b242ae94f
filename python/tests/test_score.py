"""vqscope.score against the `vqscope score` command on the same inputs:
the same per-frame values, pooled values and printed lines."""

from __future__ import annotations

import contextlib
import json
import pickle

import subprocess

import numpy as np
import pytest

import vqscope
from conftest import cli_json, run_cli, write_y4m


def printf_value(v: float) -> str:
    """libvmaf's number format, written here independently of vqscope's
    writer: %.16f when reaching 1 takes the fractional part of |v| more than
    six multiplications by ten (an integer part out of C int's range counts
    as INT_MIN), else %.6f."""
    x = abs(v)
    frac = x - (-(2**31) if x >= 2**31 else int(x))
    count = 0
    while frac < 1.0 and frac != 0.0:
        frac *= 10.0
        count += 1
    return f"{v:.16f}" if count > 6 else f"{v:.6f}"


def assert_same_as_cli(result: vqscope.Result, cli: dict, lines: list[str]) -> None:
    """Every number of the CLI's JSON report and every line it printed."""
    assert result.pooled_lines == lines
    frames = cli["frames"]
    assert list(result.frame_numbers) == [f["frameNum"] for f in frames]
    assert result.names == list(frames[0]["metrics"])
    for name, column in result.frames.items():
        printed = [float(printf_value(v)) for v in column]
        assert printed == [f["metrics"][name] for f in frames], name
    for name, pooled in result.pooled.items():
        printed = {k: float(printf_value(v)) for k, v in pooled.items()}
        assert printed == cli["pooled_metrics"][name], name
    assert {k: float(printf_value(v)) for k, v in result.aggregates.items()} == \
        cli["aggregate_metrics"]
    # And the report itself, but for the fps (the time each run took).
    ours = json.loads(result.report("json"))
    for doc in (ours, cli):
        doc.pop("fps")
    assert ours == cli


def test_default_model_equals_cli(clips, tmp_path):
    ref, dis = clips.path("ref"), clips.path("b")
    cli, lines = cli_json(tmp_path, ref, dis)
    r = vqscope.score(ref, dis)
    assert_same_as_cli(r, cli, lines)
    assert r.pooled_lines[0].startswith("vmaf_v0.6.1: ")
    assert len(r["vmaf"]) == clips.n


def test_options_equal_cli(clips, tmp_path):
    """A bootstrap model, features, subsample and frame_cnt on 10-bit clips."""
    ref, dis = clips.path("ref", 10), clips.path("a", 10)
    cli, lines = cli_json(tmp_path, ref, dis, "-m", "version=vmaf_b_v0.6.3", "--feature", "psnr",
                          "--feature", "float_ssim", "--subsample", "2", "--frame_cnt", "5")
    r = vqscope.score(ref, dis, models=["version=vmaf_b_v0.6.3"], features=["psnr", "float_ssim"],
                      subsample=2, frame_cnt=5)
    assert_same_as_cli(r, cli, lines)
    assert len(lines) == 2 and "ci.p95" in lines[1]


def test_libvmaf_zeros_equal_cli(clips, tmp_path):
    """frame_cnt=0 (no limit) and subsample=0 (every frame), as libvmaf and
    the CLI read them."""
    ref, dis = clips.path("ref"), clips.path("a")
    cli, lines = cli_json(tmp_path, ref, dis, "--frame_cnt", "0", "--subsample", "0")
    r = vqscope.score(ref, dis, frame_cnt=0, subsample=0)
    assert_same_as_cli(r, cli, lines)
    assert len(r["vmaf"]) == clips.n


def test_aom_ctc_preset_equals_cli(clips, tmp_path):
    ref, dis = clips.path("ref"), clips.path("c")
    cli, lines = cli_json(tmp_path, ref, dis, "--aom_ctc", "v2.0")
    r = vqscope.score(ref, dis, aom_ctc="v2.0")
    assert_same_as_cli(r, cli, lines)
    assert r.aggregates


def test_score_many_equals_separate_calls(clips):
    ref = clips.path("ref")
    renditions = [clips.path(n) for n in ("a", "b", "c")]
    many = vqscope.score_many(ref, renditions, features="psnr")
    for dis, r in zip(renditions, many):
        one = vqscope.score(ref, dis, features=["psnr"])
        assert one.names == r.names
        assert np.array_equal(one.values, r.values)
        assert one.pooled == r.pooled and one.pooled_lines == r.pooled_lines
    assert many[0].pooled["vmaf"]["mean"] > many[2].pooled["vmaf"]["mean"]


def test_score_many_with_a_rendition_shorter_than_announced(clips, tmp_path):
    """Renditions announcing the same length share motion; an mp4 cut in
    half still announces its frames, so the ladder is scored again without
    sharing: every result still equals its separate call."""
    full, cut = tmp_path / "full.mp4", tmp_path / "cut.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", clips.path("b"), "-c:v", "mpeg4",
                    "-movflags", "+faststart", str(full)], check=True)
    data = full.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    ref = clips.path("ref")
    renditions = [clips.path("a"), str(cut)]
    # Two warnings, both about the cut file: its end, and ffmpeg's count.
    with pytest.warns(UserWarning) as caught:
        many = vqscope.score_many(ref, renditions, features="psnr")
    said = [str(w.message) for w in caught]
    assert any("cut.mp4 ended before reference" in m for m in said), said
    assert any("cut.mp4: ffmpeg decoded" in m for m in said), said
    for dis, r in zip(renditions, many):
        with pytest.warns(UserWarning) if dis == str(cut) else contextlib.nullcontext():
            one = vqscope.score(ref, dis, features=["psnr"])
        assert np.array_equal(one.values, r.values)
        assert one.pooled == r.pooled and one.warnings == r.warnings
    assert len(many[1].frame_numbers) < clips.n


def test_decode_choice_per_call(clips, tmp_path):
    """``decode`` picks the decoder of compressed inputs for one call: an
    MPEG-4 part 2 file is no device's to decode, so "gpu" fails in one
    line, "auto" falls back to ffmpeg with "cpu"'s values, and the next
    call without ``decode`` is not affected."""
    mp4 = tmp_path / "dis.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", clips.path("b"), "-c:v", "mpeg4",
                    "-q:v", "2", str(mp4)], check=True)
    ref = clips.path("ref")
    with pytest.raises(vqscope.VqscopeError, match="cannot be decoded on the device"):
        vqscope.score(ref, str(mp4), features="psnr", decode="gpu")
    cpu = vqscope.score(ref, str(mp4), features="psnr", decode="cpu")
    auto = vqscope.score(ref, str(mp4), features="psnr", decode="auto")
    default = vqscope.score(ref, str(mp4), features="psnr")
    for r in (auto, default):
        assert np.array_equal(r.values, cpu.values) and r.pooled_lines == cpu.pooled_lines
    with pytest.raises(vqscope.VqscopeError, match="decode: auto, gpu or cpu"):
        vqscope.score(ref, str(mp4), decode="nvdec")


@pytest.mark.parametrize("depth", [8, 10])
def test_numpy_frames_equal_file(clips, depth):
    ref, dis = clips.frames[("ref", depth)], clips.frames[("b", depth)]
    from_file = vqscope.score(clips.path("ref", depth), clips.path("b", depth), features=["psnr"])
    bitdepth = None if depth == 8 else depth
    from_arrays = vqscope.score(ref, dis, features=["psnr"], bitdepth=bitdepth)
    assert from_arrays.names == from_file.names
    assert np.array_equal(from_arrays.values, from_file.values)
    assert from_arrays.pooled_lines == from_file.pooled_lines
    gen = vqscope.score_frames(((r, d) for r, d in zip(ref, dis)), bitdepth=bitdepth,
                               features="psnr", frame_cnt=3)
    assert np.array_equal(gen.values, from_file.values[:3])


def test_pandas_and_pickle(clips):
    pd = pytest.importorskip("pandas")
    r = vqscope.score(clips.path("ref"), clips.path("a"))
    df = r.to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == r.names and list(df.index) == list(r.frame_numbers)
    assert np.array_equal(df["vmaf"].to_numpy(), r["vmaf"])
    back = pickle.loads(pickle.dumps(r))
    assert np.array_equal(back.values, r.values)
    assert back.pooled == r.pooled and back.pooled_lines == r.pooled_lines
    assert back.report("csv") == r.report("csv")


def cli_error(*args: str) -> str:
    done = run_cli(*args)
    assert done.returncode != 0
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("vqscope: ")
    return line[len("vqscope: "):]


@pytest.mark.parametrize("case", ["missing", "model", "preset", "mismatch", "nothing"])
def test_errors_are_the_cli_lines(clips, tmp_path, case):
    ref, dis = clips.path("ref"), clips.path("a")
    cases = {
        "missing": (["-r", ref, "-d", str(tmp_path / "nope.y4m")],
                    dict(reference=ref, distorted=str(tmp_path / "nope.y4m"))),
        "model": (["-r", ref, "-d", dis, "-m", "version=vmaf_nope"],
                  dict(reference=ref, distorted=dis, models=["version=vmaf_nope"])),
        "preset": (["-r", ref, "-d", dis, "--aom_ctc", "v9.0"],
                   dict(reference=ref, distorted=dis, aom_ctc="v9.0")),
        "mismatch": (["-r", ref, "-d", clips.path("a", 10)],
                     dict(reference=ref, distorted=clips.path("a", 10))),
        "nothing": (["-r", ref, "-d", dis, "-n"],
                    dict(reference=ref, distorted=dis, no_prediction=True)),
    }
    args, kwargs = cases[case]
    expected = cli_error(*args)
    with pytest.raises(vqscope.VqscopeError) as raised:
        vqscope.score(**kwargs)
    assert str(raised.value) == expected


def test_bad_frames_raise(clips):
    ref = clips.frames[("ref", 8)]
    with pytest.raises(vqscope.VqscopeError, match="plane 1"):
        vqscope.score(ref, [(f[0], f[1][:, :10], f[2]) for f in ref])
    with pytest.raises(vqscope.VqscopeError, match="give bitdepth"):
        vqscope.score(clips.frames[("ref", 10)], clips.frames[("a", 10)])


def test_scale_distorted_equals_cli(clips, tmp_path):
    """A rendition made at another size, scaled on the GPU (the CLI's own
    equality with ffmpeg's scaled copy is app/tests/scale_distorted.rs), in
    score and in score_many beside a full-size one."""
    small = [tuple(p[::2, ::2] for p in planes) for planes in clips.frames[("b", 8)]]
    h, w = small[0][0].shape
    dis = str(write_y4m(tmp_path / "small.y4m", small, w, h, 8))
    ref = clips.path("ref")
    cli, lines = cli_json(tmp_path, ref, dis, "--scale-distorted")
    r = vqscope.score(ref, dis, scale_distorted=True)
    assert_same_as_cli(r, cli, lines)
    many = vqscope.score_many(ref, [clips.path("a"), dis], scale_distorted=True)
    assert np.array_equal(many[1].values, r.values)
    with pytest.raises(Exception, match="--scale-distorted"):
        vqscope.score(ref, dis)
