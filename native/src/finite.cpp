// Finding non-finite values in stored weights: a generic scan of typed bytes, no model knowledge.
// Float types are read value by value; quantized types by the f16 / f32 scales of their blocks (the
// quants themselves are integers, always finite), at the offsets ggml-common.h lays them out.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <limits>
#include <thread>

#define GGML_COMMON_DECL_CPP
#include "../../ggml/src/ggml-common.h"
#include "wrappers.h"

namespace jepa {

namespace {

// Where the float values of one type lie: `count` values of `width` bytes (2: f16 or bf16 by
// `bf16`; 4: f32; 8: f64) at `offset` of each block of `blockBytes` bytes covering `blockElems` elements.
struct Layout {
  size_t blockBytes = 0;
  int64_t blockElems = 0;
  size_t offset = 0;
  int count = 0;
  int width = 0;
  bool bf16 = false;
};

template <typename Block>
Layout scales(ggml_type type, size_t offset, int count, int width = 2) {
  Layout l{sizeof(Block), ggml_blck_size(type), offset, count, width, false};
  // The struct and ggml's traits must agree, or the offsets mean nothing: then the type is not scanned.
  if (ggml_type_size(type) != sizeof(Block)) l.width = 0;
  return l;
}

// The layout of `type`, or width 0 for a type whose values are always finite or not known here.
Layout layoutOf(ggml_type type) {
  switch (type) {
    case GGML_TYPE_F32: return {4, 1, 0, 1, 4, false};
    case GGML_TYPE_F64: return {8, 1, 0, 1, 8, false};
    case GGML_TYPE_F16: return {2, 1, 0, 1, 2, false};
    case GGML_TYPE_BF16: return {2, 1, 0, 1, 2, true};
    case GGML_TYPE_Q4_0: return scales<block_q4_0>(type, offsetof(block_q4_0, d), 1);
    case GGML_TYPE_Q4_1: return scales<block_q4_1>(type, 0, 2);  // d, m
    case GGML_TYPE_Q5_0: return scales<block_q5_0>(type, offsetof(block_q5_0, d), 1);
    case GGML_TYPE_Q5_1: return scales<block_q5_1>(type, 0, 2);  // d, m
    case GGML_TYPE_Q8_0: return scales<block_q8_0>(type, offsetof(block_q8_0, d), 1);
    case GGML_TYPE_Q8_1: return scales<block_q8_1>(type, 0, 2);  // d, s
    case GGML_TYPE_Q2_K: return scales<block_q2_K>(type, offsetof(block_q2_K, GGML_COMMON_AGGR_U), 2);  // d, dmin
    case GGML_TYPE_Q3_K: return scales<block_q3_K>(type, offsetof(block_q3_K, d), 1);
    case GGML_TYPE_Q4_K: return scales<block_q4_K>(type, offsetof(block_q4_K, GGML_COMMON_AGGR_U), 2);  // d, dmin
    case GGML_TYPE_Q5_K: return scales<block_q5_K>(type, offsetof(block_q5_K, GGML_COMMON_AGGR_U), 2);  // d, dmin
    case GGML_TYPE_Q6_K: return scales<block_q6_K>(type, offsetof(block_q6_K, d), 1);
    case GGML_TYPE_Q8_K: return scales<block_q8_K>(type, offsetof(block_q8_K, d), 1, 4);
    case GGML_TYPE_IQ2_XXS: return scales<block_iq2_xxs>(type, offsetof(block_iq2_xxs, d), 1);
    case GGML_TYPE_IQ2_XS: return scales<block_iq2_xs>(type, offsetof(block_iq2_xs, d), 1);
    case GGML_TYPE_IQ2_S: return scales<block_iq2_s>(type, offsetof(block_iq2_s, d), 1);
    case GGML_TYPE_IQ3_XXS: return scales<block_iq3_xxs>(type, offsetof(block_iq3_xxs, d), 1);
    case GGML_TYPE_IQ3_S: return scales<block_iq3_s>(type, offsetof(block_iq3_s, d), 1);
    case GGML_TYPE_IQ1_S: return scales<block_iq1_s>(type, offsetof(block_iq1_s, d), 1);
    case GGML_TYPE_IQ4_NL: return scales<block_iq4_nl>(type, offsetof(block_iq4_nl, d), 1);
    case GGML_TYPE_IQ4_XS: return scales<block_iq4_xs>(type, offsetof(block_iq4_xs, d), 1);
    case GGML_TYPE_TQ1_0: return scales<block_tq1_0>(type, offsetof(block_tq1_0, d), 1);
    case GGML_TYPE_TQ2_0: return scales<block_tq2_0>(type, offsetof(block_tq2_0, d), 1);
    case GGML_TYPE_Q1_0: return scales<block_q1_0>(type, offsetof(block_q1_0, d), 1);
    case GGML_TYPE_Q2_0: return scales<block_q2_0>(type, offsetof(block_q2_0, d), 1);
    default: return {};
  }
}

// 0: finite; 1: NaN; 2: Inf.
inline int classify(const uint8_t* p, const Layout& l) {
  if (l.width == 4) {
    uint32_t x;
    std::memcpy(&x, p, 4);
    if ((x & 0x7f800000u) != 0x7f800000u) return 0;
    return (x & 0x007fffffu) ? 1 : 2;
  }
  if (l.width == 8) {
    uint64_t x;
    std::memcpy(&x, p, 8);
    if ((x & 0x7ff0000000000000ull) != 0x7ff0000000000000ull) return 0;
    return (x & 0x000fffffffffffffull) ? 1 : 2;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  if (l.bf16) {
    if ((h & 0x7f80u) != 0x7f80u) return 0;
    return (h & 0x007fu) ? 1 : 2;
  }
  if ((h & 0x7c00u) != 0x7c00u) return 0;
  return (h & 0x03ffu) ? 1 : 2;
}

// Whether any value of blocks [first, end) is non-finite: a branch-free pass the compiler vectorizes
// for the plain float types, one scale (or two) per block for the quantized ones.
bool anyBad(const uint8_t* base, const Layout& l, int64_t first, int64_t end) {
  const uint8_t* p = base + static_cast<size_t>(first) * l.blockBytes;
  const int64_t n = end - first;
  if (l.blockElems == 1 && l.width == 4) {
    const uint32_t* v = reinterpret_cast<const uint32_t*>(p);
    uint32_t acc = 0;
    for (int64_t i = 0; i < n; ++i) acc |= static_cast<uint32_t>((v[i] & 0x7f800000u) == 0x7f800000u);
    return acc != 0;
  }
  if (l.blockElems == 1 && l.width == 2) {
    const uint16_t* v = reinterpret_cast<const uint16_t*>(p);
    const uint16_t mask = l.bf16 ? 0x7f80u : 0x7c00u;
    uint16_t acc = 0;
    for (int64_t i = 0; i < n; ++i) acc |= static_cast<uint16_t>((v[i] & mask) == mask);
    return acc != 0;
  }
  int acc = 0;
  for (int64_t b = 0; b < n; ++b)
    for (int k = 0; k < l.count; ++k) acc |= classify(p + static_cast<size_t>(b) * l.blockBytes + l.offset + static_cast<size_t>(k * l.width), l);
  return acc != 0;
}

struct Job {
  const uint8_t* base = nullptr;
  Layout layout;
  int64_t blocks = 0;
  bool scanned = false;
  std::atomic<int64_t> firstBadBlock{std::numeric_limits<int64_t>::max()};
  int64_t element = -1;  // first non-finite element (of its block, for a scale)
  int kind = 0;          // 1 NaN, 2 Inf
};

constexpr int64_t kChunkBytes = 1 << 20;

// Maps a chunk's pages in with one call (MADV_POPULATE_READ, Linux 5.14) rather than a fault per
// page: on a fresh mapping the faults, not the reading, are most of the scan's time. Best effort.
void populate(const uint8_t* p, size_t n) {
#ifdef MADV_POPULATE_READ
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t start = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
  madvise(reinterpret_cast<void*>(start), reinterpret_cast<uintptr_t>(p) + n - start, MADV_POPULATE_READ);
#else
  (void)p;
  (void)n;
#endif
}

// Scans every job, chunk by chunk across `threads` threads; a chunk after a known bad block of its
// tensor is skipped. Afterwards each bad job knows its first bad block exactly.
void scanAll(std::vector<Job>& jobs, int threads) {
  struct Chunk {
    Job* job;
    int64_t first, end;
  };
  std::vector<Chunk> chunks;
  for (Job& j : jobs) {
    if (!j.scanned) continue;
    const int64_t per = std::max<int64_t>(1, kChunkBytes / static_cast<int64_t>(j.layout.blockBytes));
    for (int64_t b = 0; b < j.blocks; b += per) chunks.push_back({&j, b, std::min(j.blocks, b + per)});
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t c; (c = next.fetch_add(1)) < chunks.size();) {
      Chunk& ch = chunks[c];
      Job& j = *ch.job;
      if (ch.first >= j.firstBadBlock.load(std::memory_order_relaxed)) continue;
      populate(j.base + static_cast<size_t>(ch.first) * j.layout.blockBytes, static_cast<size_t>(ch.end - ch.first) * j.layout.blockBytes);
      if (!anyBad(j.base, j.layout, ch.first, ch.end)) continue;
      for (int64_t b = ch.first; b < ch.end; ++b) {
        bool bad = false;
        for (int k = 0; k < j.layout.count && !bad; ++k)
          bad = classify(j.base + static_cast<size_t>(b) * j.layout.blockBytes + j.layout.offset + static_cast<size_t>(k * j.layout.width), j.layout) != 0;
        if (!bad) continue;
        int64_t seen = j.firstBadBlock.load();
        while (b < seen && !j.firstBadBlock.compare_exchange_weak(seen, b)) {
        }
        break;
      }
    }
  };
  const int n = std::max(1, std::min<int>(threads, static_cast<int>(chunks.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  for (Job& j : jobs) {
    const int64_t b = j.firstBadBlock.load();
    if (b == std::numeric_limits<int64_t>::max()) continue;
    const uint8_t* block = j.base + static_cast<size_t>(b) * j.layout.blockBytes + j.layout.offset;
    for (int k = 0; k < j.layout.count && !j.kind; ++k) j.kind = classify(block + static_cast<size_t>(k * j.layout.width), j.layout);
    j.element = b * j.layout.blockElems;
  }
}

}  // namespace

// findNonFinite(mapping, [{offset, nbytes, type}], threads) -> Promise<result[]>, one per entry:
// {status: 'finite'} | {status: 'unchecked'} (a type without float values or scales known here) |
// {status: 'nan' | 'inf', element, inScale}. `element` is the first non-finite value's index, or for
// a quantized type the first element of the block whose scale is non-finite.
Napi::Value findNonFinite(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsObject() || !info[0].As<Napi::Object>().InstanceOf(addonData(env).mappingCtor.Value()))
    fail(env, "BAD_ARGUMENT", "findNonFinite needs a Mapping");
  auto m = Mapping::Unwrap(info[0].As<Napi::Object>())->res(env);
  if (!info[1].IsArray()) fail(env, "BAD_ARGUMENT", "findNonFinite needs an array of {offset, nbytes, type}");
  int64_t threads = info.Length() > 2 && !info[2].IsUndefined() ? argInt(info, 2, "threads") : 1;
  if (threads < 1 || threads > 512) fail(env, "BAD_ARGUMENT", "threads must be 1..512");
  Napi::Array list = info[1].As<Napi::Array>();
  auto jobs = std::make_shared<std::vector<Job>>(list.Length());
  for (uint32_t i = 0; i < list.Length(); ++i) {
    Napi::Value v = list.Get(i);
    if (!v.IsObject()) fail(env, "BAD_ARGUMENT", "entry " + std::to_string(i) + " is not {offset, nbytes, type}");
    Napi::Object o = v.As<Napi::Object>();
    auto num = [&](const char* key) {
      Napi::Value x = o.Get(key);
      double d = x.IsNumber() ? x.As<Napi::Number>().DoubleValue() : -1;
      if (!(d >= 0 && d <= 9007199254740991.0) || d != static_cast<double>(static_cast<int64_t>(d)))
        fail(env, "BAD_ARGUMENT", "entry " + std::to_string(i) + "." + key + " must be a non-negative integer");
      return static_cast<int64_t>(d);
    };
    const int64_t offset = num("offset"), nbytes = num("nbytes"), type = num("type");
    if (type >= GGML_TYPE_COUNT) fail(env, "BAD_TYPE", "unknown ggml type " + std::to_string(type));
    if (static_cast<uint64_t>(offset) > m->length || static_cast<uint64_t>(nbytes) > m->length - static_cast<uint64_t>(offset))
      fail(env, "OUT_OF_RANGE", "bytes [" + std::to_string(offset) + ", +" + std::to_string(nbytes) + ") are outside " + m->path);
    Job& j = (*jobs)[i];
    j.layout = layoutOf(static_cast<ggml_type>(type));
    j.base = static_cast<const uint8_t*>(m->addr) + offset;
    if (j.layout.width == 0) continue;
    if (nbytes % static_cast<int64_t>(j.layout.blockBytes) != 0)
      fail(env, "BAD_SHAPE", "entry " + std::to_string(i) + ": " + std::to_string(nbytes) + " bytes are not whole " +
                                 ggml_type_name(static_cast<ggml_type>(type)) + " blocks");
    j.blocks = nbytes / static_cast<int64_t>(j.layout.blockBytes);
    j.scanned = true;
  }
  auto* worker = new PromiseWorker(
      env, [jobs, m, threads](PromiseWorker&) { scanAll(*jobs, static_cast<int>(threads)); },
      [jobs, m](Napi::Env e) -> Napi::Value {
        Napi::Array out = Napi::Array::New(e, jobs->size());
        for (size_t i = 0; i < jobs->size(); ++i) {
          const Job& j = (*jobs)[i];
          Napi::Object r = Napi::Object::New(e);
          if (!j.scanned) {
            r.Set("status", "unchecked");
          } else if (!j.kind) {
            r.Set("status", "finite");
          } else {
            r.Set("status", j.kind == 1 ? "nan" : "inf");
            r.Set("element", static_cast<double>(j.element));
            r.Set("inScale", j.layout.blockElems > 1);
          }
          out.Set(static_cast<uint32_t>(i), r);
        }
        return out;
      });
  Napi::Promise p = worker->promise();
  worker->Queue();
  return p;
}

}  // namespace jepa
