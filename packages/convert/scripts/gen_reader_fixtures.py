#!/usr/bin/python3
"""Generates fixtures/convert/ for the @jepa/convert readers.

Run with Debian's interpreter (python3-torch 1.13, python3-numpy):
    /usr/bin/python3 packages/convert/scripts/gen_reader_fixtures.py

Every tensor the TypeScript readers must reproduce is recorded in manifest.json as the
hex of its contiguous little-endian bytes (`hex`) and of its float32 conversion by torch
(`f32hex`), so the test suite compares bit for bit and never needs Python.
"""
import collections
import io
import json
import os
import pickle
import struct
import zipfile
from pathlib import Path

import numpy as np
import torch

OUT = Path(__file__).resolve().parents[3] / 'fixtures' / 'convert'

DTYPE_NAMES = {
    torch.float32: 'f32', torch.float16: 'f16', torch.bfloat16: 'bf16', torch.float64: 'f64',
    torch.int64: 'i64', torch.int32: 'i32', torch.int16: 'i16', torch.int8: 'i8',
    torch.uint8: 'u8', torch.bool: 'bool',
}
SAFETENSORS_DTYPES = {'f32': 'F32', 'f16': 'F16', 'bf16': 'BF16', 'i64': 'I64', 'f64': 'F64',
                      'i32': 'I32', 'i16': 'I16', 'i8': 'I8', 'u8': 'U8', 'bool': 'BOOL'}


def raw_bytes(t):
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def describe(t):
    entry = {
        'dtype': DTYPE_NAMES[t.dtype],
        'shape': list(t.shape),
        'strides': list(t.stride()),
        'storageOffset': t.storage_offset(),
        'hex': raw_bytes(t).hex(),
    }
    entry['f32hex'] = t.detach().to(torch.float32).contiguous().numpy().tobytes().hex()
    return entry


def flatten(obj, prefix, out):
    """Same naming as the TypeScript flattener: dict keys and list indices joined by dots."""
    if isinstance(obj, torch.Tensor):
        out[prefix] = describe(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            flatten(v, f'{prefix}.{k}' if prefix else str(k), out)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            flatten(v, f'{prefix}.{i}' if prefix else str(i), out)
    return out


def seeded(seed, *shape, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)


def encoder_state(seed, prefix):
    base = seeded(seed + 1, 6, 4)
    shared = seeded(seed + 2, 10)
    sd = collections.OrderedDict()
    sd[prefix + 'patch_embed.proj.weight'] = torch.nn.Parameter(seeded(seed, 4, 3, 2, 2))
    sd[prefix + 'patch_embed.proj.bias'] = torch.nn.Parameter(seeded(seed + 3, 4))
    # A transposed view saved as-is: strides (1, 4), not C order.
    sd[prefix + 'blocks.0.attn.qkv.weight'] = base.t()
    # Two slices sharing one storage: the second starts at element offset 3.
    sd[prefix + 'blocks.0.norm1.weight'] = shared[:3]
    sd[prefix + 'blocks.0.norm1.bias'] = shared[3:10:2]
    sd[prefix + 'pos_embed'] = seeded(seed + 4, 1, 5, 4).to(torch.float16)
    sd[prefix + 'blocks.0.mlp.fc1.weight'] = seeded(seed + 5, 3, 4).to(torch.bfloat16)
    sd[prefix + 'position_ids'] = torch.arange(5, dtype=torch.int64).view(1, 5) - 2
    sd[prefix + 'cls_token'] = seeded(seed + 6, 1, 1, 4).permute(2, 0, 1)  # non-contiguous 3-d view
    return sd


def nested_checkpoint():
    encoder = encoder_state(100, 'module.')
    target = encoder_state(200, 'module.')
    opt_state = {0: {'step': 10, 'exp_avg': seeded(7, 4), 'exp_avg_sq': seeded(8, 4).abs()}}
    return {
        'encoder': encoder,
        'predictor': collections.OrderedDict([('module.predictor_embed.weight', seeded(9, 2, 4))]),
        'target_encoder': target,
        'opt': {'state': opt_state,
                'param_groups': [{'lr': 1e-3, 'betas': (0.9, 0.999), 'weight_decay': 0.04,
                                  'params': [0, 1], 'nesterov': False, 'name': None}]},
        'scaler': None,
        'epoch': 7,
        'loss': 0.25,
        'batch_size': 2048,
        'huge': 2 ** 70,
        'negative': -123456789,
        'numpy': {'f8': np.float64(0.125), 'f4': np.float32(0.1), 'i8': np.int64(-5), 'u1': np.uint8(200),
                  'b1': np.bool_(True), 'f2': np.float16(1.5)},
        'config': {'model_name': 'vit_tiny', 'flags': [True, False, None], 'ratio': (1.5, -2.0)},
        'extra_dtypes': {
            'f64': seeded(10, 3).to(torch.float64),
            'i32': torch.tensor([1, -2, 2147483647], dtype=torch.int32),
            'i16': torch.tensor([-32768, 5], dtype=torch.int16),
            'i8': torch.tensor([-128, 127, 0], dtype=torch.int8),
            'u8': torch.tensor([0, 200, 255], dtype=torch.uint8),
            'bool': torch.tensor([True, False, True]),
            'scalar': torch.tensor(3.5),
            'empty': torch.zeros(0, 3),
        },
    }


def probe_checkpoint():
    pooler = collections.OrderedDict()
    pooler['module.pooler.query_tokens'] = seeded(300, 1, 1, 4)
    pooler['module.linear.weight'] = seeded(301, 3, 4).t().contiguous().t()  # transposed twice: strided
    pooler['module.linear.bias'] = seeded(302, 3).to(torch.float16)
    encoder = collections.OrderedDict()
    encoder['module.backbone.patch_embed.proj.weight'] = seeded(303, 4, 3, 2, 2)
    encoder['module.backbone.norm.weight'] = seeded(304, 4)
    return {'classifiers': [pooler], 'encoder': encoder, 'epoch': 3, 'best_acc': np.float64(0.75)}


def malicious_pickle():
    class Evil:
        def __reduce__(self):
            return (os.system, ('echo pwned',))
    return pickle.dumps({'state_dict': {'w': 1}, 'payload': Evil()}, protocol=2)


class StorageRef:
    def __init__(self, numel):
        self.numel = numel


class TensorOnStorage:
    """Pickles as torch does (_rebuild_tensor_v2 over a persistent storage id), with any geometry."""
    def __init__(self, storage, offset, size, stride):
        self.args = (storage, offset, size, stride, False, collections.OrderedDict())

    def __reduce__(self):
        return (torch._utils._rebuild_tensor_v2, self.args)


class StoragePickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, StorageRef):
            return ('storage', torch.FloatStorage, '0', 'cpu', obj.numel)
        return None


def forged_tensor_pickle(numel, offset, size, stride):
    buf = io.BytesIO()
    StoragePickler(buf, protocol=2).dump({'w': TensorOnStorage(StorageRef(numel), offset, size, stride)})
    return buf.getvalue()


def repack(src, dst, *, compression=zipfile.ZIP_STORED, drop=None, replace=None):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, 'w', compression) as zout:
        for info in zin.infolist():
            if drop is not None and info.filename.endswith(drop):
                continue
            data = zin.read(info.filename)
            if replace is not None and info.filename.endswith(replace[0]):
                data = replace[1]
            entry = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            entry.compress_type = compression
            zout.writestr(entry, data)


def torch_zip_with_pickle(path, data_pkl):
    buf = io.BytesIO()
    torch.save({'w': torch.zeros(2)}, buf)
    tmp = path.with_suffix('.tmp')
    tmp.write_bytes(buf.getvalue())
    repack(tmp, path, replace=('/data.pkl', data_pkl))
    tmp.unlink()


def write_safetensors(path, tensors, metadata=None, header_override=None):
    header = {}
    if metadata is not None:
        header['__metadata__'] = metadata
    offset = 0
    blobs = []
    for name, t in tensors.items():
        data = raw_bytes(t)
        dtype = SAFETENSORS_DTYPES[DTYPE_NAMES[t.dtype]]
        header[name] = {'dtype': dtype, 'shape': list(t.shape), 'data_offsets': [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if header_override is not None:
        header_override(header)
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * (-len(text) % 8)
    path.write_bytes(struct.pack('<Q', len(text)) + text + b''.join(blobs))


def safetensors_model(seed):
    return collections.OrderedDict([
        ('embeddings.patch_embeddings.projection.weight', seeded(seed, 4, 3, 2, 2)),
        ('embeddings.position_embeddings', seeded(seed + 1, 1, 5, 4).to(torch.float16)),
        ('encoder.layer.0.attention.query.weight', seeded(seed + 2, 4, 4).to(torch.bfloat16)),
        ('embeddings.position_ids', torch.arange(5, dtype=torch.int64).view(1, 5)),
        ('encoder.layer.0.layernorm.bias', seeded(seed + 3, 4).to(torch.float64)),
        ('encoder.layer.0.mask', torch.tensor([True, False, True])),
    ])


def main():
    torch.manual_seed(0)
    (OUT / 'torch').mkdir(parents=True, exist_ok=True)
    (OUT / 'safetensors' / 'sharded').mkdir(parents=True, exist_ok=True)
    manifest = {'torch': {}, 'safetensors': {}}

    nested = nested_checkpoint()
    torch.save(nested, OUT / 'torch' / 'nested.pt')
    manifest['torch']['nested.pt'] = flatten(nested, '', {})
    manifest['scalars'] = {'epoch': 7, 'loss': 0.25, 'batch_size': 2048, 'huge': str(2 ** 70),
                           'negative': -123456789}

    probe = probe_checkpoint()
    torch.save(probe, OUT / 'torch' / 'probe-protocol4.pth.tar', pickle_protocol=4)
    manifest['torch']['probe-protocol4.pth.tar'] = flatten(probe, '', {})

    repack(OUT / 'torch' / 'nested.pt', OUT / 'torch' / 'deflated.pt', compression=zipfile.ZIP_DEFLATED)
    manifest['torch']['deflated.pt'] = manifest['torch']['nested.pt']

    # Python's zipfile switches to ZIP64 records above ZIP64_LIMIT; lowering it forces
    # ZIP64 extra fields and the ZIP64 end of central directory on a small file.
    saved_limit = zipfile.ZIP64_LIMIT
    zipfile.ZIP64_LIMIT = 64
    try:
        repack(OUT / 'torch' / 'probe-protocol4.pth.tar', OUT / 'torch' / 'zip64.pt')
    finally:
        zipfile.ZIP64_LIMIT = saved_limit
    manifest['torch']['zip64.pt'] = manifest['torch']['probe-protocol4.pth.tar']

    repack(OUT / 'torch' / 'probe-protocol4.pth.tar', OUT / 'torch' / 'missing-storage.pt', drop='/data/1')
    torch_zip_with_pickle(OUT / 'torch' / 'malicious.pt', malicious_pickle())
    # torch_zip_with_pickle's record '0' holds two float32 elements.
    torch_zip_with_pickle(OUT / 'torch' / 'forged-ok.pt', forged_tensor_pickle(2, 1, (1,), (1,)))
    torch_zip_with_pickle(OUT / 'torch' / 'tensor-out-of-storage.pt', forged_tensor_pickle(2, 0, (2, 2), (1, 1)))
    torch_zip_with_pickle(OUT / 'torch' / 'storage-size-mismatch.pt', forged_tensor_pickle(5, 0, (2,), (1,)))
    torch.save({'w': torch.ones(3)}, OUT / 'torch' / 'legacy.pt', _use_new_zipfile_serialization=False)

    single = safetensors_model(500)
    write_safetensors(OUT / 'safetensors' / 'model.safetensors', single, metadata={'format': 'pt', 'note': 'jepa'})
    manifest['safetensors']['model.safetensors'] = flatten(single, '', {})

    shard_a = safetensors_model(600)
    shard_b = collections.OrderedDict([
        ('encoder.layer.1.attention.query.weight', seeded(700, 4, 4)),
        ('layernorm.weight', seeded(701, 4).to(torch.bfloat16)),
    ])
    write_safetensors(OUT / 'safetensors' / 'sharded' / 'model-00001-of-00002.safetensors', shard_a)
    write_safetensors(OUT / 'safetensors' / 'sharded' / 'model-00002-of-00002.safetensors', shard_b)
    weight_map = {name: 'model-00001-of-00002.safetensors' for name in shard_a}
    weight_map.update({name: 'model-00002-of-00002.safetensors' for name in shard_b})
    index = {'metadata': {'total_size': sum(len(raw_bytes(t)) for t in {**shard_a, **shard_b}.values())},
             'weight_map': weight_map}
    (OUT / 'safetensors' / 'sharded' / 'model.safetensors.index.json').write_text(json.dumps(index, indent=2))
    manifest['safetensors']['sharded'] = flatten({**shard_a, **shard_b}, '', {})

    full = (OUT / 'safetensors' / 'model.safetensors').read_bytes()
    (OUT / 'safetensors' / 'truncated.safetensors').write_bytes(full[:len(full) - 7])

    def lie_beyond(header):
        header['encoder.layer.0.mask']['data_offsets'] = [10_000, 10_003]
    write_safetensors(OUT / 'safetensors' / 'offsets-beyond-data.safetensors', single, header_override=lie_beyond)

    def lie_overlap(header):
        header['embeddings.position_embeddings']['data_offsets'] = [8, 48]
    write_safetensors(OUT / 'safetensors' / 'offsets-overlap.safetensors', single, header_override=lie_overlap)

    (OUT / 'manifest.json').write_text(json.dumps(manifest, indent=1, sort_keys=True) + '\n')
    total = sum(p.stat().st_size for p in OUT.rglob('*') if p.is_file())
    print(f'wrote {OUT} ({total} bytes)')


if __name__ == '__main__':
    main()
