"""Minimal mutations of the canonical SK-16 program, one per checker finding.

Each mutant starts from the program `python -m pto_mlir.sk16_ir` emits (the
canonical kernel, or the same generator at another configuration), applies a
few line edits that break exactly one SK-16 rule, and carries the
`expected-error` / `expected-warning` / `expected-note` annotations that
`pto-opt --pto-check-skeleton=sk16 -verify-diagnostics` must match:

    python3 sk16_mutants.py R9-high-precision-a3 > m.mlir
    pto-opt m.mlir --pto-check-skeleton=sk16 -verify-diagnostics
    python3 sk16_mutants.py --list

Every edit names a unique anchor in the canonical text and fails loudly when
the generator's output changes under it, so a mutant can never silently
stop mutating. Used by test/Dialect/PTO/check-skeleton.test.
"""

from __future__ import annotations

import dataclasses
import re
import sys

from pto_mlir.sk16_ir import Sk16Config, emit


class Line:
    def __init__(self, text: str):
        self.text = text
        self.expect: list[str] = []  # "error {{...}}" etc.


class Kernel:
    """The generated kernel as editable lines with diagnostic annotations."""

    def __init__(self, cfg: Sk16Config):
        self.cfg = cfg
        self.lines = [Line(t) for t in emit(cfg).splitlines()]

    # -- addressing --------------------------------------------------------
    def index(self, needle: str, start: int = 0) -> int:
        hits = [i for i in range(start, len(self.lines))
                if needle in self.lines[i].text]
        if len(hits) != 1:
            raise SystemExit(f"anchor {needle!r}: {len(hits)} matches")
        return hits[0]

    def line(self, needle: str) -> Line:
        return self.lines[self.index(needle)]

    def block_end(self, start: int) -> int:
        """Index of the '}' closing the block opened on line `start`."""
        indent = len(self.lines[start].text) - len(self.lines[start].text.lstrip())
        for i in range(start + 1, len(self.lines)):
            text = self.lines[i].text
            if text.strip() == "}" and len(text) - len(text.lstrip()) == indent:
                return i
        raise SystemExit(f"no closing brace for line {start}")

    # -- edits -------------------------------------------------------------
    def sub(self, needle: str, old: str, new: str) -> Line:
        line = self.line(needle)
        if line.text.count(old) != 1:
            raise SystemExit(f"{old!r} not once in {line.text!r}")
        line.text = line.text.replace(old, new)
        return line

    def insert_after(self, needle: str, *texts: str) -> list[Line]:
        i = self.index(needle)
        new = [Line(t) for t in texts]
        self.lines[i + 1:i + 1] = new
        return new

    def insert_before(self, needle: str, *texts: str) -> list[Line]:
        i = self.index(needle)
        new = [Line(t) for t in texts]
        self.lines[i:i] = new
        return new

    def add_argument(self, text: str) -> None:
        """Appends a kernel argument (`%name: type`) to the signature."""
        line = self.line("%actual_kv:")
        cut = line.text.rindex(")")
        line.text = line.text[:cut] + ", " + text + line.text[cut:]

    def delete(self, needle: str) -> Line:
        return self.lines.pop(self.index(needle))

    def unwrap(self, needle: str) -> None:
        """Removes the block opened on the `needle` line, keeping its body."""
        start = self.index(needle)
        end = self.block_end(start)
        for line in self.lines[start + 1:end]:
            line.text = line.text[2:] if line.text.startswith("  ") else line.text
        del self.lines[end]
        del self.lines[start]

    def copy_block(self, needle: str, rename: dict[str, str],
                   suffix: str) -> list[Line]:
        """A copy of the block opened on `needle`: values it defines get
        `suffix`, and `rename` maps further text (loop names, ...)."""
        start = self.index(needle)
        end = self.block_end(start)
        body = [l.text for l in self.lines[start:end + 1]]
        defined = set()
        for text in body if suffix else []:
            lhs = re.match(r"\s*((?:%\w+, )*%\w+) = ", text)
            if lhs:
                defined.update(lhs.group(1).split(", "))
            iv = re.search(r'pto\.loop "\w+" (%\w+) =', text)
            if iv:
                defined.add(iv.group(1))
        out = []
        for text in body:
            for name in sorted(defined, key=len, reverse=True):
                text = re.sub(re.escape(name) + r"\b", name + suffix, text)
            for old, new in rename.items():
                text = text.replace(old, new)
            out.append(Line(text))
        return out

    # -- annotations -------------------------------------------------------
    def expect(self, needle: str, kind: str, message: str) -> None:
        self.line(needle).expect.append(f"{kind} {{{{{message}}}}}")

    def render(self, title: str) -> str:
        out = [f"// Mutant: {title}"]
        for line in self.lines:
            n = len(line.expect)
            for j, text in enumerate(line.expect):
                head = text.split(" ", 1)
                out.append(f"// expected-{head[0]}@+{n - j} {head[1]}")
            out.append(line.text)
        return "\n".join(out) + "\n"


CANONICAL = Sk16Config()
KERNEL = "pto.kernel @sk16_attention_backward("

# Type spellings of the canonical configuration.
T1, T2, D, N = CANONICAL.s1_tile, CANONICAL.s2_tile, CANONICAL.head_dim, CANONICAL.heads
S32 = f"!pto.tile<{T1}x{T2}xf32>"
SBF = f"!pto.tile<{T1}x{T2}xbf16>"
T1D32 = f"!pto.tile<{T1}x{D}xf32>"
T2D32 = f"!pto.tile<{T2}x{D}xf32>"
T1D = f"!pto.tile<{T1}x{D}xbf16>"
VS = "#pto.vec_tile<[64, 256]>"
VD = "#pto.vec_tile<[256, 256]>"
CUBE = ("#pto.cube_tile<m = [256, 512], k = [128, 256], n = [128, 512]>")

MUTANTS = {}


def mutant(name: str, title: str, cfg: Sk16Config = CANONICAL):
    def register(fn):
        MUTANTS[name] = (title, cfg, fn)
        return fn
    return register


# --- R1 / R2 -----------------------------------------------------------------

@mutant("R1-two-pass",
        "two passes: a second s1/s2 loop nest recomputes S for dK and dV")
def _(k: Kernel):
    copy = k.copy_block('pto.loop "LOOP_s1_dq"',
                        {'"LOOP_s1_dq"': '"LOOP_s1_dkv"',
                         '"LOOP_s2_dq"': '"LOOP_s2_dkv"'}, "_2")
    # Pass 1 writes dQ only, pass 2 dK and dV only.
    k.delete("pto.atomic_add %dV_t, %dv[")
    k.delete("pto.atomic_add %dK_f, %dk[")
    copy = [l for l in copy if "%dq[" not in l.text]
    end = k.block_end(k.index('pto.loop "LOOP_s1_dq"'))
    k.lines[end + 1:end + 1] = copy
    k.expect('pto.loop "LOOP_s1_dkv"', "error",
             "[SK16-R1] loop 'LOOP_s1_dkv' sweeps the Q/O/dO tiles a second time")
    k.expect('pto.loop "LOOP_s1_dq"', "note",
             "the first sweep over the Q/O/dO tiles is loop 'LOOP_s1_dq'")
    k.expect('pto.loop "LOOP_s2_dkv"', "error",
             "[SK16-R1] loop 'LOOP_s2_dkv' sweeps the K/V tiles a second time")
    k.expect('pto.loop "LOOP_s2_dq"', "note",
             "the first sweep over the K/V tiles is loop 'LOOP_s2_dq'")
    k.expect("%S_2 = pto.matmul", "error",
             "[SK16-R2] a second Q·Kᵀ (a product of views of 'q' and 'k' again)")
    k.expect("%S = pto.matmul", "note", "the first Q·Kᵀ is here")


@mutant("R2-second-qk", "S recomputed for the dS path in the same loop body")
def _(k: Kernel):
    k.insert_after("%S = pto.matmul",
                   f"          %S2 = pto.matmul %q_i, %k_j {{b_trans, cube_tile = {CUBE}}}"
                   f" : {T1D}, {T1D} -> {S32}")
    k.sub("%Ss = pto.mul %S,", "%S,", "%S2,")
    k.expect("%S2 = pto.matmul", "error",
             "[SK16-R2] a second Q·Kᵀ (a product of views of 'q' and 'k' again): "
             "the dominant cube work is repeated; fix: reuse S of the first product")
    k.expect("%S = pto.matmul", "note", "the first Q·Kᵀ is here")


# --- R3 ----------------------------------------------------------------------

@mutant("R3-recompute-m", "the row maximum recomputed with pto.amax over the scores")
def _(k: Kernel):
    k.insert_before("%X = pto.sub %Ss, %m_i",
                    f"            %m_r = pto.amax %Ss dim = 1 keepdim {{vec_tile = {VS}}}"
                    f" : {S32} -> !pto.tile<{T1}x1xf32>")
    k.sub("%X = pto.sub %Ss, %m_i", "%m_i", "%m_r")
    k.expect("%m_r = pto.amax", "error",
             "[SK16-R3] pto.amax recomputes the row maximum of the scores of a "
             "matmul although kernel inputs already carry row statistics for them "
             "('l_input')")
    k.expect("%S = pto.matmul", "note", "the scores are computed here")
    k.expect("%P = pto.div", "note", "the input statistic is already used here")
    k.expect("%m_i = pto.view", "error",
             "[SK16-R3] 'm_input', the forward row maximum m, is not applied to the "
             "scores of Q·Kᵀ; fix: view it per Q tile as [s1_tile, 1] and use it: "
             "X = scale·S - m")
    k.expect("%S = pto.matmul", "note", "Q·Kᵀ is computed here")


@mutant("R3-recompute-l", "the softmax denominator recomputed with pto.sum over exp")
def _(k: Kernel):
    k.insert_before("%P = pto.div %E, %l_i",
                    f"            %l_r = pto.sum %E dim = 1 keepdim {{vec_tile = {VS}}}"
                    f" : {S32} -> !pto.tile<{T1}x1xf32>")
    k.sub("%P = pto.div %E, %l_i", "%l_i", "%l_r")
    k.expect("%l_r = pto.sum", "error",
             "[SK16-R3] pto.sum over exp(...) of the scores recomputes the softmax "
             "denominator although kernel inputs already carry row statistics for "
             "them ('m_input')")
    k.expect("%S = pto.matmul", "note", "the scores are computed here")
    k.expect("%l_i = pto.view", "error",
             "[SK16-R3] 'l_input', the forward softmax denominator l, is not applied")
    k.expect("%S = pto.matmul", "note", "Q·Kᵀ is computed here")


# --- R4 ----------------------------------------------------------------------

@mutant("R4-missing-head-loop", "the head loop dropped: only head 0 is computed")
def _(k: Kernel):
    k.unwrap('pto.loop "LOOP_n_calc"')
    k.insert_before("%h_ofs = arith.muli %n_idx, %c_d",
                    "    %n_idx = arith.constant 0 : index")
    k.expect("%q_i = pto.view", "error",
             "[SK16-R4] the head level is missing or statically replicated: the "
             "column offset of the view of 'q' depends on no loop index; fix: loop "
             "over the heads with pto.loop \"LOOP_n_calc\"")


HEADS2 = dataclasses.replace(CANONICAL, heads=2)


@mutant("R4-replicated-heads",
        "the head loop written out as one copy per head (N = 2)", HEADS2)
def _(k: Kernel):
    # A Python `for h in range(2)` traces the same code twice: the copies keep
    # their loop and value names (sibling regions may reuse SSA names).
    copy = k.copy_block('pto.loop "LOOP_s1_dq"', {}, "")
    k.unwrap('pto.loop "LOOP_n_calc"')
    k.sub("%h_ofs = arith.muli %n_idx, %c_d", "%n_idx", "%c0")
    k.sub("pto.view %m2[", "%n_idx", "%c0")
    k.sub("pto.view %l2[", "%n_idx", "%c0")
    for line in copy:
        line.text = line.text[2:].replace("%h_ofs", "%h_ofs_h1").replace("%n_idx", "%c1")
    end = k.block_end(k.index('pto.loop "LOOP_s1_dq"'))
    k.lines[end + 1:end + 1] = [Line("    %h_ofs_h1 = arith.muli %c1, %c_d : index")] + copy
    k.expect("pto.view %q2[%s1_off, %h_ofs]", "error",
             "[SK16-R4] the head level is missing or statically replicated")
    k.expect("pto.view %q2[%s1_off, %h_ofs_h1]", "note",
             "another copy of the view of 'q' is here")


@mutant("R4-scf-for-s2", "the s2 level written as an scf.for (a Python loop)")
def _(k: Kernel):
    k.sub('pto.loop "LOOP_s2_dq"', 'pto.loop "LOOP_s2_dq" %s2_idx', "scf.for %s2_idx")
    k.expect("scf.for %s2_idx", "error",
             "[SK16-R4] the s2 level is 'scf.for', not a pto.loop: PyPTO unrolls a "
             "Python loop when tracing")


# --- R5 ----------------------------------------------------------------------

@mutant("R5-assemble-dq", "dQ written with assemble instead of atomic_add")
def _(k: Kernel):
    k.sub("pto.atomic_add %dQ_f, %dq[", "pto.atomic_add", "pto.assemble")
    k.expect("pto.assemble %dQ_f", "error",
             "[SK16-R5] pto.assemble overwrites 'dq': the partial gradients of the "
             "other tiles are lost; fix: write with pto.atomic_add")


@mutant("R5-zero-dq", "dQ zeroed in the kernel before the s2 loop")
def _(k: Kernel):
    k.insert_before('pto.loop "LOOP_s2_dq"',
                    "        %z_base = arith.muli %s1_idx, %c_s1_tile : index",
                    "        %z_off = arith.addi %q_start, %z_base : index",
                    f"        %zero = pto.full 0.0 {{vec_tile = {VD}}} : {T1D32}",
                    f"        pto.assemble %zero, %dq[%z_off, %h_ofs] : {T1D32}, "
                    f"!pto.tensor<?x{N * D}xf32>")
    k.expect("pto.assemble %zero", "error",
             "[SK16-R5] in-kernel initialisation of 'dq': 'pto.assemble' writes the "
             "constant tile of pto.full 0; fix: drop it: the host zeroes 'dq'")
    k.expect("%zero = pto.full", "note", "the constant tile is built here")


# --- R6 ----------------------------------------------------------------------

@mutant("R6-select-mask", "the tail tile of S zeroed with arith.select")
def _(k: Kernel):
    k.insert_before("%Ss = pto.mul %S,",
                    "            %is_tail = arith.cmpi slt, %s2_rest, %c_s2_tile : index",
                    f"            %zero_s = pto.full 0.0 {{vec_tile = {VS}}} : {S32}",
                    f"            %S_m = arith.select %is_tail, %zero_s, %S : {S32}")
    k.sub("%Ss = pto.mul %S,", "%S,", "%S_m,")
    k.expect("%S_m = arith.select", "error",
             f"[SK16-R6] arith.select chooses a {S32} by a run-time condition: a "
             "manual (where-style) mask; fix: remove the mask and express the tail "
             "through the views' valid shape")
    k.expect("%is_tail = arith.cmpi", "note", "the mask condition is computed here")


@mutant("R6-mul-mask", "S multiplied by a 0/1 mask tile built with pto.full")
def _(k: Kernel):
    k.insert_before("%X = pto.sub %Ss, %m_i",
                    f"            %mask = pto.full 1.0 {{vec_tile = {VS}}} : {S32}",
                    f"            %Ss_m = pto.mul %Ss, %mask {{vec_tile = {VS}}} : "
                    f"{S32}, {S32} -> {S32}")
    k.sub("%X = pto.sub %Ss, %m_i", "%Ss,", "%Ss_m,")
    k.expect("%Ss_m = pto.mul", "error",
             "[SK16-R6] 'pto.mul' combines a tile with the constant tile of pto.full "
             "1: a manual mask")
    k.expect("%mask = pto.full", "note", "the constant tile is built here")


@mutant("R6-no-valid-shape", "the K view without a valid shape")
def _(k: Kernel):
    k.sub("%k_j = pto.view", f" valid [%a_s2, {D}]", "")
    k.expect("%k_j = pto.view", "error",
             "[SK16-R6] the view of 'k' moves along dim 0 with loop 'LOOP_s2_dq' "
             "(dynamic trip count) at an offset read from a tensor, but it has no "
             "valid shape: the derived extent only clips at the end of the tensor, "
             "so the tail tile covers rows of the next sequence")
    k.expect('pto.loop "LOOP_s2_dq"', "note", "loop 'LOOP_s2_dq' is here")


# --- R7 ----------------------------------------------------------------------

@mutant("R7-scale-tensor", "S scaled by a [1, 1] tile of a scale tensor")
def _(k: Kernel):
    k.add_argument("%scale_t: !pto.tensor<1x1xf32>")
    k.insert_before("%Ss = pto.mul %S,",
                    "            %scale_i = pto.view %scale_t[0, 0] : "
                    "!pto.tensor<1x1xf32> -> !pto.tile<1x1xf32>")
    k.sub("%Ss = pto.mul %S,", f"%S, %scale {{vec_tile = {VS}}} : {S32}, f32",
          f"%S, %scale_i {{vec_tile = {VS}}} : {S32}, !pto.tile<1x1xf32>")
    k.expect("%Ss = pto.mul", "error",
             "[SK16-R7] the Q·Kᵀ result is scaled by a tile of tensor 'scale_t' "
             "instead of a compile-time scalar")


@mutant("R7-scale-read", "scale read from an integer tensor at run time")
def _(k: Kernel):
    k.add_argument("%scale_bits: !pto.tensor<1xi32>")
    k.delete("%scale = arith.constant")
    k.insert_after("%c_s2_tile = arith.constant",
                   "  %scale_raw = pto.read %scale_bits[%c0] : !pto.tensor<1xi32>",
                   "  %scale_i32 = arith.index_cast %scale_raw : index to i32",
                   "  %scale = arith.bitcast %scale_i32 : i32 to f32")
    k.expect("%Ss = pto.mul", "error",
             "[SK16-R7] the scalar of this pto.mul (and of 2 more pto.mul ops) is a "
             "run-time value (a value read from tensor 'scale_bits' (pto.read)); "
             "fix: fold scale = 1/sqrt(D) into an arith.constant")
    k.expect("%scale_raw = pto.read", "note", "the run-time value comes from here")


# --- R8 ----------------------------------------------------------------------

@mutant("R8-no-vec-tile", "a V1 op without a vector tile")
def _(k: Kernel):
    k.sub("%t = pto.mul %o32, %do32", f" {{vec_tile = {VS}}}", "")
    k.expect("%t = pto.mul", "error",
             "[SK16-R8] 'pto.mul' has no vector tile: its tiling would depend on "
             "whichever set_vec_tile_shapes happens to be in force; fix: add "
             f"{{vec_tile = {VS}}}")


@mutant("R8-runtime-tile", "s2_tile read from a tile_config tensor")
def _(k: Kernel):
    k.add_argument("%tile_cfg: !pto.tensor<2xi32>")
    k.sub("%c_s2_tile = arith.constant", f"arith.constant {T2} : index",
          "pto.read %tile_cfg[%c1] : !pto.tensor<2xi32>")
    k.expect("%s2_loop = arith.ceildivsi", "error",
             "[SK16-R8] the trip count of loop 'LOOP_s2_dq' divides by a tile size "
             "that is a run-time value (a value read from tensor 'tile_cfg' "
             "(pto.read))")
    k.expect("%s2_base = arith.muli", "error",
             "[SK16-R8] the offset of the view of 'k' advances with loop "
             "'LOOP_s2_dq' by a run-time stride")
    k.expect("%c_s2_tile = pto.read", "note",
             "the run-time tile size of the trip count comes from here")
    k.expect("%c_s2_tile = pto.read", "note", "the run-time stride comes from here")


@mutant("R8-vec-tile-over-ub", "a V2 vector tile larger than UB")
def _(k: Kernel):
    for needle in ("%dQ_f = pto.mul", "%dK_f = pto.mul"):
        k.sub(needle, VD, "#pto.vec_tile<[2048, 256]>")
        k.expect(needle, "error",
                 "[SK16-R8] vector tile [2048, 256] of 'pto.mul' clamps to "
                 f"[2048, {D}] of f32 = {2048 * D * 4} B, more than the 196608 B "
                 "(192 KiB) unified buffer of DAV_2201")


@mutant("R8-stride", "s1 offsets advance by half a tile")
def _(k: Kernel):
    k.insert_after("%c_s1_tile = arith.constant",
                   "  %c_s1_half = arith.constant 1024 : index")
    k.sub("%s1_base = arith.muli", "%c_s1_tile", "%c_s1_half")
    k.expect("%q_i = pto.view", "error",
             f"[SK16-R8] the view of 'q' is {T1} wide along dim 0 but its offset "
             "advances by 1024 per iteration of loop 'LOOP_s1_dq': consecutive "
             "tiles overlap")
    k.expect('pto.loop "LOOP_s1_dq"', "note", "loop 'LOOP_s1_dq' is here")


# --- R9 ----------------------------------------------------------------------

@mutant("R9-high-precision-a3",
        "P divided with HIGH_PRECISION on DAV_2201 (needs "
        "--mlir-very-unsafe-disable-verifier-on-parsing: the verifier rejects it)")
def _(k: Kernel):
    k.sub("%P = pto.div", "#pto.precision<INTRINSIC>", "#pto.precision<HIGH_PRECISION>")
    k.expect("%P = pto.div", "error",
             "[SK16-R9] pto.div uses HIGH_PRECISION, which DAV_2201 does not support; "
             "fix: set precision = #pto.precision<INTRINSIC>")


def to_950(k: Kernel) -> None:
    """The 950 variant's options (docs/SK16.md#the-950-variant); the arch comes from the config."""
    k.sub("stitch_function_max_num = 512", "512, device_sched_mode = 3",
          "513, device_sched_mode = 1")
    k.sub("pass_options = #pto.pass_options<",
          "cube_l1_reuse_setting = {-1 : 1, 0 : 4}",
          "vec_nbuffer_setting = {-2 : 1, -1 : 16}, cube_l1_reuse_setting = {-1 : 16}")


ARCH950 = dataclasses.replace(CANONICAL, arch="DAV_3510")


@mutant("canonical-950", "no mutation: the kernel with the 950 options (clean)", ARCH950)
def _(k: Kernel):
    to_950(k)


@mutant("R9-high-precision-950", "P divided with HIGH_PRECISION on DAV_3510", ARCH950)
def _(k: Kernel):
    to_950(k)
    k.sub("%P = pto.div", "#pto.precision<INTRINSIC>", "#pto.precision<HIGH_PRECISION>")
    k.expect("%P = pto.div", "warning",
             "[SK16-R9] pto.div uses HIGH_PRECISION; SK-16 divides with INTRINSIC "
             "(recommended value: INTRINSIC)")


# --- R10 ---------------------------------------------------------------------

@mutant("R10-reshape-in-loop", "the reshape of v moved into the s2 loop")
def _(k: Kernel):
    reshape = k.delete("%v2 = pto.reshape %v")
    k.insert_after("// Step 0: views", "          " + reshape.text.strip())
    k.expect("%v2 = pto.reshape", "error",
             "[SK16-R10] the reshape of 'v' is not at kernel entry: it runs in every "
             "iteration of its enclosing loop; fix: hoist the in-place reshape")
    k.expect('pto.loop "LOOP_s2_dq"', "note", "the enclosing loop 'LOOP_s2_dq' is here")


@mutant("R10-head-major", "q reshaped head-major to [total·N, D]")
def _(k: Kernel):
    k.insert_before("%q2 = pto.reshape %q",
                    f"  %c_n = arith.constant {N} : index",
                    "  %q_rows = arith.muli %total_q, %c_n : index")
    k.sub("%q2 = pto.reshape %q", f"[%total_q, {N * D}]", f"[%q_rows, {D}]")
    k.sub("%q2 = pto.reshape %q", f"-> !pto.tensor<?x{N * D}xbf16>",
          f"-> !pto.tensor<?x{D}xbf16>")
    k.sub("%q_i = pto.view %q2", f": !pto.tensor<?x{N * D}xbf16>",
          f": !pto.tensor<?x{D}xbf16>")
    k.expect("%q2 = pto.reshape", "error",
             f"[SK16-R10] reshapes 'q' to !pto.tensor<?x{D}xbf16>; the per-head "
             f"column slicing needs [total, {N * D}]")


# --- R11 ---------------------------------------------------------------------

F32_CUBE = "#pto.cube_tile<m = [128, 256], k = [128, 256], n = [128, 256]>"


@mutant("R11-fp32-dv", "dV computed from FP32 P and dO (no BF16 cast before C2)")
def _(k: Kernel):
    k.sub("%P_bf, %dS_bf = pto.scope", f"-> ({SBF}, {SBF})",
          f"-> ({SBF}, {SBF}, {S32}, {T1D32})")
    k.sub("%P_bf, %dS_bf = pto.scope", "%P_bf, %dS_bf", "%P_bf, %dS_bf, %P32, %do32o")
    k.sub("pto.yield %P_b, %dS_b", f": {SBF}, {SBF}",
          f", %P, %do32 : {SBF}, {SBF}, {S32}, {T1D32}")
    k.sub("%dV_t = pto.matmul", f"%P_bf, %do_i {{a_trans, cube_tile = {CUBE}}} : {SBF}, {T1D}",
          f"%P32, %do32o {{a_trans, cube_tile = {F32_CUBE}}} : {S32}, {T1D32}")
    k.expect("%dV_t = pto.matmul", "error",
             "[SK16-R11] the matmul dV = Pᵀ·dO does not take BF16 (or FP16) cube operands: "
             "P in f32, 'do' (widened) in f32")


@mutant("R11-trunc-cast", "P rounded to BF16 with TRUNC")
def _(k: Kernel):
    k.sub("%P_b = pto.cast %P", "RINT", "TRUNC")
    k.expect("%P_b = pto.cast", "warning",
             "[SK16-R11] the cast to bf16 feeding dV = Pᵀ·dO rounds with TRUNC; SK-16 "
             "and its golden round to nearest even (recommended value: RINT)")


FP16 = dataclasses.replace(CANONICAL, dtype="fp16")


@mutant("R11-trunc-cast-fp16", "the FP16 variant (clean otherwise): P rounded to FP16 with TRUNC",
        FP16)
def _(k: Kernel):
    k.sub("%P_b = pto.cast %P", "RINT", "TRUNC")
    k.expect("%P_b = pto.cast", "warning",
             "[SK16-R11] the cast to f16 feeding dV = Pᵀ·dO rounds with TRUNC; SK-16 "
             "and its golden round to nearest even (recommended value: RINT)")


# --- R12 ---------------------------------------------------------------------

@mutant("R12-v2-unscoped", "the V2 stage without sg_set_scope=2")
def _(k: Kernel):
    k.unwrap("pto.scope #pto.scope<id = 2>")
    k.expect("pto.atomic_add %dV_t", "error",
             "[SK16-R12] the V2 op 'pto.atomic_add' and 4 more V2 ops are outside any "
             "scope: without sg_set_scope=2 the V2 chain splits")


@mutant("R12-scope1-not-closed", "V2 recorded under scope 1 (never reset)")
def _(k: Kernel):
    k.sub("pto.scope #pto.scope<id = 2>", "id = 2", "id = 1")
    k.expect("pto.atomic_add %dV_t", "error",
             "[SK16-R12] the V2 op 'pto.atomic_add' and 4 more V2 ops are in scope 1: "
             "scope 1 is not closed after V1")
    k.expect("pto.scope #pto.scope<id = 1> {", "note", "the scope is here")


@mutant("R12-cube-in-scope", "the C1 matmuls inside a scope")
def _(k: Kernel):
    k.sub("%S = pto.matmul", "%S =", "%S_in =")
    k.sub("%dP = pto.matmul", "%dP =", "%dP_in =")
    k.insert_before("%S_in = pto.matmul",
                    f"          %S, %dP = pto.scope #pto.scope<id = 3> -> ({S32}, {S32}) {{")
    k.insert_after("%dP_in = pto.matmul",
                   f"          pto.yield %S_in, %dP_in : {S32}, {S32}",
                   "          }")
    k.expect("%S_in = pto.matmul", "error",
             "[SK16-R12] the matmul Q·Kᵀ (and 1 more matmuls) is inside scope 3: on "
             "DAV_2201 SK-16's scopes hold the vector stages only")
    k.expect("pto.scope #pto.scope<id = 3>", "note", "the scope is here")


# --- R13 ---------------------------------------------------------------------

@mutant("R13-combine-axis-false", "combine_axis = false")
def _(k: Kernel):
    k.sub("combine_axis = true", "true", "false")
    k.expect(KERNEL, "error",
             "[SK16-R13] combine_axis = false materialises the [M, 1] broadcasts")


@mutant("R13-combine-axis-absent", "combine_axis not set")
def _(k: Kernel):
    k.delete("combine_axis = true")
    k.expect(KERNEL, "warning",
             "[SK16-R13] combine_axis is not set (PyPTO's default is unsettled: the "
             "doc says false, the framework config true); SK-16 sets it "
             "(recommended value: true)")


# --- R14 ---------------------------------------------------------------------

@mutant("R14-sched-mode", "device_sched_mode = 1")
def _(k: Kernel):
    k.sub("device_sched_mode = 3", "device_sched_mode = 3", "device_sched_mode = 1")
    k.expect(KERNEL, "warning",
             "[SK16-R14] runtime option device_sched_mode is 1; the A3 kernel "
             "(DAV_2201) uses 3 (recommended value: 3)")


@mutant("R14-no-pass-options", "pass_options dropped, ready_on_host_tensors incomplete")
def _(k: Kernel):
    k.delete("pass_options = #pto.pass_options<")
    k.sub("max_workspace_kb = ", "25170624>,", "25170624>} {")
    k.sub("ready_on_host_tensors = ", '["actual_q", "actual_kv"]', '["actual_q"]')
    k.expect(KERNEL, "warning",
             "[SK16-R14] runtime option ready_on_host_tensors lacks 'actual_kv'; the "
             "A3 kernel (DAV_2201) lists both (recommended value: [\"actual_q\", "
             "\"actual_kv\"])")
    k.expect(KERNEL, "warning",
             "[SK16-R14] pass option cube_l1_reuse_setting is not set; the A3 kernel "
             "(DAV_2201) uses {-1 : 1, 0 : 4} (recommended value: {-1 : 1, 0 : 4})")


# --- cross-attention reshape --------------------------------------------------------------------

@mutant("P8.1-kv-total", "K and V reshaped with the Q-side total (the reference's bug)")
def _(k: Kernel):
    for name in ("k", "v"):
        k.sub(f"%{name}2 = pto.reshape %{name}", "%total_kv", "%total_q")
        k.expect(f"%{name}2 = pto.reshape", "error",
                 f"[SK16-P8.1] the reshape of '{name}' takes its row count from 'q': "
                 "wrong for cross attention, where total_kv != total_q")
        k.expect("%total_q = pto.dim %q", "note",
                 f"the row count for '{name}' is taken here")


# --- the same violation, spelled differently (issue 20) -----------------------------
# Each kind again with other index arithmetic, through views/casts/reshapes, or
# as another op: the checker judges values, so every spelling is caught with
# the same rule id.

@mutant("R1-separate-nest",
        "two passes as a second batch/head/s1/s2 nest with its own loop names "
        "and the head offset written D·n")
def _(k: Kernel):
    copy = k.copy_block('pto.loop "LOOP_b_calc"',
                        {'"LOOP_b_calc"': '"LOOP_b_kv"', '"LOOP_n_calc"': '"LOOP_n_kv"',
                         '"LOOP_s1_dq"': '"LOOP_s1_kv"', '"LOOP_s2_dq"': '"LOOP_s2_kv"'},
                        "_2")
    k.delete("pto.atomic_add %dV_t, %dv[")
    k.delete("pto.atomic_add %dK_f, %dk[")
    copy = [l for l in copy if "%dq[" not in l.text]
    for line in copy:
        if "%h_ofs_2 = arith.muli %n_idx_2, %c_d" in line.text:
            line.text = line.text.replace("%n_idx_2, %c_d", "%c_d, %n_idx_2")
    end = k.block_end(k.index('pto.loop "LOOP_b_calc"'))
    k.lines[end + 1:end + 1] = copy
    k.expect('pto.loop "LOOP_s1_kv"', "error",
             "[SK16-R1] loop 'LOOP_s1_kv' sweeps the Q/O/dO tiles a second time")
    k.expect('pto.loop "LOOP_s1_dq"', "note",
             "the first sweep over the Q/O/dO tiles is loop 'LOOP_s1_dq'")
    k.expect('pto.loop "LOOP_s2_kv"', "error",
             "[SK16-R1] loop 'LOOP_s2_kv' sweeps the K/V tiles a second time")
    k.expect('pto.loop "LOOP_s2_dq"', "note",
             "the first sweep over the K/V tiles is loop 'LOOP_s2_dq'")
    k.expect("%S_2 = pto.matmul", "error", "[SK16-R2] a second Q·Kᵀ")
    k.expect("%S = pto.matmul", "note", "the first Q·Kᵀ is here")


@mutant("R2-second-qk-commuted",
        "a second Q·Kᵀ on a view of q whose column offset is written D·n")
def _(k: Kernel):
    k.insert_after("%q_i = pto.view",
                   "          %h_ofs_c = arith.muli %c_d, %n_idx : index",
                   f"          %q_c = pto.view %q2[%s1_off, %h_ofs_c] valid [%a_s1, {D}] : "
                   f"!pto.tensor<?x{N * D}xbf16> -> {T1D}")
    k.insert_after("%S = pto.matmul",
                   f"          %S2 = pto.matmul %q_c, %k_j {{b_trans, cube_tile = {CUBE}}}"
                   f" : {T1D}, {T1D} -> {S32}")
    k.sub("%Ss = pto.mul %S,", "%S,", "%S2,")
    k.expect("%S2 = pto.matmul", "error", "[SK16-R2] a second Q·Kᵀ")
    k.expect("%S = pto.matmul", "note", "the first Q·Kᵀ is here")


@mutant("R2-second-qk-reshape",
        "a second Q·Kᵀ through a second reshape of q, column offset n·64 + n·64")
def _(k: Kernel):
    k.insert_after("%q2 = pto.reshape %q",
                   f"  %q3 = pto.reshape %q [%total_q, {N * D}] inplace : "
                   f"!pto.tensor<?x{N}x{D}xbf16> -> !pto.tensor<?x{N * D}xbf16>",
                   f"  %c_half_d = arith.constant {D // 2} : index")
    k.insert_after("%q_i = pto.view",
                   "          %h_half = arith.muli %n_idx, %c_half_d : index",
                   "          %h_ofs_f = arith.addi %h_half, %h_half : index",
                   f"          %q_c = pto.view %q3[%s1_off, %h_ofs_f] valid [%a_s1, {D}] : "
                   f"!pto.tensor<?x{N * D}xbf16> -> {T1D}")
    k.insert_after("%S = pto.matmul",
                   f"          %S2 = pto.matmul %q_c, %k_j {{b_trans, cube_tile = {CUBE}}}"
                   f" : {T1D}, {T1D} -> {S32}")
    k.sub("%Ss = pto.mul %S,", "%S,", "%S2,")
    k.expect("%S2 = pto.matmul", "error", "[SK16-R2] a second Q·Kᵀ")
    k.expect("%S = pto.matmul", "note", "the first Q·Kᵀ is here")


@mutant("R2-second-qk-subview",
        "a second Q·Kᵀ on a view (at the head's columns) of a view of all heads of q")
def _(k: Kernel):
    k.insert_after("%q_i = pto.view",
                   f"          %q_all = pto.view %q2[%s1_off, 0] valid [%a_s1, {N * D}] : "
                   f"!pto.tensor<?x{N * D}xbf16> -> !pto.tile<{T1}x{N * D}xbf16>",
                   f"          %q_c = pto.view %q_all[0, %h_ofs] : "
                   f"!pto.tile<{T1}x{N * D}xbf16> -> {T1D}")
    k.insert_after("%S = pto.matmul",
                   f"          %S2 = pto.matmul %q_c, %k_j {{b_trans, cube_tile = {CUBE}}}"
                   f" : {T1D}, {T1D} -> {S32}")
    k.sub("%Ss = pto.mul %S,", "%S,", "%S2,")
    k.expect("%S2 = pto.matmul", "error", "[SK16-R2] a second Q·Kᵀ")
    k.expect("%S = pto.matmul", "note", "the first Q·Kᵀ is here")


def _expect_recomputed_m(k: Kernel):
    """The findings when the row maximum %m_r, recomputed from the scores,
    replaces m_input in the softmax (however the scores reach the amax)."""
    k.expect("%m_r = pto.amax", "error",
             "[SK16-R3] pto.amax recomputes the row maximum of the scores")
    k.expect("%S = pto.matmul", "note", "the scores are computed here")
    k.expect("%P = pto.div", "note", "the input statistic is already used here")
    k.expect("%m_i = pto.view", "error",
             "[SK16-R3] 'm_input', the forward row maximum m, is not applied")
    k.expect("%S = pto.matmul", "note", "Q·Kᵀ is computed here")


@mutant("R3-amax-view", "the row maximum recomputed over a view of the scores")
def _(k: Kernel):
    k.insert_before("%X = pto.sub %Ss, %m_i",
                    f"            %Ss_v = pto.view %Ss[0, 0] : {S32} -> {S32}",
                    f"            %m_r = pto.amax %Ss_v dim = 1 keepdim {{vec_tile = {VS}}}"
                    f" : {S32} -> !pto.tile<{T1}x1xf32>")
    k.sub("%X = pto.sub %Ss, %m_i", "%m_i", "%m_r")
    _expect_recomputed_m(k)


@mutant("R3-sum-view", "the softmax denominator recomputed over a view of exp(...)")
def _(k: Kernel):
    k.insert_before("%P = pto.div %E, %l_i",
                    f"            %E_v = pto.view %E[0, 0] : {S32} -> {S32}",
                    f"            %l_r = pto.sum %E_v dim = 1 keepdim {{vec_tile = {VS}}}"
                    f" : {S32} -> !pto.tile<{T1}x1xf32>")
    k.sub("%P = pto.div %E, %l_i", "%l_i", "%l_r")
    k.expect("%l_r = pto.sum", "error",
             "[SK16-R3] pto.sum over exp(...) of the scores recomputes the softmax "
             "denominator")
    k.expect("%S = pto.matmul", "note", "the scores are computed here")
    k.expect("%l_i = pto.view", "error",
             "[SK16-R3] 'l_input', the forward softmax denominator l, is not applied")
    k.expect("%S = pto.matmul", "note", "Q·Kᵀ is computed here")


@mutant("R6-mask-cast", "a 0/1 mask built in bf16 and widened with pto.cast")
def _(k: Kernel):
    k.insert_before("%X = pto.sub %Ss, %m_i",
                    f"            %mask_b = pto.full 1.0 {{vec_tile = {VS}}} : {SBF}",
                    f"            %mask = pto.cast %mask_b {{vec_tile = {VS}}} : {SBF} -> {S32}",
                    f"            %Ss_m = pto.mul %Ss, %mask {{vec_tile = {VS}}} : "
                    f"{S32}, {S32} -> {S32}")
    k.sub("%X = pto.sub %Ss, %m_i", "%Ss,", "%Ss_m,")
    k.expect("%Ss_m = pto.mul", "error",
             "[SK16-R6] 'pto.mul' combines a tile with the constant tile of pto.full "
             "1: a manual mask")
    k.expect("%mask_b = pto.full", "note", "the constant tile is built here")


@mutant("R6-mask-view", "a zero fill reaching S through a view of a larger constant tile")
def _(k: Kernel):
    k.insert_before("%X = pto.sub %Ss, %m_i",
                    f"            %fill = pto.full 0.0 {{vec_tile = {VS}}} : "
                    f"!pto.tile<{T1}x{2 * T2}xf32>",
                    f"            %fill_v = pto.view %fill[0, 0] : "
                    f"!pto.tile<{T1}x{2 * T2}xf32> -> {S32}",
                    f"            %Ss_m = pto.add %Ss, %fill_v {{vec_tile = {VS}}} : "
                    f"{S32}, {S32} -> {S32}")
    k.sub("%X = pto.sub %Ss, %m_i", "%Ss,", "%Ss_m,")
    k.expect("%Ss_m = pto.add", "error",
             "[SK16-R6] 'pto.add' combines a tile with the constant tile of pto.full "
             "0: a manual mask")
    k.expect("%fill = pto.full", "note", "the constant tile is built here")


@mutant("R3-amax-workspace",
        "the row maximum recomputed over the scores stored in a GM workspace")
def _(k: Kernel):
    k.insert_before("%X = pto.sub %Ss, %m_i",
                    f"            %ws = pto.workspace : !pto.tensor<{T1}x{T2}xf32>",
                    f"            pto.assemble %Ss, %ws[0, 0] : {S32}, !pto.tensor<{T1}x{T2}xf32>",
                    f"            %Ss_w = pto.view %ws[0, 0] : !pto.tensor<{T1}x{T2}xf32> -> {S32}",
                    f"            %m_r = pto.amax %Ss_w dim = 1 keepdim {{vec_tile = {VS}}}"
                    f" : {S32} -> !pto.tile<{T1}x1xf32>")
    k.sub("%X = pto.sub %Ss, %m_i", "%m_i", "%m_r")
    _expect_recomputed_m(k)


@mutant("R6-mask-workspace", "a 0/1 mask tile stored in a GM workspace and viewed back")
def _(k: Kernel):
    k.insert_before("%X = pto.sub %Ss, %m_i",
                    f"            %mask = pto.full 1.0 {{vec_tile = {VS}}} : {S32}",
                    f"            %ws = pto.workspace : !pto.tensor<{T1}x{T2}xf32>",
                    f"            pto.assemble %mask, %ws[0, 0] : {S32}, !pto.tensor<{T1}x{T2}xf32>",
                    f"            %mask_w = pto.view %ws[0, 0] : !pto.tensor<{T1}x{T2}xf32> -> {S32}",
                    f"            %Ss_m = pto.mul %Ss, %mask_w {{vec_tile = {VS}}} : "
                    f"{S32}, {S32} -> {S32}")
    k.sub("%X = pto.sub %Ss, %m_i", "%Ss,", "%Ss_m,")
    k.expect("%Ss_m = pto.mul", "error",
             "[SK16-R6] 'pto.mul' combines a tile with the constant tile of pto.full "
             "1: a manual mask")
    k.expect("%mask = pto.full", "note", "the constant tile is built here")


@mutant("R6-mask-tensor", "S multiplied by a tile of a mask tensor outside the signature")
def _(k: Kernel):
    k.add_argument("%mask_t: !pto.tensor<?x?xf32>")
    k.insert_before("%Ss = pto.mul %S,",
                    f"            %mask_i = pto.view %mask_t[%s1_off, %s2_off] valid [%a_s1, %a_s2] : "
                    f"!pto.tensor<?x?xf32> -> {S32}")
    k.insert_before("%X = pto.sub %Ss, %m_i",
                    f"            %Ss_m = pto.mul %Ss, %mask_i {{vec_tile = {VS}}} : "
                    f"{S32}, {S32} -> {S32}")
    k.sub("%X = pto.sub %Ss, %m_i", "%Ss,", "%Ss_m,")
    k.expect("%Ss_m = pto.mul", "error",
             "[SK16-R6] 'pto.mul' combines the scores with a tile of tensor 'mask_t', "
             "which is no SK-16 input: a manual mask passed in as a tensor")
    k.expect("%mask_i = pto.view", "note", "the mask tile is viewed here")


@mutant("R6-mask-tensor-cast", "a bf16 mask tensor widened and added to dP")
def _(k: Kernel):
    k.add_argument("%bias: !pto.tensor<?x?xbf16>")
    k.insert_before("%Ss = pto.mul %S,",
                    f"            %bias_i = pto.view %bias[%s1_off, %s2_off] valid [%a_s1, %a_s2] : "
                    f"!pto.tensor<?x?xbf16> -> {SBF}",
                    f"            %bias32 = pto.cast %bias_i {{vec_tile = {VS}}} : {SBF} -> {S32}",
                    f"            %dP_m = pto.add %dP, %bias32 {{vec_tile = {VS}}} : "
                    f"{S32}, {S32} -> {S32}")
    k.sub("%Y = pto.sub %dP, %Dvec", "%dP,", "%dP_m,")
    k.expect("%dP_m = pto.add", "error",
             "[SK16-R6] 'pto.add' combines the scores with a tile of tensor 'bias', "
             "which is no SK-16 input")
    k.expect("%bias_i = pto.view", "note", "the mask tile is viewed here")


@mutant("R5-zero-dq-cast", "dQ zeroed in the kernel through a cast of a bf16 zero tile")
def _(k: Kernel):
    k.insert_before('pto.loop "LOOP_s2_dq"',
                    "        %z_base = arith.muli %s1_idx, %c_s1_tile : index",
                    "        %z_off = arith.addi %q_start, %z_base : index",
                    f"        %zero_b = pto.full 0.0 {{vec_tile = {VD}}} : {T1D}",
                    f"        %zero = pto.cast %zero_b {{vec_tile = {VD}}} : {T1D} -> {T1D32}",
                    f"        pto.assemble %zero, %dq[%z_off, %h_ofs] : {T1D32}, "
                    f"!pto.tensor<?x{N * D}xf32>")
    k.expect("pto.assemble %zero", "error",
             "[SK16-R5] in-kernel initialisation of 'dq': 'pto.assemble' writes the "
             "constant tile of pto.full 0")
    k.expect("%zero_b = pto.full", "note", "the constant tile is built here")


@mutant("R7-div-runtime", "S scaled by dividing by sqrt(D) read at run time")
def _(k: Kernel):
    k.add_argument("%scale_cfg: !pto.tensor<1xi32>")
    k.insert_after("%c_s2_tile = arith.constant",
                   "  %sd_raw = pto.read %scale_cfg[%c0] : !pto.tensor<1xi32>",
                   "  %sd_i32 = arith.index_cast %sd_raw : index to i32",
                   "  %sqrt_d = arith.sitofp %sd_i32 : i32 to f32")
    k.sub("%Ss = pto.mul %S,", "pto.mul %S, %scale {",
          "pto.div %S, %sqrt_d {precision = #pto.precision<INTRINSIC>, ")
    k.expect("%Ss = pto.div", "error",
             "[SK16-R7] the scalar of this pto.div is a run-time value (a value read "
             "from tensor 'scale_cfg' (pto.read))")
    k.expect("%sd_raw = pto.read", "note", "the run-time value comes from here")


@mutant("R7-div-tile", "S divided by a [1, 1] tile of a tensor")
def _(k: Kernel):
    k.add_argument("%sqrt_t: !pto.tensor<1x1xf32>")
    k.insert_before("%Ss = pto.mul %S,",
                    "            %sqrt_i = pto.view %sqrt_t[0, 0] : "
                    "!pto.tensor<1x1xf32> -> !pto.tile<1x1xf32>")
    k.sub("%Ss = pto.mul %S,", f"pto.mul %S, %scale {{vec_tile = {VS}}} : {S32}, f32",
          f"pto.div %S, %sqrt_i {{precision = #pto.precision<INTRINSIC>, vec_tile = {VS}}}"
          f" : {S32}, !pto.tile<1x1xf32>")
    k.expect("%Ss = pto.div", "error",
             "[SK16-R7] the Q·Kᵀ result is divided by a tile of tensor 'sqrt_t' "
             "instead of a compile-time scalar")


@mutant("P8.1-kv-dq-rows", "K and V reshaped with the row count of the output dq")
def _(k: Kernel):
    k.insert_after("%total_kv = pto.dim %k",
                   f"  %rows_dq = pto.dim %dq, 0 : !pto.tensor<?x{N * D}xf32>")
    for name in ("k", "v"):
        k.sub(f"%{name}2 = pto.reshape %{name}", "%total_kv", "%rows_dq")
        k.expect(f"%{name}2 = pto.reshape", "error",
                 f"[SK16-P8.1] the reshape of '{name}' takes its row count from 'dq'")
        k.expect("%rows_dq = pto.dim %dq", "note",
                 f"the row count for '{name}' is taken here")


@mutant("P8.1-kv-o-arith", "K and V reshaped with o's row count through arithmetic")
def _(k: Kernel):
    k.insert_after("%total_kv = pto.dim %k",
                   f"  %rows_o = pto.dim %o, 0 : !pto.tensor<?x{N}x{D}xbf16>",
                   "  %rows_kv = arith.addi %rows_o, %c0 : index")
    for name in ("k", "v"):
        k.sub(f"%{name}2 = pto.reshape %{name}", "%total_kv", "%rows_kv")
        k.expect(f"%{name}2 = pto.reshape", "error",
                 f"[SK16-P8.1] the reshape of '{name}' takes its row count from 'o'")
        k.expect("%rows_o = pto.dim %o", "note",
                 f"the row count for '{name}' is taken here")


@mutant("R4-fused-batch-head",
        "batch and head fused into one loop: one R4 finding, no cascade of R6 warnings")
def _(k: Kernel):
    k.sub('pto.loop "LOOP_b_calc"', '"LOOP_b_calc" %b_idx = %c0 to %batch',
          '"LOOP_bn_calc" %bn_idx = %c0 to %bn_total')
    k.insert_before('pto.loop "LOOP_bn_calc"',
                    "  %bn_total = arith.muli %batch, %c_heads : index")
    k.insert_after('pto.loop "LOOP_bn_calc"',
                   "    %b_idx = arith.divsi %bn_idx, %c_heads : index",
                   "    %n_idx = arith.remsi %bn_idx, %c_heads : index")
    k.unwrap('pto.loop "LOOP_n_calc"')
    k.expect('pto.loop "LOOP_bn_calc"', "error",
             "[SK16-R4] loop 'LOOP_bn_calc' drives both the batch and the head level")


# --- legal rewrites: must stay clean (check-skeleton-clean.test) ------------------

@mutant("legal-950-mix-scope",
        "DAV_3510: the s2 body in one cube+vector MIX scope 10001, as the 950 kernel "
        "(clean)", ARCH950)
def _(k: Kernel):
    to_950(k)
    k.unwrap("pto.scope #pto.scope<id = 2>")
    k.unwrap("%P_bf, %dS_bf = pto.scope")
    k.delete("pto.yield %P_b, %dS_b")
    for needle in ("%dV_t = pto.matmul", "%dQ_t = pto.matmul", "%dK_t = pto.matmul"):
        line = k.line(needle)
        line.text = line.text.replace("%P_bf", "%P_b").replace("%dS_bf", "%dS_b")
    start = k.index('pto.loop "LOOP_s2_dq"')
    end = k.block_end(start)
    k.lines.insert(end, Line("          }"))
    k.lines.insert(start + 1, Line("          pto.scope #pto.scope<id = 10001> {"))


@mutant("legal-commuted-offsets", "offsets written D·n, T·idx and base + start (clean)")
def _(k: Kernel):
    k.sub("%h_ofs = arith.muli", "%n_idx, %c_d", "%c_d, %n_idx")
    k.sub("%s1_base = arith.muli", "%s1_idx, %c_s1_tile", "%c_s1_tile, %s1_idx")
    k.sub("%s1_off = arith.addi", "%q_start, %s1_base", "%s1_base, %q_start")
    k.sub("%s2_base = arith.muli", "%s2_idx, %c_s2_tile", "%c_s2_tile, %s2_idx")


@mutant("legal-factored-hoisted-d",
        "D re-materialised in the loop body, head offset n·64 + n·64 (clean)")
def _(k: Kernel):
    k.delete("%h_ofs = arith.muli %n_idx, %c_d")
    k.insert_after("// Step 0: views",
                   f"          %c_half = arith.constant {D // 2} : index",
                   "          %h_half = arith.muli %n_idx, %c_half : index",
                   "          %h_ofs = arith.addi %h_half, %h_half : index")


@mutant("legal-stepped-s2",
        "the s2 loop over element offsets: 0 to s2 step s2_tile (clean)")
def _(k: Kernel):
    k.sub('pto.loop "LOOP_s2_dq"', "%s2_idx = %c0 to %s2_loop step %c1",
          "%s2_pos = %c0 to %s2 step %c_s2_tile")
    k.delete("%s2_loop = arith.ceildivsi")
    k.delete("%s2_base = arith.muli")
    k.sub("%s2_off = arith.addi", "%s2_base", "%s2_pos")
    k.sub("%s2_rest = arith.subi", "%s2_base", "%s2_pos")


@mutant("legal-staged-reshape",
        "q and k reshaped in place in two steps, [total·N, D] then [total, N·D] (clean)")
def _(k: Kernel):
    k.insert_before("%q2 = pto.reshape %q",
                    "  %q_rows = arith.muli %total_q, %c_heads : index",
                    "  %kv_rows = arith.muli %total_kv, %c_heads : index",
                    f"  %q_a = pto.reshape %q [%q_rows, {D}] inplace : "
                    f"!pto.tensor<?x{N}x{D}xbf16> -> !pto.tensor<?x{D}xbf16>",
                    f"  %k_a = pto.reshape %k [%kv_rows, {D}] inplace : "
                    f"!pto.tensor<?x{N}x{D}xbf16> -> !pto.tensor<?x{D}xbf16>")
    k.sub("%q2 = pto.reshape %q", f"%q [%total_q, {N * D}] inplace : !pto.tensor<?x{N}x{D}",
          f"%q_a [%total_q, {N * D}] inplace : !pto.tensor<?x{D}")
    k.sub("%k2 = pto.reshape %k", f"%k [%total_kv, {N * D}] inplace : !pto.tensor<?x{N}x{D}",
          f"%k_a [%total_kv, {N * D}] inplace : !pto.tensor<?x{D}")


@mutant("legal-renamed-reordered",
        "loops and values renamed, independent views and C1 products reordered (clean)")
def _(k: Kernel):
    for old, new in (('"LOOP_b_calc" %b_idx', '"LOOP_batch" %bi'),
                     ('"LOOP_n_calc" %n_idx', '"LOOP_head" %hi'),
                     ('"LOOP_s1_dq" %s1_idx', '"LOOP_q_tiles" %qi'),
                     ('"LOOP_s2_dq" %s2_idx', '"LOOP_kv_tiles" %kj')):
        k.sub(old.split()[0], old, new)
    for line in k.lines:
        for old, new in (("%b_idx", "%bi"), ("%n_idx", "%hi"), ("%s1_idx", "%qi"),
                         ("%s2_idx", "%kj"), ("%h_ofs", "%col")):
            line.text = re.sub(re.escape(old) + r"\b", new, line.text)
    # v_j before k_j, o_i before do_i, dP before S.
    for first, second in (("%k_j = pto.view", "%v_j = pto.view"),
                          ("%do_i = pto.view", "%o_i = pto.view"),
                          ("%S = pto.matmul", "%dP = pto.matmul")):
        i, j = k.index(first), k.index(second)
        k.lines[i], k.lines[j] = k.lines[j], k.lines[i]


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if argv[0] == "--list":
        for name, (title, _, _) in MUTANTS.items():
            print(f"{name}: {title}")
        return 0
    if argv[0] not in MUTANTS:
        print(f"unknown mutant {argv[0]!r}; see --list", file=sys.stderr)
        return 2
    title, cfg, fn = MUTANTS[argv[0]]
    kernel = Kernel(cfg)
    fn(kernel)
    sys.stdout.write(kernel.render(f"{argv[0]}: {title}"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
