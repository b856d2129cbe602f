// BF16 / FP16 conversions of the emulation against an independent reference
// (test/Runtime/Inputs/gen_rounding.py) and exhaustive bf16 round trips.
#include <pto/pto-inst.hpp>

#include <cstdio>
#include <string>

using namespace pto;
using pto::sim::bf16_bits_to_f32;
using pto::sim::f32_to_bf16_bits;
using pto::sim::f32_to_f16_bits;

static_assert(!std::is_same_v<bfloat16_t, half>,
              "bfloat16_t must not be IEEE half");
static_assert(sizeof(bfloat16_t) == 2);

static int roundtrip() {
  int bad = 0;
  for (uint32_t b = 0; b < 65536; ++b) {
    float f = bf16_bits_to_f32(uint16_t(b));
    uint32_t u = pto::sim::bitcast<uint32_t>(f);
    if (u != b << 16) {
      if (bad++ < 10)
        std::fprintf(stderr, "bf16 %04x -> f32 %08x\n", b, u);
      continue;
    }
    bool nan = (b & 0x7fff) > 0x7f80;
    for (int m = 0; m < 7; ++m) {
      uint16_t back = f32_to_bf16_bits(f, RoundMode(m));
      uint16_t want = nan ? uint16_t(b | 0x40) : uint16_t(b);
      if (back != want && bad++ < 10)
        std::fprintf(stderr,
                     "bf16 %04x -> f32 -> bf16 (%s) = %04x, want %04x\n", b,
                     pto::sim::round_name(RoundMode(m)), back, want);
    }
    // the bfloat16_t type converts the same way
    bfloat16_t t = bfloat16_t::from_bits(uint16_t(b));
    if (!nan && bfloat16_t(float(t)).value != b && bad++ < 10)
      std::fprintf(stderr, "bfloat16_t %04x\n", b);
  }
  std::printf("roundtrip: %d mismatches\n", bad);
  return bad != 0;
}

static int check(const char *path) {
  FILE *f = std::fopen(path, "r");
  if (!f) {
    std::fprintf(stderr, "cannot open %s\n", path);
    return 2;
  }
  char kind[8];
  int mode;
  unsigned u, want;
  long n = 0, bad = 0;
  while (std::fscanf(f, "%7s %d %x %x", kind, &mode, &u, &want) == 4) {
    ++n;
    float x = pto::sim::bitcast<float>(uint32_t(u));
    unsigned got = std::string(kind) == "bf16"
                       ? f32_to_bf16_bits(x, RoundMode(mode))
                       : f32_to_f16_bits(x, RoundMode(mode));
    if (got != want && bad++ < 20)
      std::fprintf(stderr, "%s %s %08x: got %04x, want %04x\n", kind,
                   pto::sim::round_name(RoundMode(mode)), u, got, want);
  }
  std::fclose(f);
  std::printf("checked %ld conversions, %ld mismatches\n", n, bad);
  return bad != 0 || n == 0;
}

static int flush() {
  int bad = 0;
  const float sub = pto::sim::bitcast<float>(0x00018000u),
              nsub = pto::sim::bitcast<float>(0x80018000u);
  // gradual underflow by default
  bad += f32_to_bf16_bits(sub) != 0x0002;
  bad += pto::sim::bitcast<uint32_t>(bf16_bits_to_f32(0x0001)) != 0x00010000u;
  bad += f32_to_f16_bits(1e-7f) != 0x0002;
  pto::sim::flush_subnormals = true;
  bad += f32_to_bf16_bits(sub) != 0x0000;
  bad += f32_to_bf16_bits(nsub, RoundMode::CAST_CEIL) != 0x8000;
  bad += pto::sim::bitcast<uint32_t>(bf16_bits_to_f32(0x8001)) != 0x80000000u;
  bad += f32_to_f16_bits(1e-7f) != 0x0000;
  bad += f32_to_bf16_bits(1.0f) != 0x3f80;
  pto::sim::flush_subnormals = false;
  std::printf("flush: %d mismatches\n", bad);
  return bad != 0;
}

int main(int argc, char **argv) {
  std::string c = argc > 1 ? argv[1] : "";
  if (c == "roundtrip")
    return roundtrip();
  if (c == "check" && argc == 3)
    return check(argv[2]);
  if (c == "flush")
    return flush();
  std::fprintf(stderr, "usage: %s roundtrip | check FILE | flush\n", argv[0]);
  return 2;
}
