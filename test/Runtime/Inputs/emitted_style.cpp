// A kernel file in the shape pto-mlir's emitter produces (written by hand):
// leaf kernels against the pto-isa API, a control program on pto_rt, and a
// host main under PTO_HOST_MAIN. out[i] = sum_j exp(S[i,j] - max_j S[i,j]),
// S = Q K^T, seq <= 64 rows, head 64; the cube and vector stages exchange S
// through a per-instance GM workspace.
#include <pto/pto-inst.hpp>
#ifdef PTO_HOST_MAIN
#include <pto/runtime/pto_runtime.hpp>
#endif

using namespace pto;

constexpr int kM = 32, kSeq = 64, kHead = 64;

__global__ AICORE void qk_leaf(__gm__ bfloat16_t *q, __gm__ bfloat16_t *k, __gm__ float *s, int64_t m0, int64_t seq) {
#if defined(__DAV_CUBE__)
  const int mv = int(seq - m0 < kM ? seq - m0 : kM), nv = int(seq);
  if (mv > 0 && nv > 0) {
    Tile<TileType::Mat, bfloat16_t, kM, kHead, BLayout::ColMajor, DYNAMIC, kHead, SLayout::RowMajor, 512> qm(mv);
    Tile<TileType::Mat, bfloat16_t, kHead, kSeq, BLayout::RowMajor, kHead, DYNAMIC, SLayout::ColMajor, 512> km(nv);
    TileLeft<bfloat16_t, kM, kHead, DYNAMIC, kHead> a(mv);
    TileRight<bfloat16_t, kHead, kSeq, kHead, DYNAMIC> b(nv);
    TileAcc<float, kM, kSeq, DYNAMIC, DYNAMIC> c(mv, nv);
    TASSIGN(qm, 0x0);
    TASSIGN(km, 0x1000);
    TASSIGN(a, 0x0);
    TASSIGN(b, 0x0);
    TASSIGN(c, 0x0);
    GlobalTensor<bfloat16_t, Shape<1, 1, 1, DYNAMIC, kHead>, Stride<1, 1, 1, kHead, 1>> gq(q + m0 * kHead, Shape<1, 1, 1, DYNAMIC, kHead>(mv));
    GlobalTensor<bfloat16_t, Shape<1, 1, 1, kHead, DYNAMIC>, Stride<1, 1, 1, 1, kHead>, Layout::DN> gk(k, Shape<1, 1, 1, kHead, DYNAMIC>(nv));
    GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, DYNAMIC, 1>> gs(s, Shape<1, 1, 1, DYNAMIC, DYNAMIC>(mv, nv), Stride<1, 1, 1, DYNAMIC, 1>(seq));
    TLOAD(qm, gq);
    TLOAD(km, gk);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TEXTRACT(a, qm, 0, 0);
    TEXTRACT(b, km, 0, 0);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    TMATMUL(c, a, b);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(gs, c);
  }
#endif
}

__global__ AICORE void rowsum_exp_leaf(__gm__ float *s, __gm__ float *out, int64_t m0, int64_t seq) {
#if defined(__DAV_VEC__)
  const int mv = int(seq - m0 < kM ? seq - m0 : kM), nv = int(seq);
  if (mv > 0 && nv > 0) {
    using TS = Tile<TileType::Vec, float, kM, kSeq, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
    using TC = Tile<TileType::Vec, float, kM, 1, BLayout::ColMajor, DYNAMIC, 1>;
    TS x(mv, nv), tmp(mv, nv);
    TC mx(mv), sum(mv);
    TASSIGN(x, 0x0);
    TASSIGN(tmp, 0x2000);
    TASSIGN(mx, 0x4000);
    TASSIGN(sum, 0x4080);
    GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, DYNAMIC, 1>> gs(s, Shape<1, 1, 1, DYNAMIC, DYNAMIC>(mv, nv), Stride<1, 1, 1, DYNAMIC, 1>(seq));
    GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, 1>, Stride<1, 1, 1, 1, 1>, Layout::DN> go(out + m0, Shape<1, 1, 1, DYNAMIC, 1>(mv));
    TLOAD(x, gs);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TROWMAX(mx, x, tmp);
    pipe_barrier(PIPE_V);
    TROWEXPANDSUB(x, x, mx);
    pipe_barrier(PIPE_V);
    TEXP(x, x);
    pipe_barrier(PIPE_V);
    TROWSUM(sum, x, tmp);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE<TC, decltype(go), AtomicType::AtomicAdd>(go, sum);
  }
#endif
}

#ifdef PTO_HOST_MAIN
int main(int argc, char **argv) {
  pto_rt::HostMain hm(argc, argv);
  auto &q = hm.input<bfloat16_t>("q", {-1, kHead});
  auto &k = hm.input<bfloat16_t>("k", {-1, kHead});
  const int64_t seq = q.dim(0);
  auto &out = hm.alloc<float>({seq});
  pto_rt::Runtime &rt = hm.runtime();
  bfloat16_t *qp = q.data(), *kp = k.data();
  float *op = out.data();
  for (int64_t m0 = 0; m0 < seq; m0 += kM) {
    rt.root_call("attn_rows", 0, 2, [=](pto_rt::RootInstance &ri) {
      float *s = ri.workspace<float>(kM * seq);
      pto_rt::Token c = ri.launch(pto_rt::Core::Cube, "qk_leaf", {}, [=] { qk_leaf(qp, kp, s, m0, seq); });
      ri.launch(pto_rt::Core::Vector, "rowsum_exp_leaf", {c}, [=] { rowsum_exp_leaf(s, op, m0, seq); });
    });
  }
  hm.output("out", out);
  return hm.finish();
}
#endif
