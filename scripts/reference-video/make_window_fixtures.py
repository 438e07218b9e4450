#!/usr/bin/python3
"""Independent PyAV reference for the video-windowing spec "windows-v1".

Writes fixtures/video-windows/: small ffmpeg-made videos, per-video timelines,
every case's windows (manifest.json) and the rgb24 frames of the first and
last window of every case (.npy, uint8 [N, H, W, 3]).

Run with Debian's interpreter (PyAV 10, numpy):
    /usr/bin/python3 scripts/reference-video/make_window_fixtures.py
Existing videos are never re-encoded (unless --reencode); instead each run
encodes every video again into a temp folder and records in the manifest
whether the bytes match (encode determinism check).
"""

import argparse
import hashlib
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from fractions import Fraction

import av
import numpy as np

SPEC = "windows-v1"
EPS = 1e-9
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT_REL = "fixtures/video-windows"
OUT = os.path.join(REPO, OUT_REL)
SCRIPT_REL = "scripts/reference-video/make_window_fixtures.py"

# ---------------------------------------------------------------- videos

FF = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
# bit-exact muxing (no random Matroska UIDs, no encoder version tags),
# no metadata, single-threaded x264 (deterministic and modest on CPU).
BITEXACT = ["-map_metadata", "-1", "-fflags", "+bitexact", "-flags:v", "+bitexact"]


def x264(pix_fmt, gop):
    return ["-c:v", "libx264", "-preset", "medium", "-threads", "1",
            "-pix_fmt", pix_fmt, "-g", str(gop)]


def lavfi(size, rate, duration):
    return ["-f", "lavfi", "-i",
            "testsrc2=size=%s:rate=%s:duration=%s" % (size, rate, duration)]


# Timestamps in integer milliseconds: the brief's example setpts='if(lt(N,30),N/25,1.2+(N-30)/10)/TB'
# runs in testsrc2's 1/25 time base, where 0.1 s is 2.5 ticks, so ffmpeg rounds the slow part onto
# the 1/25 grid (steps 0.08/0.12); and the encoder time base defaults to 1/frame_rate (1/25) too.
VFR_FILTER = "settb=1/1000,setpts='if(lt(N,30),N*40,1200+(N-30)*100)'"

VIDEOS = [
    {
        "file": "cfr25.mp4",
        "note": "testsrc2 25 fps, 6 s, 64x48, H.264 yuv420p, keyframe every 25 frames, faststart",
        "args": lavfi("64x48", "25", "6") + x264("yuv420p", 25) + BITEXACT
        + ["-movflags", "+faststart"],
    },
    {
        "file": "ntsc.mp4",
        "note": "testsrc2 30000/1001 fps, 5 s, 64x48, H.264 yuv420p, -g 30",
        "args": lavfi("64x48", "30000/1001", "5") + x264("yuv420p", 30) + BITEXACT,
    },
    {
        "file": "vfr.mkv",
        "note": "testsrc2 25 fps 4 s re-timed: frames 0-29 1/25 s apart, the rest 1/10 s apart; Matroska",
        "args": lavfi("64x48", "25", "4") + ["-vf", VFR_FILTER, "-fps_mode", "vfr",
                                              "-enc_time_base", "1/1000"]
        + x264("yuv420p", 25) + BITEXACT,
    },
    {
        "file": "odd.mp4",
        "note": "testsrc2 25 fps, 3 s, 67x45 (odd size), H.264 yuv444p",
        # testsrc2 rounds its size down to even (67x45 -> 66x44): draw 68x46 and crop in 4:4:4.
        "args": lavfi("68x46", "25", "3") + ["-vf", "format=yuv444p,crop=67:45:0:0"]
        + x264("yuv444p", 25) + BITEXACT,
    },
    {
        "file": "truncated.ts",
        "note": "testsrc2 25 fps, 4 s, 64x48, H.264 yuv420p -g 25 in MPEG-TS, then cut to 60% of its bytes",
        "args": lavfi("64x48", "25", "4") + x264("yuv420p", 25) + BITEXACT + ["-f", "mpegts"],
        "truncate": 0.6,
    },
]

LONG_COMMANDS = {
    "note": "not committed; the test suite generates these itself",
    "long10min": FF + lavfi("32x32", "25", "600") + x264("yuv420p", 25) + BITEXACT + ["long10min.mp4"],
    "long1min": FF + lavfi("32x32", "25", "60") + x264("yuv420p", 25) + BITEXACT + ["long1min.mp4"],
}
for _k in ("long10min", "long1min"):
    LONG_COMMANDS[_k + "_shell"] = shlex.join(LONG_COMMANDS[_k])


def command_for(v, path):
    return FF + v["args"] + [path]


def encode(v, dest_dir):
    """Encode video v into dest_dir; returns the final path."""
    final = os.path.join(dest_dir, v["file"])
    if "truncate" in v:
        full = final + ".full"
        subprocess.run(command_for(v, full), check=True)
        with open(full, "rb") as f:
            data = f.read()
        os.remove(full)
        with open(final, "wb") as f:
            f.write(data[: int(len(data) * v["truncate"])])
    else:
        subprocess.run(command_for(v, final), check=True)
    return final


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def ffmpeg_version():
    out = subprocess.run(["ffmpeg", "-version"], check=True, capture_output=True, text=True).stdout
    return out.splitlines()[0]


# ---------------------------------------------------------------- decoding


def decode(path):
    """All frames in PyAV output order: (timeline info, list of rgb24 arrays)."""
    frames, pts, times = [], [], []
    err = None
    container = av.open(path)
    stream = container.streams.video[0]
    info = {
        "time_base": str(stream.time_base),
        "avg_rate": str(stream.average_rate) if stream.average_rate is not None else None,
        "guessed_rate": str(stream.guessed_rate) if stream.guessed_rate is not None else None,
        "container_nb_frames": int(stream.frames),
        "stream_start_time": stream.start_time,
        "codec": stream.codec_context.name,
        "width": stream.codec_context.width,
        "height": stream.codec_context.height,
        "pix_fmt": stream.codec_context.pix_fmt,
    }
    try:
        for frame in container.decode(video=0):
            if frame.pts is None:
                raise RuntimeError("frame %d has no pts" % len(frames))
            pts.append(int(frame.pts))
            times.append(float(frame.pts * frame.time_base))
            frames.append(frame.to_ndarray(format="rgb24"))
    except Exception as e:  # truncated input: record and keep what decoded
        err = {"type": type(e).__module__ + "." + type(e).__name__, "message": str(e)}
    container.close()
    info["frame_count"] = len(frames)
    info["decode_error"] = err
    info["pts"] = pts
    info["t"] = times
    if frames:
        info["frame_shape"] = list(frames[0].shape)
    return info, frames


# ---------------------------------------------------------------- spec


def pick(m, n):
    """Indices into a list of m items: round-half-even of linspace(0, m-1, n)."""
    return [int(x) for x in np.round(np.linspace(0, m - 1, n)).astype(int)]


def windows_v1(t, fps=None, frames=None, stride=None, window_seconds=None, start=None, end=None):
    """Returns (records, detail). t: float64 presentation times of all frames, output order."""
    n = frames
    if n is None:
        raise ValueError("frames is required")
    # 1. range
    rng = [i for i, ti in enumerate(t)
           if (start is None or start <= ti) and (end is None or ti < end)]
    if not rng:
        raise ValueError("empty range")
    t_first, t_last = t[rng[0]], t[rng[-1]]
    # 2. samples: (frame index, sample time)
    if fps is None:
        samples = [(i, t[i]) for i in rng]
    else:
        samples = []
        k = 0
        while True:
            tau = t_first + k / fps
            if not tau <= t_last + EPS:
                break
            chosen = None
            for i in rng:  # last frame of R (in order) with t_i <= tau + eps
                if t[i] <= tau + EPS:
                    chosen = i
            samples.append((chosen, tau))
            k += 1
    m = len(samples)
    wins = []  # (w, [sample positions])
    if window_seconds is None:
        # 3. frame mode
        st = n if stride is None else stride
        if m < n:
            wins.append((0, pick(m, n)))
        else:
            w = 0
            while w * st + n <= m:
                wins.append((w, list(range(w * st, w * st + n))))
                w += 1
    else:
        # 4. seconds mode
        S = window_seconds
        sigma = S if stride is None else stride
        T0 = samples[0][1]
        if end is not None:
            T_end = end
        else:
            if fps is not None:
                d = 1 / fps
            elif len(rng) > 1:
                d = t[rng[-1]] - t[rng[-2]]
            else:
                d = 0.0
            T_end = samples[-1][1] + d
        w = 0
        while True:
            a = T0 + w * sigma
            b = T0 + w * sigma + S
            if not b <= T_end + EPS:
                break
            inside = [p for p, (_, s) in enumerate(samples) if a - EPS <= s < b - EPS]
            if inside:
                wins.append((w, [inside[q] for q in pick(len(inside), n)]))
            w += 1
        if not wins:
            wins.append((0, pick(m, n)))
    records, detail = [], []
    for w, pos in wins:
        idx = [samples[p][0] for p in pos]
        records.append({"window": w, "frames": idx,
                        "start_s": round(t[idx[0]], 9), "end_s": round(t[idx[-1]], 9)})
        detail.append(pos)
    summary = {"range_count": len(rng), "range_first": rng[0], "range_last": rng[-1],
               "sample_count": m,
               "sample_frames": [i for i, _ in samples],
               "sample_times": [tau for _, tau in samples]}
    if window_seconds is not None:
        summary["T0"] = T0
        summary["T_end"] = T_end
    return records, detail, summary


CASES = [
    ("frames4_stride2", {"frames": 4, "stride": 2}),
    ("fps5_frames4", {"fps": 5, "frames": 4}),
    ("win2s_stride1s", {"window_seconds": 2, "stride": 1, "frames": 4}),
    ("start_end", {"start": 1.5, "end": 4.2, "fps": 5, "frames": 4, "stride": 2}),
    ("fps12_frames8_stride4", {"fps": 12, "frames": 8, "stride": 4}),
]
TRUNCATED_CASES = ("frames4_stride2", "fps5_frames4")
# Extra edge cases beyond the brief (windows only, no .npy): m < N with exact .5 picks
# (round-half-even), seconds mode with empty (skipped) windows and an explicit end, and the
# "no complete window" fallback.
EXTRA_CASES = [
    ("extra_short_halfeven", {"end": 0.1, "frames": 5}),
    ("extra_sec_gaps", {"start": 1.2, "end": 2.0, "window_seconds": 0.05, "stride": 0.05, "frames": 2}),
    ("extra_no_complete", {"window_seconds": 10, "frames": 4}),
]


# ---------------------------------------------------------------- output


def npy_bytes(arr):
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


def write_if_changed(path, data):
    if os.path.exists(path):
        with open(path, "rb") as f:
            if f.read() == data:
                return
    with open(path, "wb") as f:
        f.write(data)


def _fmt(obj, ind):
    """JSON with one-space indent, but lists of scalars on one line (keeps the manifest small)."""
    pad = " " * ind
    flat = json.dumps(obj, allow_nan=False, separators=(",", ":"))
    if len(flat) <= 160 or (isinstance(obj, list) and all(not isinstance(x, (dict, list)) for x in obj)):
        return flat
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [pad + " " + json.dumps(k) + ": " + _fmt(v, ind + 1) for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list):
        items = [pad + " " + _fmt(v, ind + 1) for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(obj, allow_nan=False)


def dumps(obj):
    return (_fmt(obj, 0) + "\n").encode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reencode", action="store_true", help="re-encode videos even if present")
    ap.add_argument("--no-encode-check", action="store_true",
                    help="skip the encode-twice determinism check")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)

    # videos
    determinism = {}
    with tempfile.TemporaryDirectory() as tmp:
        for v in VIDEOS:
            dest = os.path.join(OUT, v["file"])
            if args.reencode or not os.path.exists(dest):
                p = encode(v, tmp)
                shutil.copyfile(p, dest)
                os.remove(p)
            if not args.no_encode_check:
                p = encode(v, tmp)
                determinism[v["file"]] = sha256(p) == sha256(dest)
                os.remove(p)

    manifest = {
        "spec": SPEC,
        "generator": SCRIPT_REL,
        "command": "/usr/bin/python3 " + SCRIPT_REL,
        "versions": {
            "pyav": av.__version__,
            "ffmpeg": ffmpeg_version(),
            "libav": {k: "%d.%d.%d" % tuple(v) for k, v in sorted(av.library_versions.items())},
            "numpy": np.__version__,
            "python": "%d.%d" % sys.version_info[:2],
        },
        "conventions": {
            "decode": "for frame in av.open(path).decode(video=0) (output order); i = position in that order",
            "t_i": "float(frame.pts * frame.time_base)",
            "frames": "frame.to_ndarray(format='rgb24'), uint8 [N, H, W, 3], window order, repeats included",
            "npy": "<video-stem>__<case>__w<window>.npy for the first and the last window of each case "
                   "(one file when they are the same window)",
            "rounding": "start_s/end_s rounded to 9 decimals; exact float64 t_i are in <stem>__pts.json ('t'), "
                        "exact sample times in each case's summary.sample_times (float64, shortest repr)",
            "window_samples": "each case's window_samples[j] = positions into summary.sample_frames/"
                              "sample_times of windows[j]",
            "window_index": "seconds mode: w counts every candidate window, so a skipped empty window leaves a gap",
        },
        "spec_resolutions": [
            "start_s/end_s are t_i of the window's first/last frame (not the sample time tau); "
            "sample times are in summary.sample_times",
            "fps mode: 'last frame of R with t_i <= tau+1e-9' is the last in decode-output order "
            "(t is strictly increasing in every fixture, so this equals the latest such frame)",
            "tau_k = t_first + k / F (true division, float64), b = T0 + w*sigma + S evaluated left to right",
            "seconds mode: stride is in seconds, default S; an empty window is skipped but w still counts, "
            "so window numbers can have gaps (extra_sec_gaps on vfr.mkv)",
            "seconds mode fallback (no complete window): a single window numbered 0 over all samples",
            "frame mode with m < N: a single window numbered 0",
            "floats rounded with Python round(x, 9); compare with a tolerance of ~1e-9, not by string",
        ],
        "long_commands": LONG_COMMANDS,
        "videos": [],
    }

    files = []
    for v in VIDEOS:
        stem = os.path.splitext(v["file"])[0]
        path = os.path.join(OUT, v["file"])
        info, frames = decode(path)
        entry = {
            "file": v["file"],
            "note": v["note"],
            "ffmpeg_command": command_for(v, v["file"] + (".full" if "truncate" in v else "")),
            "ffmpeg_shell": shlex.join(command_for(v, v["file"] + (".full" if "truncate" in v else ""))),
            "size": os.path.getsize(path),
            "sha256": sha256(path),
            "encode_deterministic": determinism.get(v["file"]),
        }
        if "truncate" in v:
            entry["truncate"] = {
                "fraction": v["truncate"],
                "rule": "keep the first int(size * fraction) bytes of the full file",
            }
            with tempfile.TemporaryDirectory() as tmp:
                fpath = os.path.join(tmp, "full.ts")
                subprocess.run(command_for(v, fpath), check=True)
                finfo, fframes = decode(fpath)
                entry["truncate"]["full_size"] = os.path.getsize(fpath)
            by_t = {tt: k for k, tt in enumerate(finfo["t"])}
            entry["truncate"]["full_frame_count"] = finfo["frame_count"]
            entry["truncate"]["full_t_first_last"] = [finfo["t"][0], finfo["t"][-1]]
            entry["truncate"]["decoded_frames_equal_full_file"] = all(
                tt in by_t and np.array_equal(a, fframes[by_t[tt]]) for tt, a in zip(info["t"], frames))
            entry["truncate"]["lost_before_last_decoded"] = [
                tt for tt in finfo["t"] if tt <= info["t"][-1] and tt not in set(info["t"])]
            entry["truncate"]["exception"] = info["decode_error"]
        timeline = {"file": v["file"], **{k: info[k] for k in (
            "frame_count", "time_base", "avg_rate", "guessed_rate", "container_nb_frames",
            "stream_start_time", "decode_error", "pts", "t")}}
        pts_name = stem + "__pts.json"
        write_if_changed(os.path.join(OUT, pts_name), dumps(timeline))
        files.append(pts_name)
        entry["timeline"] = pts_name
        for k in ("frame_count", "time_base", "avg_rate", "guessed_rate", "container_nb_frames",
                  "stream_start_time", "codec", "width", "height", "pix_fmt", "frame_shape",
                  "decode_error"):
            entry[k] = info.get(k)
        t = info["t"]
        steps = sorted({round(b - a, 9) for a, b in zip(t, t[1:])})
        entry["t_first"] = t[0]
        entry["t_last"] = t[-1]
        entry["distinct_steps_s"] = steps
        entry["pts_monotonic"] = all(b > a for a, b in zip(info["pts"], info["pts"][1:]))
        if v["file"] == "vfr.mkv":  # the re-timing must really be uneven
            assert steps == [0.04, 0.1], steps
            assert abs(t[29] - 1.16) < EPS and abs(t[30] - 1.2) < EPS and abs(t[31] - 1.3) < EPS, t[28:32]
        if v["file"] == "odd.mp4":
            assert info["frame_shape"] == [45, 67, 3], info["frame_shape"]
        cases = []
        for name, opts in CASES + EXTRA_CASES:
            if "truncate" in v and name not in TRUNCATED_CASES:
                continue
            records, detail, summary = windows_v1(t, **opts)
            if name in dict(EXTRA_CASES):
                cases.append({"case": name, "extra": True, "options": opts, "summary": summary,
                              "windows": records, "window_samples": detail})
                continue
            npys = {}
            for rec in {records[0]["window"]: records[0], records[-1]["window"]: records[-1]}.values():
                arr = np.stack([frames[i] for i in rec["frames"]]).astype(np.uint8)
                nm = "%s__%s__w%d.npy" % (stem, name, rec["window"])
                write_if_changed(os.path.join(OUT, nm), npy_bytes(arr))
                files.append(nm)
                npys[str(rec["window"])] = nm
            cases.append({"case": name, "options": opts, "summary": summary,
                          "windows": records, "window_samples": detail, "npy": npys})
        entry["cases"] = cases
        manifest["videos"].append(entry)

    manifest["files"] = {}
    for nm in sorted(files):
        p = os.path.join(OUT, nm)
        manifest["files"][nm] = {"size": os.path.getsize(p), "sha256": sha256(p)}
    manifest["rerun"] = {
        "encode_deterministic_all": all(determinism.values()) if determinism else None,
        "policy": "existing videos are never re-encoded (pass --reencode to force); every run encodes "
                  "each video again into a temp folder and compares sha256 with the committed file",
        "outputs": "npy/json are rewritten only when their bytes change; a rerun must leave git clean",
    }
    write_if_changed(os.path.join(OUT, "manifest.json"), dumps(manifest))
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print("wrote %s: %d files, %d bytes; encode deterministic: %s"
          % (OUT_REL, len(os.listdir(OUT)), total, determinism))


if __name__ == "__main__":
    main()
