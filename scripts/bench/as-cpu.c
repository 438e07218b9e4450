// LD_PRELOAD shim: the process, and every thread and child it starts, sees a lesser x86 CPU in cpuid
// while running at native speed, so that libraries that choose kernels by cpuid alone (onnxruntime's
// MLAS, ggml's CPU variants, GCC's __builtin_cpu_supports) take their plain-AVX2 or AVX-512 paths.
// It needs the kernel's CPUID faulting (the cpuid_fault flag in /proc/cpuinfo): after
// arch_prctl(ARCH_SET_CPUID, 0) every cpuid traps with SIGSEGV, and the handler answers from a table
// read before faulting was turned on, with the profile's feature bits cleared.
// Node resets every signal's handler at start and V8 then installs its own for SIGSEGV, so sigaction
// is interposed for SIGSEGV: the program's handler is kept aside and called for every other fault.
// AS_CPU=avx2: Haswell / Zen 3 (no AVX-512, no VNNI of any kind, no AMX).
// AS_CPU=avx512: Skylake-SP (AVX-512 F/CD/BW/DQ/VL; no VNNI, BF16, FP16, VBMI or AMX).
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <cpuid.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

enum { EAX, EBX, ECX, EDX };

struct entry {
  unsigned leaf, sub;
  unsigned r[4];
};

static struct entry table[1024];
static int entries;

static int bySubleaf(unsigned leaf) {
  switch (leaf) {
    case 0x4: case 0x7: case 0xb: case 0xd: case 0xf: case 0x10: case 0x12: case 0x14: case 0x17: case 0x18:
    case 0x1d: case 0x1e: case 0x1f: case 0x20: case 0x23: case 0x24: case 0x8000001d: case 0x80000020:
      return 1;
    default:
      return 0;
  }
}

static void clear(unsigned* r, int reg, const int* bits) {
  for (; *bits >= 0; ++bits) r[reg] &= ~(1u << *bits);
}

static void lessen(unsigned leaf, unsigned sub, unsigned* r, int avx2) {
  // leaf 7.0 EBX: AVX512F 16, DQ 17, IFMA 21, PF 26, ER 27, CD 28, BW 30, VL 31
  static const int avx512Base[] = {16, 17, 28, 30, 31, -1};
  static const int avx512More7b[] = {21, 26, 27, -1};
  // leaf 7.0 ECX: VBMI 1, VBMI2 6, GFNI 8, VAES 9, VPCLMULQDQ 10, VNNI 11, BITALG 12, VPOPCNTDQ 14
  static const int avx512More7c[] = {1, 6, 8, 9, 10, 11, 12, 14, -1};
  // leaf 7.0 EDX: 4VNNIW 2, 4FMAPS 3, VP2INTERSECT 8, AMX-BF16 22, FP16 23, AMX-TILE 24, AMX-INT8 25
  static const int avx512More7d[] = {2, 3, 8, 22, 23, 24, 25, -1};
  // leaf 7.1 EAX: AVX-VNNI 4, AVX512-BF16 5, AMX-FP16 21, AVX-IFMA 23; EDX: AVX-VNNI-INT8 4,
  // AVX-NE-CONVERT 5, AMX-COMPLEX 8, AVX-VNNI-INT16 10, AVX10 19
  static const int more71a[] = {4, 5, 21, 23, -1};
  static const int more71d[] = {4, 5, 8, 10, 19, -1};
  if (leaf == 7 && sub == 0) {
    if (avx2) clear(r, EBX, avx512Base);
    clear(r, EBX, avx512More7b);
    clear(r, ECX, avx512More7c);
    clear(r, EDX, avx512More7d);
  }
  if (leaf == 7 && sub == 1) {
    clear(r, EAX, more71a);
    clear(r, EDX, more71d);
  }
  if (leaf == 0x1d || leaf == 0x1e || leaf == 0x24) memset(r, 0, 4 * sizeof *r);
}

static void record(unsigned leaf, unsigned sub, int avx2) {
  if (entries == (int)(sizeof table / sizeof *table)) return;
  struct entry* e = &table[entries++];
  e->leaf = leaf;
  e->sub = sub;
  __cpuid_count(leaf, sub, e->r[EAX], e->r[EBX], e->r[ECX], e->r[EDX]);
  lessen(leaf, sub, e->r, avx2);
}

typedef int (*sigaction_fn)(int, const struct sigaction*, struct sigaction*);
static sigaction_fn real_sigaction;
static int faulting;
static struct sigaction program_segv;  // what the program set for SIGSEGV: SIG_DFL until it sets one

int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  if (!real_sigaction) real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
  if (sig != SIGSEGV || !faulting) return real_sigaction(sig, act, old);
  if (old) *old = program_segv;
  if (act) program_segv = *act;
  return 0;
}

static void on_segv(int sig, siginfo_t* info, void* context) {
  ucontext_t* uc = context;
  greg_t* g = uc->uc_mcontext.gregs;
  const unsigned char* ip = (const unsigned char*)g[REG_RIP];
  if (info->si_code != SI_KERNEL || ip[0] != 0x0f || ip[1] != 0xa2) {
    if (program_segv.sa_flags & SA_SIGINFO) {
      program_segv.sa_sigaction(sig, info, context);
    } else if (program_segv.sa_handler != SIG_DFL && program_segv.sa_handler != SIG_IGN) {
      program_segv.sa_handler(sig);
    } else {
      struct sigaction dfl;
      memset(&dfl, 0, sizeof dfl);
      dfl.sa_handler = SIG_DFL;
      real_sigaction(sig, &dfl, NULL);  // the fault happens again, unhandled
    }
    return;
  }
  const unsigned leaf = (unsigned)g[REG_RAX], sub = (unsigned)g[REG_RCX];
  unsigned r[4] = {0, 0, 0, 0};
  for (int i = 0; i < entries; ++i)
    if (table[i].leaf == leaf && (!bySubleaf(leaf) || table[i].sub == sub)) {
      memcpy(r, table[i].r, sizeof r);
      break;
    }
  g[REG_RAX] = r[EAX];
  g[REG_RBX] = r[EBX];
  g[REG_RCX] = r[ECX];
  g[REG_RDX] = r[EDX];
  g[REG_RIP] += 2;
}

__attribute__((constructor)) static void as_cpu(void) {
  const char* profile = getenv("AS_CPU");
  if (!profile || !*profile) return;
  const int avx2 = strcmp(profile, "avx2") == 0;
  if (!avx2 && strcmp(profile, "avx512") != 0) {
    fprintf(stderr, "as-cpu: AS_CPU=%s is not avx2 or avx512\n", profile);
    _exit(2);
  }
  unsigned a, b, c, d;
  __cpuid(0, a, b, c, d);
  for (unsigned leaf = 0; leaf <= a; ++leaf)
    for (unsigned sub = 0; sub < (bySubleaf(leaf) ? 64u : 1u); ++sub) record(leaf, sub, avx2);
  __cpuid(0x80000000, a, b, c, d);
  for (unsigned leaf = 0x80000000; leaf <= a; ++leaf)
    for (unsigned sub = 0; sub < (bySubleaf(leaf) ? 16u : 1u); ++sub) record(leaf, sub, avx2);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
  real_sigaction(SIGSEGV, &sa, NULL);
  program_segv.sa_handler = SIG_DFL;
  faulting = 1;
  if (syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0) != 0) {
    perror("as-cpu: arch_prctl(ARCH_SET_CPUID) (no cpuid_fault on this CPU?)");
    _exit(2);
  }
}
