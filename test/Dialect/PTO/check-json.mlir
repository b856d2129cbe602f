// Machine-readable diagnostics: json=<path> (or '-' for stdout) writes one
// record per finding with rule, severity, location, message (without the
// "[rule]" prefix), fix and the notes, next to the usual diagnostics.

// RUN: not pto-opt %s '--pto-lint=json=%t.json' -o /dev/null 2>%t.stderr
// RUN: FileCheck %s --input-file=%t.json
// RUN: FileCheck %s --input-file=%t.stderr --check-prefix=TEXT
// RUN: not pto-opt %s '--pto-lint=json=-' -o /dev/null 2>/dev/null | FileCheck %s
// RUN: %python -c "import json, sys; d = json.load(open(sys.argv[1])); print(len(d), sorted({k for r in d for k in r}))" %t.json | FileCheck %s --check-prefix=KEYS

// The SK-16 checker writes the same format; the records agree with the
// expected-* annotations of a mutant (one error with a note).
// RUN: %python %S/Inputs/sk16_mutants.py R5-zero-dq > %t.zero.mlir
// RUN: not pto-opt %t.zero.mlir '--pto-check-skeleton=sk16 json=%t.zero.json' -o /dev/null 2>/dev/null
// RUN: %python -c "import json, sys; [print(r['rule'], r['severity'], r['message'], '|', r['fix'], '|', [n['message'] for n in r['notes']]) for r in json.load(open(sys.argv[1]))]" %t.zero.json | FileCheck %s --check-prefix=SK16
// SK16: SK16-R5 error in-kernel initialisation of 'dq': 'pto.assemble' writes the constant tile of pto.full 0 | drop it: the host zeroes 'dq' (torch.zeros) and the kernel only atomic_adds into it | ['the constant tile is built here']
// SK16-NOT: SK16-

// KEYS: 2 ['column', 'file', 'fix', 'line', 'message', 'notes', 'rule', 'severity']

// TEXT: check-json.mlir:[[# @LINE + 42]]:10: error: [LINT-TILE-CONFIG] 'pto.exp' has no vector tile
// TEXT: check-json.mlir:[[# @LINE + 40]]:10: warning: [LINT-TAIL-VALID] the view of 'x'
// TEXT: check-json.mlir:[[# @LINE + 37]]:3: note: loop 'L' is here

// CHECK:      [
// CHECK-NEXT:   {
// CHECK-NEXT:     "rule": "LINT-TILE-CONFIG",
// CHECK-NEXT:     "severity": "error",
// CHECK-NEXT:     "file": "{{.*}}check-json.mlir",
// CHECK-NEXT:     "line": [[# @LINE + 33]],
// CHECK-NEXT:     "column": 10,
// CHECK-NEXT:     "message": "'pto.exp' has no vector tile: its tiling would depend on whichever set_vec_tile_shapes happens to be in force",
// CHECK-NEXT:     "fix": "add {vec_tile = #pto.vec_tile<[...]>} (the set_vec_tile_shapes of its stage)",
// CHECK-NEXT:     "notes": []
// CHECK-NEXT:   },
// CHECK-NEXT:   {
// CHECK-NEXT:     "rule": "LINT-TAIL-VALID",
// CHECK-NEXT:     "severity": "warning",
// CHECK-NEXT:     "file": "{{.*}}check-json.mlir",
// CHECK-NEXT:     "line": [[# @LINE + 22]],
// CHECK-NEXT:     "column": 10,
// CHECK-NEXT:     "message": "the view of 'x' moves along dim 0 with loop 'L' (dynamic trip count), but it has no valid shape: the tail relies on the derived extent (clipping at the end of the tensor)",
// CHECK-NEXT:     "fix": "state the tail explicitly with valid [min(s - idx·T, T), ...], or confirm the derived extent is what you want",
// CHECK-NEXT:     "notes": [
// CHECK-NEXT:       {
// CHECK-NEXT:         "file": "{{.*}}check-json.mlir",
// CHECK-NEXT:         "line": [[# @LINE + 13]],
// CHECK-NEXT:         "column": 3,
// CHECK-NEXT:         "message": "loop 'L' is here"
// CHECK-NEXT:       }
// CHECK-NEXT:     ]
// CHECK-NEXT:   }
// CHECK-NEXT: ]
pto.kernel @k(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  %trips = arith.ceildivsi %n, %c64 : index
  pto.loop "L" %i = %c0 to %trips step %c1 {
    %base = arith.muli %i, %c64 : index
    %t = pto.view %x[%base, 0] : !pto.tensor<?x64xf32> -> !pto.tile<64x64xf32>
    %e = pto.exp %t : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %e, %y[%base, 0] : !pto.tile<64x64xf32>, !pto.tensor<?x64xf32>
  }
}
