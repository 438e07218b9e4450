"""A torch-zip-shaped deflate bomb for measuring jepa convert: archive/data.pkl deflated from GIB GiB of
zeros (declared honestly, or as DECLARED_BYTES), plus archive/version. docs/hardening.md, "the deflate bomb".
usage: python3 packages/convert/scripts/make_zip_bomb.py OUT GIB [DECLARED_BYTES]"""
import struct, sys, zlib
out, gib = sys.argv[1], float(sys.argv[2])
total = int(gib * 2**30)
declared = int(sys.argv[3]) if len(sys.argv) > 3 else total
co = zlib.compressobj(9, zlib.DEFLATED, -15)
chunk = bytes(64 * 2**20)
body = bytearray(); crc = 0; left = total
while left:
    n = min(left, len(chunk)); piece = chunk[:n]
    body += co.compress(piece); crc = zlib.crc32(piece, crc); left -= n
body += co.flush()
entries = [('archive/data.pkl', bytes(body), 8, crc, declared), ('archive/version', b'3\n', 0, zlib.crc32(b'3\n'), 2)]
parts = []; central = []; at = 0
for name, data, method, c, usize in entries:
    nb = name.encode()
    local = struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0x800, method, 0, 0, c, len(data), usize, len(nb), 0)
    central.append(struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0x800, method, 0, 0, c, len(data), usize, len(nb), 0, 0, 0, 0, 0, at) + nb)
    parts += [local, nb, data]; at += len(local) + len(nb) + len(data)
cd = b''.join(central)
end = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, len(entries), len(entries), len(cd), at, 0)
open(out, 'wb').write(b''.join(parts) + cd + end)
print(out, 'compressed', len(body), 'declared', declared)
