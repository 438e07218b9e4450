"""dinotxt: DINOv3 dino.txt (facebookresearch/dinov3 hub/dinotxt.py) in Meta's file layout, tiny and seeded.

Meta distributes three files: the backbone (`dinov3_vitl16_pretrain_*.pth`), the vision head and text encoder
(`dinov3_vitl16_dinotxt_vision_head_and_text_encoder-*.pth`: visual_model.head.*, text_model.backbone.*,
text_model.head.linear_projection.weight, logit_scale) and CLIP's `bpe_simple_vocab_16e6.txt.gz`. Here the backbone
is the dinov3_meta fixture's (read from ../dinov3_meta, not copied), the second file is drawn here, and the
vocabulary is CLIP's header and first N_MERGES merges.

Reference = a float64 transcription of dinov3 eval/text/: VisionTower.forward (the backbone's last layer through
its final norm: get_intermediate_layers(n=1, norm=True) as [CLS, 4 storage tokens, patches]; VisionHead: 2
SelfAttentionBlocks (qkv_bias False, proj and ffn biases, LayerScale, SwiGLUFFN align_to 64, no rope), ln_final;
concat(CLS row, mean of the patch rows after the num_register_tokens + 1 prefix)), TextTower.forward
(TextTransformer: token_embedding + positional_embedding[:N], CausalSelfAttentionBlocks (attention_norm,
CausalSelfAttention with qkv without bias, is_causal, ffn_norm, Mlp fc1 / GELU / fc2, no layer scale), ln_final;
the row at argmax(ids) (pooler 'argmax'), linear_projection without bias), and DINOTxt's score
exp(logit_scale) * cos(image, text). Token ids from scripts/text/clip_tokenizer_ids.py's tokenizer on the
tiny vocabulary. Nothing here imports the engine.
"""
import gzip
import math
import os
import sys
from collections import OrderedDict

import numpy as np
import torch

import common
import fam_dinov3
import swiglu
from common import F64, f64

sys.path.insert(0, os.path.join(common.REPO_ROOT, "scripts", "text"))
import clip_tokenizer_ids  # noqa: E402

EPS = 1e-5
BACKBONE_DIR = "dinov3_meta"
BACKBONE = "dinov3_vittiny16_pretrain_seeded.pth"
HEAD_AND_TEXT = "dinov3_vittiny16_dinotxt_vision_head_and_text_encoder-seeded.pth"
VOCAB = "bpe_tiny_128.txt.gz"
N_MERGES = 128
CONTEXT = 77
TEXT_DIM, TEXT_HEADS, TEXT_LAYERS = 16, 2, 2
HEAD_BLOCKS = 2
LOGIT_SCALE = 3.4
CLIP_VOCAB = os.path.join(common.REPO_ROOT, "..", "shared", "reference", "clip-bpe", "bpe_simple_vocab_16e6.txt.gz")

TEXTS = [
    "a photo of a dog",
    "A RED car, parked at night!!",
    "",
    "don't stop, it's fine",
    "\u6771\u4eac \U0001f600 caf\u00e9",
    " ".join(["a photo of a red car at night"] * 12),  # over 77 tokens: cut, the end token last
]


def write_vocab(path):
    """CLIP's header line and its first N_MERGES merges, gzip without a name or time (gzip -n)."""
    lines = gzip.open(CLIP_VOCAB).read().decode("utf-8").split("\n")[: N_MERGES + 1]
    data = ("\n".join(lines) + "\n").encode("utf-8")
    with open(path, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0, compresslevel=9) as gz:
            gz.write(data)


def make_weights(seed, *, dim, n_head_backbone, vocab_size):
    """The vision-head-and-text-encoder state dict, in the module's registration order."""
    wm = common.WeightMaker(seed)
    w = OrderedDict()
    hidden = fam_dinov3.meta_swiglu_width(dim, 4.0, 64)
    for i in range(HEAD_BLOCKS):
        s = f"visual_model.head.blocks.{i}."
        b = fam_dinov3.dinov3_block(wm, dim, hidden)
        w[s + "norm1.weight"], w[s + "norm1.bias"] = b["norm1.weight"], b["norm1.bias"]
        w[s + "attn.qkv.weight"] = b["attn.qkv.weight"]  # SelfAttentionBlock's default qkv_bias=False
        w[s + "attn.proj.weight"], w[s + "attn.proj.bias"] = b["attn.proj.weight"], b["attn.proj.bias"]
        w[s + "ls1.gamma"] = wm.uniform((dim,), 0.5, 1.5)
        w[s + "norm2.weight"], w[s + "norm2.bias"] = b["norm2.weight"], b["norm2.bias"]
        w[s + "mlp.w1.weight"], w[s + "mlp.w1.bias"] = b["mlp.fc1.weight"], b["mlp.fc1.bias"]
        w[s + "mlp.w2.weight"], w[s + "mlp.w2.bias"] = wm.linear(hidden, dim)
        w[s + "mlp.w3.weight"], w[s + "mlp.w3.bias"] = b["mlp.fc2.weight"], b["mlp.fc2.bias"]
        w[s + "ls2.gamma"] = wm.uniform((dim,), 0.5, 1.5)
    w["visual_model.head.ln_final.weight"], w["visual_model.head.ln_final.bias"] = wm.layer_norm(dim)
    t = "text_model.backbone."
    w[t + "token_embedding.weight"] = wm.normal((vocab_size, TEXT_DIM), 0.5)
    w[t + "positional_embedding"] = wm.normal((CONTEXT, TEXT_DIM), 0.3)
    for i in range(TEXT_LAYERS):
        s = f"{t}blocks.{i}."
        b = common.make_block_weights(wm, TEXT_DIM, 4 * TEXT_DIM)
        w[s + "attention_norm.weight"], w[s + "attention_norm.bias"] = b["norm1.weight"], b["norm1.bias"]
        w[s + "attention.qkv.weight"] = b["attn.qkv.weight"]  # CausalSelfAttention: qkv without bias
        w[s + "attention.proj.weight"], w[s + "attention.proj.bias"] = b["attn.proj.weight"], b["attn.proj.bias"]
        w[s + "ffn_norm.weight"], w[s + "ffn_norm.bias"] = b["norm2.weight"], b["norm2.bias"]
        w[s + "feed_forward.fc1.weight"], w[s + "feed_forward.fc1.bias"] = b["mlp.fc1.weight"], b["mlp.fc1.bias"]
        w[s + "feed_forward.fc2.weight"], w[s + "feed_forward.fc2.bias"] = b["mlp.fc2.weight"], b["mlp.fc2.bias"]
    w[t + "ln_final.weight"], w[t + "ln_final.bias"] = wm.layer_norm(TEXT_DIM)
    w["text_model.head.linear_projection.weight"] = wm.normal((2 * dim, TEXT_DIM), 1.0 / math.sqrt(TEXT_DIM))
    w["logit_scale"] = torch.tensor(LOGIT_SCALE, dtype=torch.float32)
    # stored as float16 to keep the fixture small (the converter reads any float dtype); the reference reads
    # these exact float16 values
    return OrderedDict((k, v.to(torch.float16)) for k, v in w.items()), hidden


def _attention(x, qkv_w, proj_w, proj_b, n_head, causal):
    n = x.shape[0]
    allowed = torch.ones(n, n, dtype=torch.bool).tril() if causal else None
    return common.attention(x, qkv_w, torch.zeros(qkv_w.shape[0]), proj_w, proj_b, n_head, allowed=allowed)


@torch.no_grad()
def vision_forward(head, backbone_tokens, n_head, *, registers_in_mean=False):
    """VisionTower.forward on the backbone's normed tokens [1 + R + HW, D] -> [2D]."""
    x = backbone_tokens
    for i in range(HEAD_BLOCKS):
        p = common.block_params(head, f"visual_model.head.blocks.{i}.")
        a = _attention(common.layer_norm(x, p["norm1.weight"], p["norm1.bias"], EPS), p["attn.qkv.weight"],
                       p["attn.proj.weight"], p["attn.proj.bias"], n_head, causal=False)
        x = x + f64(p["ls1.gamma"]) * a
        h = common.layer_norm(x, p["norm2.weight"], p["norm2.bias"], EPS)
        w12 = torch.cat([f64(p["mlp.w1.weight"]), f64(p["mlp.w2.weight"])])
        b12 = torch.cat([f64(p["mlp.w1.bias"]), f64(p["mlp.w2.bias"])])
        x = x + f64(p["ls2.gamma"]) * swiglu.swiglu(h, w12, b12, p["mlp.w3.weight"], p["mlp.w3.bias"])
    x = common.layer_norm(x, head["visual_model.head.ln_final.weight"], head["visual_model.head.ln_final.bias"], EPS)
    first_patch = 1 if registers_in_mean else 1 + fam_dinov3.N_REGISTER
    return torch.cat([x[0], x[first_patch:].mean(0)])


@torch.no_grad()
def text_forward(w, ids, *, causal=True, pool="argmax"):
    """TextTower.forward on one padded row of CONTEXT ids -> [2D]."""
    t = "text_model.backbone."
    ids_t = torch.tensor(ids, dtype=torch.long)
    x = f64(w[t + "token_embedding.weight"])[ids_t] + f64(w[t + "positional_embedding"])[: len(ids)]
    for i in range(TEXT_LAYERS):
        p = common.block_params(w, f"{t}blocks.{i}.")
        x = x + _attention(common.layer_norm(x, p["attention_norm.weight"], p["attention_norm.bias"], EPS),
                           p["attention.qkv.weight"], p["attention.proj.weight"], p["attention.proj.bias"],
                           TEXT_HEADS, causal)
        h = common.layer_norm(x, p["ffn_norm.weight"], p["ffn_norm.bias"], EPS)
        x = x + common.linear(common.gelu_erf(common.linear(h, p["feed_forward.fc1.weight"], p["feed_forward.fc1.bias"])),
                              p["feed_forward.fc2.weight"], p["feed_forward.fc2.bias"])
    x = common.layer_norm(x, w[t + "ln_final.weight"], w[t + "ln_final.bias"], EPS)
    row = int(ids_t.argmax()) if pool == "argmax" else len(ids) - 1
    return x[row] @ f64(w["text_model.head.linear_projection.weight"]).T


def scores(images, texts, logit_scale):
    a = images / images.norm(dim=-1, keepdim=True)
    b = texts / texts.norm(dim=-1, keepdim=True)
    return math.exp(float(logit_scale)) * (a @ b.T)


def generate(name="dinotxt", seed=1051):
    out_dir = common.family_dir(name)
    backbone_dir = os.path.join(common.FIXTURE_ROOT, BACKBONE_DIR)
    backbone = torch.load(os.path.join(backbone_dir, BACKBONE))
    dim = backbone["cls_token"].shape[-1]
    n_head = dim // (4 * backbone["rope_embed.periods"].shape[0])
    n_layer = len({k.split(".")[1] for k in backbone if k.startswith("blocks.")})

    vocab_path = os.path.join(out_dir, VOCAB)
    write_vocab(vocab_path)
    clip = clip_tokenizer_ids.Clip(vocab_path, n_merges=N_MERGES)
    vocab_size = 512 + N_MERGES + 2
    assert len(clip.ids) == vocab_size and clip.ids["<|endoftext|>"] == vocab_size - 1
    weights, hidden = make_weights(seed, dim=dim, n_head_backbone=n_head, vocab_size=vocab_size)
    common.torch_save_deterministic(weights, os.path.join(out_dir, HEAD_AND_TEXT))

    rows = [clip.tokenize(t, CONTEXT) for t in TEXTS]
    np.save(os.path.join(out_dir, "token_ids.npy"), np.array(rows, dtype=np.int64))
    text = torch.stack([text_forward(weights, r) for r in rows])
    text_noncausal = torch.stack([text_forward(weights, r, causal=False) for r in rows])
    text_last = torch.stack([text_forward(weights, r, pool="last") for r in rows])

    cases = {}
    images, images_reg = [], []
    for tag in ("", "_wide"):
        pixels = torch.from_numpy(np.load(os.path.join(backbone_dir, f"input{tag}.npy")))
        tokens = fam_dinov3.meta_forward(backbone, pixels, n_head, n_layer)[0]
        images.append(vision_forward(weights, tokens, n_head))
        images_reg.append(vision_forward(weights, tokens, n_head, registers_in_mean=True))
        cases[tag or "native"] = {"input": f"../{BACKBONE_DIR}/input{tag}.npy", "input_shape": list(pixels.shape)}
    images, images_reg = torch.stack(images), torch.stack(images_reg)
    s = scores(images, text, weights["logit_scale"])

    common.save_f32(os.path.join(out_dir, "text_vectors.npy"), text)
    common.save_f32(os.path.join(out_dir, "image_vectors.npy"), images)
    common.save_f32(os.path.join(out_dir, "scores.npy"), s)
    controls = {
        "text_noncausal.npy": "text vectors with the text attention left non-causal (every token sees all 77)",
        "text_last_token.npy": "text vectors pooled at the last of the 77 rows instead of the end-of-text token",
        "image_registers_in_mean.npy": "image vectors with the 4 registers counted in the patch mean",
    }
    common.save_f32(os.path.join(out_dir, "text_noncausal.npy"), text_noncausal)
    common.save_f32(os.path.join(out_dir, "text_last_token.npy"), text_last)
    common.save_f32(os.path.join(out_dir, "image_registers_in_mean.npy"), images_reg)
    stats = {
        "text_noncausal_cosine": common.cosine_stats(text.numpy(), text_noncausal.numpy()),
        "text_last_token_cosine": common.cosine_stats(text.numpy(), text_last.numpy()),
        "image_registers_in_mean_cosine": common.cosine_stats(images.numpy(), images_reg.numpy()),
    }
    return {
        "family": "dinov3",
        "variant": "dino.txt (vision head + text tower) on the dinov3_meta backbone",
        "source_layout": "facebookresearch/dinov3 hub/dinotxt.py: the backbone .pth, the vision-head-and-text-"
                         "encoder .pth (bare state dict), CLIP's gzip BPE merges",
        "checkpoint": [f"../{BACKBONE_DIR}/{BACKBONE}", HEAD_AND_TEXT, VOCAB],
        "hparams": {"embed_dim": dim, "n_head": n_head, "head_blocks": HEAD_BLOCKS, "head_swiglu_hidden": hidden,
                    "text_dim": TEXT_DIM, "text_heads": TEXT_HEADS, "text_layers": TEXT_LAYERS,
                    "text_ffn": 4 * TEXT_DIM, "context": CONTEXT, "n_merges": N_MERGES, "vocab_size": vocab_size,
                    "out_dim": 2 * dim, "logit_scale": float(weights["logit_scale"]), "weights_dtype": "float16", "eps": EPS},
        "texts": TEXTS,
        "token_ids": "token_ids.npy: int64 [texts, 77], CLIP's rows (start, ids, end, 0s; over-long cut with the end "
                     "token last) from scripts/text/clip_tokenizer_ids.py Clip(vocab, n_merges=128)",
        "text_vectors": "text_vectors.npy [texts, 2D]",
        "image_cases": cases,
        "image_vectors": "image_vectors.npy [2, 2D]: native then wide input: concat(CLS, mean of the patch rows)",
        "scores": "scores.npy [images, texts]: exp(logit_scale) * cos(image, text)",
        "reference": "float64 transcription of dinov3 eval/text/{vision_tower,text_tower,text_transformer}.py and "
                     "layers/{block,attention,ffn_layers}.py (see scripts/reference/fam_dinotxt.py)",
        "negative_controls": {**controls, **stats},
    }
