/* A C program against the installed C API: parse SK-16, run a pipeline. */
#include "pto-c/PTO.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  FILE *file = fopen(argv[1], "rb");
  if (!file)
    return 2;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  size_t got = fread(text, 1, (size_t)size, file);
  fclose(file);
  text[got] = '\0';

  ptoRegisterAllPasses();
  MlirContext ctx = ptoContextCreate();
  PtoDiagnosticCollector diags = ptoDiagnosticCollectorCreate(ctx);
  MlirModule module = ptoModuleParse(ctx, mlirStringRefCreateFromCString(text),
                                     mlirStringRefCreateFromCString(argv[1]));
  free(text);
  printf("parsed: %d\n", !mlirModuleIsNull(module));
  MlirLogicalResult result =
      ptoRunPassPipeline(mlirModuleGetOperation(module),
                         mlirStringRefCreateFromCString("canonicalize,cse"));
  printf("pipeline: %d, diagnostics: %ld\n", mlirLogicalResultIsSuccess(result),
         (long)ptoDiagnosticCollectorGetNumDiagnostics(diags));
  mlirModuleDestroy(module);
  ptoDiagnosticCollectorDestroy(diags);
  mlirContextDestroy(ctx);
  return 0;
}
