#!/usr/bin/env python3
"""PyTorch + transformers throughput on the shapes of the engine's bench (random weights, real sizes).

    python scripts/gpu/torch_bench.py --out torch_bench.json [--models vit-b16,vit-h14,vit-l16-video]
        [--dtypes fp16,bf16] [--batches 1,8,32] [--repeat 10] [--warmup 3] [--budget-s 240] [--device cuda:0]

Models are built from a config (nothing is downloaded), attn_implementation="sdpa", moved with
.to(device, dtype).eval() and run under torch.inference_mode():

  vit-b16        transformers ViTModel(add_pooling_layer=False): D 768, L 12, H 12, F 3072, P16, 224x224 -> 197 tokens
  vit-h14        transformers IJepaModel(add_pooling_layer=False): D 1280, L 32, H 16, F 5120, P14, 224x224 -> 256 tokens
  vit-l16-video  transformers VJEPA2Model, encoder only (model.encoder(pixel_values_videos=...)): D 1024, L 24,
                 H 16, mlp_ratio 4, 2x16x16 tubelets, crop 256, 16 frames, input [B, T, C, H, W] -> 8x16x16 = 2048
                 tokens. The predictor VJEPA2Model always builds is kept tiny and is never run.

Per (model, dtype, batch) row:
  device time  input already on the GPU; `warmup` untimed forwards, then `repeat` forwards, each between a pair of
               CUDA events (synchronised after); ms per item = event ms / batch, median reported, all kept.
  host time    end to end like the engine (host float32 in, host float32 out): perf_counter around
               x.to(device, dtype) -> forward -> last_hidden_state.float().cpu(); median of `repeat` after warmup.
  peak memory  torch.cuda.reset_peak_memory_stats() before the row, max_memory_allocated() after (MiB; the model's
               weights are included, they are allocated when the peak is reset).

The JSON file is rewritten atomically (FILE.partial, then os.replace) after every row, so a killed run keeps what
it measured. A row that raises (out of memory, ...) goes to "errors"; rows not started because --budget-s had
passed go to "skipped".
"""
import argparse
import gc
import json
import os
import statistics
import sys
import time
from datetime import datetime, timezone

MODEL_NAMES = ("vit-b16", "vit-h14", "vit-l16-video")
DTYPE_NAMES = ("fp16", "bf16", "fp32")


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output JSON file (rewritten after every row)")
    ap.add_argument("--models", default=",".join(MODEL_NAMES), help="comma list of %s" % ", ".join(MODEL_NAMES))
    ap.add_argument("--dtypes", default="fp16,bf16", help="comma list of %s" % ", ".join(DTYPE_NAMES))
    ap.add_argument("--batches", default="1,8,32", help="comma list of batch sizes")
    ap.add_argument("--repeat", type=int, default=10, help="timed forwards per row (device and host each)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed forwards before each timed series")
    ap.add_argument("--budget-s", type=float, default=240.0,
                    help="start no new row once this many seconds have passed since the start")
    ap.add_argument("--device", default="cuda:0")
    args = ap.parse_args(argv)
    args.model_list = [m.strip() for m in args.models.split(",") if m.strip()]
    args.dtype_list = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    try:
        args.batch_list = [int(b) for b in args.batches.split(",") if b.strip()]
    except ValueError:
        ap.error("--batches must be a comma list of integers")
    for m in args.model_list:
        if m not in MODEL_NAMES:
            ap.error("unknown model %r (known: %s)" % (m, ", ".join(MODEL_NAMES)))
    for d in args.dtype_list:
        if d not in DTYPE_NAMES:
            ap.error("unknown dtype %r (known: %s)" % (d, ", ".join(DTYPE_NAMES)))
    if any(b < 1 for b in args.batch_list) or args.repeat < 1 or args.warmup < 0:
        ap.error("batches and --repeat must be >= 1, --warmup >= 0")
    return args


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def write_json_atomic(path, obj):
    tmp = path + ".partial"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def main(argv=None):
    args = parse_args(argv)
    # No network on the target machine: keep huggingface_hub / transformers from trying.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    t_start = time.perf_counter()

    import torch
    import transformers
    from transformers import IJepaConfig, IJepaModel, VJEPA2Config, VJEPA2Model, ViTConfig, ViTModel

    dtypes = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}
    device = torch.device(args.device)
    if device.type != "cuda" or not torch.cuda.is_available():
        log("torch_bench: a CUDA device is required (got %s, cuda available: %s)"
            % (args.device, torch.cuda.is_available()))
        return 2
    torch.cuda.set_device(device)
    torch.manual_seed(0)

    # ---------------------------------------------------------------- model builders (config only, no download)
    def build_vit_b16():
        cfg = ViTConfig(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
                        patch_size=16, image_size=224, num_channels=3, attn_implementation="sdpa")
        return ViTModel(cfg, add_pooling_layer=False)

    def build_vit_h14():
        cfg = IJepaConfig(hidden_size=1280, num_hidden_layers=32, num_attention_heads=16, intermediate_size=5120,
                          patch_size=14, image_size=224, num_channels=3, layer_norm_eps=1e-6,
                          attn_implementation="sdpa")
        return IJepaModel(cfg, add_pooling_layer=False)

    def build_vit_l16_video():
        cfg = VJEPA2Config(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, mlp_ratio=4.0,
                           patch_size=16, tubelet_size=2, crop_size=256, frames_per_clip=16, in_chans=3,
                           layer_norm_eps=1e-6,
                           # the predictor is always constructed; keep it tiny (it is never run here)
                           pred_hidden_size=64, pred_num_attention_heads=4, pred_num_hidden_layers=1,
                           pred_num_mask_tokens=1, pred_mlp_ratio=1.0,
                           attn_implementation="sdpa")
        return VJEPA2Model(cfg)

    def image_forward(model, x):
        return model(pixel_values=x).last_hidden_state

    video_call = {"how": "encoder"}

    def video_forward(model, x):
        # Encoder only: VJEPA2Model.forward(skip_predictor=True) also gathers masked_hidden_state over all tokens
        # (through an int64 index tensor of B*N*D), which the engine does not do. Fall back to that public call
        # only if this transformers' VJEPA2Encoder.forward does not take pixel_values_videos.
        if video_call["how"] == "encoder":
            try:
                return model.encoder(pixel_values_videos=x).last_hidden_state
            except TypeError as e:
                video_call["how"] = "skip_predictor"
                log("[torch_bench] model.encoder(pixel_values_videos=...) failed (%s); using "
                    "model(pixel_values_videos=x, skip_predictor=True)" % e)
        return model(pixel_values_videos=x, skip_predictor=True).last_hidden_state

    specs = {
        "vit-b16": {"build": build_vit_b16, "shape": lambda b: (b, 3, 224, 224), "forward": image_forward,
                    "hf_class": "ViTModel(add_pooling_layer=False)", "call": "model(pixel_values=x)",
                    "input_layout": "B,C,H,W"},
        "vit-h14": {"build": build_vit_h14, "shape": lambda b: (b, 3, 224, 224), "forward": image_forward,
                    "hf_class": "IJepaModel(add_pooling_layer=False)", "call": "model(pixel_values=x)",
                    "input_layout": "B,C,H,W"},
        "vit-l16-video": {"build": build_vit_l16_video, "shape": lambda b: (b, 16, 3, 256, 256),
                          "forward": video_forward, "hf_class": "VJEPA2Model (encoder only)",
                          "call": "model.encoder(pixel_values_videos=x)", "input_layout": "B,T,C,H,W"},
    }

    props = torch.cuda.get_device_properties(device)
    result = {
        "tool": "torch",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "device": torch.cuda.get_device_name(device),
        "device_total_mem_mib": round(props.total_memory / 2**20, 1),
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "settings": {"repeat": args.repeat, "warmup": args.warmup, "budget_s": args.budget_s,
                     "device_arg": args.device, "models": args.model_list, "dtypes": args.dtype_list,
                     "batches": args.batch_list, "weights": "random (transformers init), real sizes",
                     "samples_device_ms": "whole-batch CUDA-event ms of each timed forward",
                     "matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
                     "sdp_flash": torch.backends.cuda.flash_sdp_enabled(),
                     "sdp_mem_efficient": torch.backends.cuda.mem_efficient_sdp_enabled(),
                     "sdp_math": torch.backends.cuda.math_sdp_enabled()},
        "models": {},
        "rows": [],
        "errors": [],
        "skipped": [],
    }
    write_json_atomic(args.out, result)

    def over_budget():
        return time.perf_counter() - t_start > args.budget_s

    def skip(model_name, dtype_name, batch, why):
        result["skipped"].append({"model": model_name, "dtype": dtype_name, "batch": batch, "why": why})

    def free():
        gc.collect()
        torch.cuda.synchronize(device)
        torch.cuda.empty_cache()

    def run_row(model, spec, model_name, dtype_name, batch):
        dtype = dtypes[dtype_name]
        forward = spec["forward"]
        free()
        torch.manual_seed(0)
        x_host = torch.randn(spec["shape"](batch), dtype=torch.float32)
        x_dev = x_host.to(device=device, dtype=dtype)
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        with torch.inference_mode():
            # device time: input already resident
            out = None
            for _ in range(args.warmup):
                out = forward(model, x_dev)
            torch.cuda.synchronize(device)
            samples = []
            for _ in range(args.repeat):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                out = forward(model, x_dev)
                end.record()
                torch.cuda.synchronize(device)
                samples.append(float(start.elapsed_time(end)))
            tokens, dim = int(out.shape[1]), int(out.shape[2])
            out_dtype = str(out.dtype).replace("torch.", "")
            del out
            # host time: host float32 in, host float32 out
            for _ in range(args.warmup):
                y = forward(model, x_host.to(device=device, dtype=dtype, non_blocking=False)).float().cpu()
                del y
            torch.cuda.synchronize(device)
            host = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                xd = x_host.to(device=device, dtype=dtype, non_blocking=False)
                y = forward(model, xd).float().cpu()
                host.append((time.perf_counter() - t0) * 1000.0)
                del xd, y
        torch.cuda.synchronize(device)
        peak = torch.cuda.max_memory_allocated(device) / 2**20
        del x_dev, x_host
        ms_batch = statistics.median(samples)
        ms_item = ms_batch / batch
        host_ms_batch = statistics.median(host)
        host_ms_item = host_ms_batch / batch
        return {
            "model": model_name, "dtype": dtype_name, "batch": batch,
            "attn": getattr(model.config, "_attn_implementation", None),
            "tokens": tokens, "dim": dim, "output_dtype": out_dtype,
            "ms_per_item_device": round(ms_item, 5), "items_per_s_device": round(1000.0 / ms_item, 3),
            "ms_per_batch_device": round(ms_batch, 5),
            "samples_device_ms": [round(s, 5) for s in samples],
            "ms_per_item_host": round(host_ms_item, 5), "items_per_s_host": round(1000.0 / host_ms_item, 3),
            "ms_per_batch_host": round(host_ms_batch, 5),
            "samples_host_ms": [round(s, 4) for s in host],
            "peak_mem_mib": round(peak, 1),
            "call": (("model.encoder(pixel_values_videos=x)" if video_call["how"] == "encoder"
                      else "model(pixel_values_videos=x, skip_predictor=True)")
                     if model_name == "vit-l16-video" else spec["call"]),
        }

    for model_name in args.model_list:
        spec = specs[model_name]
        for dtype_name in args.dtype_list:
            if over_budget():
                for b in args.batch_list:
                    skip(model_name, dtype_name, b, "budget")
                write_json_atomic(args.out, result)
                continue
            model = None
            try:
                free()
                torch.manual_seed(0)
                t0 = time.perf_counter()
                # Build directly on the GPU (random init there is fast), then cast.
                with torch.device(device):
                    model = spec["build"]()
                model = model.to(device=device, dtype=dtypes[dtype_name]).eval()
                build_s = time.perf_counter() - t0
                n_params = sum(p.numel() for p in model.parameters())
                run_part = model.encoder if model_name == "vit-l16-video" else model
                n_enc = sum(p.numel() for p in run_part.parameters())
                result["models"][model_name] = {
                    "hf_class": spec["hf_class"], "call": spec["call"], "input_layout": spec["input_layout"],
                    "params_total": int(n_params), "params_run": int(n_enc),
                    "attn": getattr(model.config, "_attn_implementation", None)}
                log("[torch_bench] built %s %s in %.1fs (%.1fM params, attn=%s)"
                    % (model_name, dtype_name, build_s, n_params / 1e6,
                       getattr(model.config, "_attn_implementation", None)))
            except Exception as e:  # noqa: BLE001 - recorded, the run goes on
                msg = "build: %s: %s" % (type(e).__name__, e)
                log("[torch_bench] %s %s build failed: %s" % (model_name, dtype_name, msg))
                for b in args.batch_list:
                    result["errors"].append({"model": model_name, "dtype": dtype_name, "batch": b, "error": msg})
                model = None
                free()
                write_json_atomic(args.out, result)
                continue

            for batch in args.batch_list:
                if over_budget():
                    skip(model_name, dtype_name, batch, "budget")
                    write_json_atomic(args.out, result)
                    continue
                try:
                    row = run_row(model, spec, model_name, dtype_name, batch)
                    result["rows"].append(row)
                    log("[torch_bench] %-14s %s B=%-3d tokens %4d  device %8.3f ms/item (%8.1f items/s)  "
                        "host %8.3f ms/item (%8.1f items/s)  peak %8.1f MiB  attn=%s"
                        % (model_name, dtype_name, batch, row["tokens"], row["ms_per_item_device"],
                           row["items_per_s_device"], row["ms_per_item_host"], row["items_per_s_host"],
                           row["peak_mem_mib"], row["attn"]))
                except Exception as e:  # noqa: BLE001 - OOM and friends: recorded, the run goes on
                    msg = "%s: %s" % (type(e).__name__, str(e)[:2000])
                    result["errors"].append({"model": model_name, "dtype": dtype_name, "batch": batch,
                                             "error": msg})
                    log("[torch_bench] %-14s %s B=%-3d ERROR %s" % (model_name, dtype_name, batch, msg[:300]))
                free()
                write_json_atomic(args.out, result)

            del model
            free()

    result["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    result["elapsed_s"] = round(time.perf_counter() - t_start, 2)
    write_json_atomic(args.out, result)
    log("[torch_bench] wrote %s: %d rows, %d errors, %d skipped in %.1fs"
        % (args.out, len(result["rows"]), len(result["errors"]), len(result["skipped"]), result["elapsed_s"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
