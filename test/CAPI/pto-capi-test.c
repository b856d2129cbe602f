/*===- pto-capi-test.c - exercises the pto-mlir C API
-----------------------===*\
|*                                                                            *|
|* Plain C, linked against libPTO-C only: registers the dialects and passes,  *|
|* parses, runs pipelines by name and reads diagnostics. Run by               *|
|* test/CAPI/capi.test with the SK-16 example as argument.                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "pto-c/PTO.h"

#include "mlir-c/IR.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

/* Appends printed text to a growing buffer (struct Text). */
struct Text {
  char *data;
  size_t length;
};
static void appendText(MlirStringRef text, void *userData) {
  struct Text *out = userData;
  out->data = realloc(out->data, out->length + text.length + 1);
  memcpy(out->data + out->length, text.data, text.length);
  out->length += text.length;
  out->data[out->length] = '\0';
}

static void printString(const char *label, MlirStringRef text) {
  printf("%s: %.*s\n", label, (int)text.length, text.data);
}

static void dumpDiagnostics(PtoDiagnosticCollector diags) {
  intptr_t n = ptoDiagnosticCollectorGetNumDiagnostics(diags);
  printf("diagnostics: %ld (errors: %ld)\n", (long)n,
         (long)ptoDiagnosticCollectorGetNumErrors(diags));
  for (intptr_t i = 0; i < n; ++i) {
    printString("location", ptoDiagnosticCollectorGetLocation(diags, i));
    printString("message", ptoDiagnosticCollectorGetMessage(diags, i));
    printString("formatted", ptoDiagnosticCollectorGetFormatted(diags, i));
  }
  ptoDiagnosticCollectorClear(diags);
}

static char *readFile(const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  if (fread(text, 1, (size_t)size, file) != (size_t)size) {
    fclose(file);
    free(text);
    return NULL;
  }
  text[size] = '\0';
  fclose(file);
  return text;
}

static const char *kAxpy = "pto.kernel @scale_rows(%x: !pto.tensor<64x64xf32>, "
                           "%y: !pto.tensor<64x64xf32>) {\n"
                           "  %c16 = arith.constant 16 : index\n"
                           "  %c48 = arith.constant 48 : index\n"
                           "  %off = arith.subi %c48, %c16 : index\n"
                           "  %t = pto.view %x[%off, 0] : "
                           "!pto.tensor<64x64xf32> -> !pto.tile<16x64xf32>\n"
                           "  %s = pto.mul %t, %t : !pto.tile<16x64xf32>, "
                           "!pto.tile<16x64xf32> -> !pto.tile<16x64xf32>\n"
                           "  pto.atomic_add %s, %y[0, 0] : "
                           "!pto.tile<16x64xf32>, !pto.tensor<64x64xf32>\n"
                           "}\n";

/* The DAV_2201 vector unit does not divide i8 tiles. */
static const char *kBadDiv =
    "pto.kernel @bad_div(%x: !pto.tensor<64x64xi8>, %y: "
    "!pto.tensor<64x64xf32>) {\n"
    "  %t = pto.view %x[0, 0] : !pto.tensor<64x64xi8> -> !pto.tile<16x64xi8>\n"
    "  %d = pto.div %t, %t : !pto.tile<16x64xi8>, !pto.tile<16x64xi8> -> "
    "!pto.tile<16x64xf32>\n"
    "  pto.atomic_add %d, %y[0, 0] : !pto.tile<16x64xf32>, "
    "!pto.tensor<64x64xf32>\n"
    "}\n";

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: pto-capi-test sk16_attention_backward.mlir\n");
    return 2;
  }
  ptoRegisterAllPasses();
  ptoRegisterAllPasses(); /* idempotent */

  /* The dialect handle follows MLIR's convention. */
  MlirDialectHandle handle = mlirGetDialectHandle__pto__();
  printString("dialect", mlirDialectHandleGetNamespace(handle));

  MlirContext ctx = ptoContextCreate();
  PtoDiagnosticCollector diags = ptoDiagnosticCollectorCreate(ctx);

  /* Parse, verify, canonicalize (a bare pass list), print. */
  printf("--- axpy\n");
  MlirModule axpy = ptoModuleParse(ctx, mlirStringRefCreateFromCString(kAxpy),
                                   mlirStringRefCreateFromCString("axpy.mlir"));
  if (mlirModuleIsNull(axpy)) {
    dumpDiagnostics(diags);
    return 1;
  }
  MlirOperation axpyOp = mlirModuleGetOperation(axpy);
  printf("verify: %d\n",
         mlirLogicalResultIsSuccess(ptoOperationVerify(axpyOp)));
  MlirLogicalResult canon = ptoRunPassPipeline(
      axpyOp, mlirStringRefCreateFromCString("canonicalize,cse"));
  printf("canonicalize: %d\n", mlirLogicalResultIsSuccess(canon));
  mlirOperationPrint(axpyOp, printToStdout, NULL);
  printf("\n");

  /* The interpreter from C: y += x[32:48, :]^2 into y[0:16, :]. */
  printf("--- run\n");
  static float x[64 * 64], y[64 * 64];
  for (int i = 0; i < 64 * 64; ++i)
    x[i] = (float)(i % 7) - 3.0f;
  int64_t shape[2] = {64, 64};
  PtoTensor args[2] = {{x, 2, shape}, {y, 2, shape}};
  int status =
      ptoRunKernel(axpyOp, mlirStringRefCreateFromCString(""), 2, args);
  int rowsOk = 1;
  for (int i = 0; i < 64 * 64; ++i) {
    float want = i < 16 * 64 ? x[32 * 64 + i] * x[32 * 64 + i] : 0.0f;
    rowsOk &= y[i] == want;
  }
  printf("run: %d, y = x[32:48]^2 in rows 0..15, 0 elsewhere: %d\n", status,
         rowsOk);
  status = ptoRunKernel(axpyOp, mlirStringRefCreateFromCString(""), 1, args);
  printf("run with one argument: %d\n", status);
  dumpDiagnostics(diags);

  /* C++ from C: not before the Ascend pipeline, then after it. */
  printf("--- cpp\n");
  struct Text cpp = {NULL, 0};
  MlirLogicalResult early = ptoTranslateModuleToCpp(axpyOp, appendText, &cpp);
  printf("cpp before the pipeline: %d\n", mlirLogicalResultIsSuccess(early));
  dumpDiagnostics(diags);
  MlirLogicalResult lowered = ptoRunPassPipeline(
      axpyOp,
      mlirStringRefCreateFromCString("builtin.module(pto-ascend-pipeline)"));
  printf("ascend pipeline: %d\n", mlirLogicalResultIsSuccess(lowered));
  free(cpp.data);
  cpp.data = NULL;
  cpp.length = 0;
  MlirLogicalResult printed = ptoTranslateModuleToCpp(axpyOp, appendText, &cpp);
  printf("cpp: %d, includes pto-inst.hpp: %d, host main: %d\n",
         mlirLogicalResultIsSuccess(printed),
         cpp.data && strstr(cpp.data, "#include <pto/pto-inst.hpp>") != NULL,
         cpp.data &&
             strstr(cpp.data, "int main(int argc, char **argv)") != NULL);
  free(cpp.data);
  mlirModuleDestroy(axpy);

  /* A verifier error: no module, one diagnostic at the offending op. */
  printf("--- bad div\n");
  MlirModule bad =
      ptoModuleParse(ctx, mlirStringRefCreateFromCString(kBadDiv),
                     mlirStringRefCreateFromCString("bad_div.mlir"));
  printf("parsed: %d\n", !mlirModuleIsNull(bad));
  dumpDiagnostics(diags);

  /* SK-16 from a file: an anchored pipeline naming pto passes. */
  printf("--- sk16\n");
  char *text = readFile(argv[1]);
  if (!text) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  MlirModule sk16 = ptoModuleParse(ctx, mlirStringRefCreateFromCString(text),
                                   mlirStringRefCreateFromCString(argv[1]));
  free(text);
  if (mlirModuleIsNull(sk16)) {
    dumpDiagnostics(diags);
    return 1;
  }
  MlirOperation sk16Op = mlirModuleGetOperation(sk16);
  MlirLogicalResult hoisted = ptoRunPassPipeline(
      sk16Op,
      mlirStringRefCreateFromCString(
          "builtin.module(pto.kernel(pto-hoist-invariants{report=true}))"));
  printf("hoist pipeline: %d\n", mlirLogicalResultIsSuccess(hoisted));
  intptr_t remarks = ptoDiagnosticCollectorGetNumDiagnostics(diags);
  printf("hoist remarks: %s\n", remarks > 0 ? "some" : "none");
  printString("first remark", ptoDiagnosticCollectorGetFormatted(diags, 0));
  ptoDiagnosticCollectorClear(diags);

  /* A pipeline that does not parse fails with a diagnostic. */
  printf("--- bad pipeline\n");
  MlirLogicalResult badPipeline = ptoRunPassPipeline(
      sk16Op, mlirStringRefCreateFromCString("no-such-pass"));
  printf("bad pipeline: %d\n", mlirLogicalResultIsSuccess(badPipeline));
  dumpDiagnostics(diags);
  mlirModuleDestroy(sk16);

  ptoDiagnosticCollectorDestroy(diags);
  mlirContextDestroy(ctx);

  /* A context built from a registry, the way an embedding compiler that
   * owns its context would do it. */
  printf("--- registry\n");
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  ptoRegisterAllDialects(registry);
  MlirContext own = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  MlirModule again =
      ptoModuleParse(own, mlirStringRefCreateFromCString(kAxpy),
                     mlirStringRefCreateFromCString("again.mlir"));
  printf("parsed with own context: %d\n", !mlirModuleIsNull(again));
  mlirModuleDestroy(again);
  mlirContextDestroy(own);
  return 0;
}
