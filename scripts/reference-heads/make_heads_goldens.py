"""Float64 goldens for the heads and predictors: fixtures/reference-heads/<case>/.

Reads each forged model.gguf with gguf-py and computes the outputs from the semantics in
families.md (V-JEPA v1 probe §2.4, V-JEPA 2 masked predictor §3.5 and pooler §3.6, V-JEPA 2.1
predictor §4.5, LeWM §6.3-6.4), in numpy float64, independently of the TypeScript graph. Writes the
inputs and outputs as float32 (token ids int64) .npy and a manifest.json per case.

    cd packages/worldmodel && pnpm fixtures:heads      # forge the GGUFs, then this script
    PYTHONPATH=tmp/llama.cpp/gguf-py /usr/bin/python3 scripts/reference-heads/make_heads_goldens.py

Needs Debian's /usr/bin/python3 with python3-numpy; seeds are fixed, reruns rewrite identical bytes.
"""
import json
import math
import os
import sys

import numpy as np
from gguf import GGUFReader

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'fixtures', 'reference-heads')
COMMAND = 'PYTHONPATH=tmp/llama.cpp/gguf-py /usr/bin/python3 scripts/reference-heads/make_heads_goldens.py'

_erf = np.vectorize(math.erf, otypes=[np.float64])


class Model:
    def __init__(self, path):
        r = GGUFReader(path)
        self.t = {}
        for x in r.tensors:
            shape = tuple(int(n) for n in reversed(list(x.shape)))
            self.t[x.name] = np.asarray(x.data, dtype=np.float64).reshape(shape)
        self.meta = {}
        for key, f in r.fields.items():
            if not key.startswith('jepa.'):
                continue
            if f.types[0].name == 'STRING':
                self.meta[key] = bytes(f.parts[f.data[0]]).decode()
            elif f.types[0].name == 'ARRAY':
                if f.types[1].name == 'STRING':
                    self.meta[key] = [bytes(f.parts[i]).decode() for i in f.data]
                else:
                    self.meta[key] = [f.parts[i][0].item() for i in f.data]
            else:
                self.meta[key] = f.parts[f.data[0]][0].item()

    def __getitem__(self, name):
        return self.t[name]

    def m(self, key):
        return self.meta[key]


# ---- building blocks (rows are the last-but-one axis, features the last) ----

def act_fn(name, x):
    if name == 'gelu':
        return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))
    if name == 'silu':
        return x / (1.0 + np.exp(-x))
    raise ValueError(name)


def linear(M, prefix, x):
    y = x @ M[prefix + '.weight'].T
    b = prefix + '.bias'
    return y + M[b] if b in M.t else y


def layer_norm(x, eps, w=None, b=None):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + eps)
    return y * w + b if w is not None else y


def ln(M, prefix, x, eps):
    return layer_norm(x, eps, M[prefix + '.weight'], M[prefix + '.bias'])


def softmax(s):
    s = s - s.max(-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(-1, keepdims=True)


def mha(q, k, v, heads, mask=None):
    """q [..., Nq, H*hd], k/v [..., Nk, H*hd] -> [..., Nq, H*hd]; mask True where a query may look."""
    hd = q.shape[-1] // heads
    split = lambda x: np.swapaxes(x.reshape(x.shape[:-1] + (heads, hd)), -2, -3)  # [..., H, N, hd]
    qh, kh, vh = split(q), split(k), split(v)
    s = qh @ np.swapaxes(kh, -1, -2) / math.sqrt(hd)
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    o = softmax(s) @ vh
    o = np.swapaxes(o, -2, -3)
    return o.reshape(o.shape[:-2] + (heads * hd,))


# ---- 3-D RoPE (families.md §3.4, §4.4): segments [t | h | w | untouched] of width d each ----

def rope_factors(ids, grid, head_dim, layout, theta):
    d = 2 * ((head_dim // 3) // 2)
    half = d // 2
    omega = 1.0 / theta ** (np.arange(half) / half)
    ids = np.asarray(ids)
    pos = [ids // (grid * grid), (ids % (grid * grid)) // grid, ids % grid]
    cos = np.ones((len(ids), head_dim))
    sin = np.zeros((len(ids), head_dim))
    for axis in range(3):
        ang = pos[axis][:, None] * omega[None, :]
        if layout == 'tiled':
            c, s = np.concatenate([np.cos(ang), np.cos(ang)], 1), np.concatenate([np.sin(ang), np.sin(ang)], 1)
        else:
            c, s = np.repeat(np.cos(ang), 2, 1), np.repeat(np.sin(ang), 2, 1)
        cos[:, axis * d:(axis + 1) * d] = c
        sin[:, axis * d:(axis + 1) * d] = s
    return cos, sin


def rotate(x, cos, sin):
    """x [N, H, hd]: x*cos + rot(x)*sin, rot(x)[2k] = -x[2k+1], rot(x)[2k+1] = x[2k]."""
    r = np.empty_like(x)
    r[..., 0::2] = -x[..., 1::2]
    r[..., 1::2] = x[..., 0::2]
    return x * cos[:, None, :] + r * sin[:, None, :]


def vit_block(M, prefix, x, heads, eps, act, rope=None):
    D = x.shape[-1]
    hd = D // heads
    qkv = linear(M, prefix + '.attn.qkv', ln(M, prefix + '.ln1', x, eps))
    q, k, v = qkv[:, :D], qkv[:, D:2 * D], qkv[:, 2 * D:]
    if rope is not None:
        n = x.shape[0]
        q = rotate(q.reshape(n, heads, hd), *rope).reshape(n, D)
        k = rotate(k.reshape(n, heads, hd), *rope).reshape(n, D)
    x = x + linear(M, prefix + '.attn.proj', mha(q, k, v, heads))
    h = ln(M, prefix + '.ln2', x, eps)
    return x + linear(M, prefix + '.ffn.fc2', act_fn(act, linear(M, prefix + '.ffn.fc1', h)))


# ---- heads (§2.4, §3.6) ----

def attentive_head(M, tokens):
    eps, heads, act = M.m('jepa.head.ln_eps'), M.m('jepa.head.n_head'), M.m('jepa.head.act')
    x = tokens
    for i in range(M.m('jepa.head.depth')):
        x = vit_block(M, f'head.blk.{i}', x, heads, eps, act)
    D = x.shape[-1]
    q0 = M['head.query'].reshape(1, D)
    kv = linear(M, 'head.xattn.kv', ln(M, 'head.xattn.ln1', x, eps))
    o = mha(linear(M, 'head.xattn.q', q0), kv[:, :D], kv[:, D:], heads)  # no output projection
    y = q0 + o
    y = y + linear(M, 'head.xattn.ffn.fc2', act_fn(act, linear(M, 'head.xattn.ffn.fc1', ln(M, 'head.xattn.ln2', y, eps))))
    return linear(M, 'head.cls', y)[0]


# ---- masked predictors (§3.5, §4.5) ----

def masked_predictor(M, tokens, ctx_ids, tgt_ids, mask_index=1, modality='video', layout=None):
    eps, heads, act = M.m('jepa.pred.ln_eps'), M.m('jepa.pred.n_head'), M.m('jepa.pred.act')
    grid, theta = M.m('jepa.pred.grid_size'), M.m('jepa.pred.rope_theta')
    layout = layout or M.m('jepa.pred.rope_freq_layout')
    c = tokens[np.asarray(ctx_ids)]
    if 'pred.embed_in.weight' in M.t:
        c = act_fn(act, linear(M, 'pred.embed_in', c))
    c = linear(M, 'pred.embed', c)
    mt = M['pred.mask_tokens']
    tgt = np.repeat(mt[mask_index % mt.shape[0]][None, :], len(tgt_ids), 0)
    x = np.concatenate([c, tgt], 0)
    if 'pred.video_mod_embed' in M.t:
        x = x + M['pred.img_mod_embed' if modality == 'image' else 'pred.video_mod_embed']
    ids = np.concatenate([np.asarray(ctx_ids), np.asarray(tgt_ids)])
    order = np.argsort(ids, kind='stable')
    x = x[order]
    rope = rope_factors(ids[order], grid, x.shape[1] // heads, layout, theta)
    for i in range(M.m('jepa.pred.n_layer')):
        x = vit_block(M, f'pred.blk.{i}', x, heads, eps, act, rope)
    x = ln(M, 'pred.norm', x, eps)
    x = x[np.argsort(order, kind='stable')]
    nc = len(ctx_ids)
    out = {'targets': linear(M, 'pred.proj', x[nc:])}
    if 'pred.proj_context.weight' in M.t:
        out['context'] = linear(M, 'pred.proj_context', x[:nc])
    return out


# ---- LeWM (§6.3, §6.4) ----

def lewm_projector(M, cls):
    return linear(M, 'pred.projector.fc2', act_fn(M.m('jepa.pred.proj_act'), linear(M, 'pred.projector.fc1', cls)))


def lewm_predict(M, emb, actions, causal=True):
    """emb [K, T, Dp], actions [K, T, A] -> [K, T, Dp] (row t predicts step t+1)."""
    eps, aeps = M.m('jepa.pred.ln_eps'), M.m('jepa.pred.adaln_eps')
    heads, act = M.m('jepa.pred.n_head'), M.m('jepa.pred.act')
    K, T, Dp = emb.shape
    a = linear(M, 'pred.action.embed', actions)  # the Conv1d(k=1)
    c = linear(M, 'pred.action.fc2', act_fn(M.m('jepa.pred.action_act'), linear(M, 'pred.action.fc1', a)))
    x = emb + M['pred.pos_embed'][:T]
    mask = np.tril(np.ones((T, T), dtype=bool)) if causal else None
    for i in range(M.m('jepa.pred.n_layer')):
        p = f'pred.blk.{i}'
        mod = linear(M, p + '.adaln', act_fn('silu', c))
        sa, ca, ga, sm, cm, gm = (mod[..., j * Dp:(j + 1) * Dp] for j in range(6))
        h = layer_norm(x, aeps) * (1 + ca) + sa
        h = ln(M, p + '.attn_norm', h, eps)
        qkv = h @ M[p + '.attn.qkv.weight'].T
        inner = qkv.shape[-1] // 3
        o = mha(qkv[..., :inner], qkv[..., inner:2 * inner], qkv[..., 2 * inner:], heads, mask)
        x = x + ga * linear(M, p + '.attn.proj', o)
        h = layer_norm(x, aeps) * (1 + cm) + sm
        f = linear(M, p + '.ffn.fc2', act_fn(act, linear(M, p + '.ffn.fc1', ln(M, p + '.ffn_norm', h, eps))))
        x = x + gm * f
    x = ln(M, 'pred.norm', x, eps)
    return linear(M, 'pred.out_proj.fc2', act_fn(M.m('jepa.pred.proj_act'), linear(M, 'pred.out_proj.fc1', x)))


def lewm_rollout(M, initial, actions, history=3):
    """le-wm JEPA.rollout: initial [K, H, Dp], actions [K, T, A] -> [K, T+1, Dp]."""
    H = initial.shape[1]
    emb = initial.copy()
    act = actions[:, :H]
    for t in range(actions.shape[1] - H):
        pred = lewm_predict(M, emb[:, -history:], act[:, -history:])[:, -1:]
        emb = np.concatenate([emb, pred], 1)
        act = np.concatenate([act, actions[:, H + t:H + t + 1]], 1)
    pred = lewm_predict(M, emb[:, -history:], act[:, -history:])[:, -1:]
    return np.concatenate([emb, pred], 1)


def lewm_cost(rolled, goal):
    return ((rolled[:, -1] - goal[None, :]) ** 2).sum(-1)


# ---- output ----

def save(dirname, name, arr, files, dtype=np.float32):
    a = np.ascontiguousarray(np.asarray(arr).astype(dtype))
    np.save(os.path.join(dirname, name + '.npy'), a)
    files[name] = {'shape': list(a.shape), 'dtype': str(a.dtype)}
    return a


def cosines(a, b):
    a, b = a.reshape(-1, a.shape[-1]), b.reshape(-1, b.shape[-1])
    c = (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))
    return {'min': float(c.min()), 'mean': float(c.mean())}


def write_manifest(dirname, case, what, files, extra):
    manifest = {'case': case, 'command': COMMAND, 'model': 'model.gguf', 'reference': what,
                'precision': 'float64, stored float32', 'files': files, **extra}
    with open(os.path.join(dirname, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=2, sort_keys=True)
        f.write('\n')


def case_head(case, seed, n_tokens, what):
    d = os.path.join(ROOT, case)
    M = Model(os.path.join(d, 'model.gguf'))
    D = M.m('jepa.enc.embed_dim')
    rng = np.random.default_rng(seed)
    files = {}
    tokens = save(d, 'tokens', rng.standard_normal((n_tokens, D)), files).astype(np.float64)
    logits = attentive_head(M, tokens)
    save(d, 'logits', logits, files)
    top = [int(i) for i in np.argsort(-logits, kind='stable')]
    write_manifest(d, case, what, files, {'top': top, 'top_labels': [M.m('jepa.head.labels')[i] for i in top],
                                          'head': {k: v for k, v in M.meta.items() if k.startswith('jepa.head.') and k != 'jepa.head.labels'}})


def case_predictor(case, seed, what):
    d = os.path.join(ROOT, case)
    M = Model(os.path.join(d, 'model.gguf'))
    g = M.m('jepa.pred.grid_size')
    slots = 2
    n = slots * g * g
    rng = np.random.default_rng(seed)
    files = {}
    tokens = save(d, 'tokens', rng.standard_normal((n, M.m('jepa.pred.embed_in_dim'))), files).astype(np.float64)
    full = np.arange(n)
    ctx_sub = np.sort(rng.choice(n, 13, replace=False))
    rest = np.setdiff1d(full, ctx_sub)
    tgt_sub = rng.permutation(rest)[:9]  # unsorted on purpose: outputs follow the given target order
    save(d, 'context_ids_sub', ctx_sub, files, np.int64)
    save(d, 'target_ids_sub', tgt_sub, files, np.int64)
    controls = {}
    image = 'pred.video_mod_embed' in M.t
    for tag, c, t, modality in [('full', full, full, 'video'), ('sub', ctx_sub, tgt_sub, 'image' if image else 'video')]:
        out = masked_predictor(M, tokens, c, t, 1, modality)
        save(d, f'targets_{tag}', out['targets'], files)
        if 'context' in out:
            save(d, f'context_{tag}', out['context'], files)
        wrong_mask = masked_predictor(M, tokens, c, t, 0, modality)['targets']
        other = 'interleaved' if M.m('jepa.pred.rope_freq_layout') == 'tiled' else 'tiled'
        wrong_layout = masked_predictor(M, tokens, c, t, 1, modality, other)['targets']
        controls[tag] = {'modality': modality, 'mask_index': 1,
                         'mask_index_0_cosine': cosines(wrong_mask, out['targets']),
                         f'{other}_layout_cosine': cosines(wrong_layout, out['targets'])}
    write_manifest(d, case, what, files, {'grid': [slots, g, g], 'negative_controls': controls,
                                          'pred': {k: v for k, v in M.meta.items() if k.startswith('jepa.pred.')}})


def case_lewm(seed):
    case = 'lewm'
    d = os.path.join(ROOT, case)
    M = Model(os.path.join(d, 'model.gguf'))
    D, Dp, A = M.m('jepa.enc.embed_dim'), M.m('jepa.pred.embed_dim'), M.m('jepa.pred.action_dim')
    hist = M.m('jepa.pred.n_frames')
    rng = np.random.default_rng(seed)
    files = {}
    cls = save(d, 'cls', rng.standard_normal((2, D)), files).astype(np.float64)
    save(d, 'projected', lewm_projector(M, cls), files)

    emb = save(d, 'predict_embs', rng.standard_normal((3, hist, Dp)), files).astype(np.float64)
    act = save(d, 'predict_actions', rng.standard_normal((3, hist, A)), files).astype(np.float64)
    pred = save(d, 'predict_out', lewm_predict(M, emb, act), files)
    unmasked = lewm_predict(M, emb, act, causal=False)

    initial = save(d, 'rollout_initial', rng.standard_normal((1, 1, Dp)), files).astype(np.float64)
    horizon = 5
    ract = save(d, 'rollout_actions', rng.standard_normal((4, horizon, A)), files).astype(np.float64)
    rolled = lewm_rollout(M, np.repeat(initial, 4, 0), ract, hist)
    save(d, 'rollout_out', rolled, files)

    # one CEM iteration (stable_worldmodel CEMSolver) from mean 0 / std 1 with fixed noise
    samples, topk = 8, 3
    goal = save(d, 'cem_goal', rng.standard_normal(Dp), files).astype(np.float64)
    noise = save(d, 'cem_noise', rng.standard_normal((samples, horizon, A)), files).astype(np.float64)
    mean, std = np.zeros((horizon, A)), np.ones((horizon, A))
    cand = noise * std + mean
    cand[0] = mean
    costs = lewm_cost(lewm_rollout(M, np.repeat(initial, samples, 0), cand, hist), goal)
    elite = cand[np.argsort(costs, kind='stable')[:topk]]
    save(d, 'cem_costs', costs, files)
    save(d, 'cem_mean', elite.mean(0), files)
    save(d, 'cem_std', elite.std(0, ddof=1), files)
    write_manifest(d, case, 'LeWM projector, AdaLN-zero causal predictor + pred_proj, le-wm rollout (history 3), CEM step',
                   files, {'history': hist, 'horizon': horizon, 'cem': {'samples': samples, 'topk': topk, 'var_scale': 1.0,
                                                                         'elite': [int(i) for i in np.argsort(costs, kind='stable')[:topk]]},
                           'negative_controls': {'unmasked_predict_cosine': cosines(unmasked, pred.astype(np.float64))},
                           'pred': {k: v for k, v in M.meta.items() if k.startswith('jepa.pred.')}})


def main():
    only = sys.argv[1] if len(sys.argv) > 1 else None
    jobs = {
        'vjepa2_pooler': lambda: case_head('vjepa2_pooler', 31, 24, 'V-JEPA 2 attentive pooler (3 self-attention blocks + cross-attention) + classifier'),
        'vjepa_probe': lambda: case_head('vjepa_probe', 32, 16, 'V-JEPA v1 attentive probe (one cross-attention block) + classifier'),
        'vjepa2_predictor': lambda: case_predictor('vjepa2_predictor', 33, 'V-JEPA 2 masked predictor (tiled RoPE, head_dim 32)'),
        'vjepa2_1_predictor': lambda: case_predictor('vjepa2_1_predictor', 34, 'V-JEPA 2.1 masked predictor (interleaved RoPE, embed_in MLP, modality vectors, proj_context)'),
        'lewm': lambda: case_lewm(35),
    }
    for name, job in jobs.items():
        if only is None or only == name:
            job()
            print(name, 'written')


if __name__ == '__main__':
    main()
