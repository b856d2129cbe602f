/*===- pto-c/Diagnostics.h - C API: collected diagnostics ---------*- C -*-===*\
|*                                                                            *|
|* A collector attached to a context records every diagnostic (severity,     *|
|* file:line:col, message, notes) instead of printing it, so an embedding     *|
|* compiler can show them its own way. MLIR's raw handler API                 *|
|* (mlirContextAttachDiagnosticHandler) works as well.                        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef PTO_C_DIAGNOSTICS_H
#define PTO_C_DIAGNOSTICS_H

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct PtoDiagnosticCollector {
  void *ptr;
} PtoDiagnosticCollector;

/* Attaches a collector to `context`; it collects until destroyed. */
MLIR_CAPI_EXPORTED PtoDiagnosticCollector
ptoDiagnosticCollectorCreate(MlirContext context);

/* Detaches and frees the collector (strings it returned become invalid). */
MLIR_CAPI_EXPORTED void
ptoDiagnosticCollectorDestroy(PtoDiagnosticCollector collector);

MLIR_CAPI_EXPORTED intptr_t
ptoDiagnosticCollectorGetNumDiagnostics(PtoDiagnosticCollector collector);

MLIR_CAPI_EXPORTED intptr_t
ptoDiagnosticCollectorGetNumErrors(PtoDiagnosticCollector collector);

MLIR_CAPI_EXPORTED MlirDiagnosticSeverity ptoDiagnosticCollectorGetSeverity(
    PtoDiagnosticCollector collector, intptr_t index);

/* The message alone. */
MLIR_CAPI_EXPORTED MlirStringRef ptoDiagnosticCollectorGetMessage(
    PtoDiagnosticCollector collector, intptr_t index);

/* "file:line:col" of the first file location in the diagnostic's location,
 * or an empty string. */
MLIR_CAPI_EXPORTED MlirStringRef ptoDiagnosticCollectorGetLocation(
    PtoDiagnosticCollector collector, intptr_t index);

/* "file:line:col: error: message", then one line per attached note. */
MLIR_CAPI_EXPORTED MlirStringRef ptoDiagnosticCollectorGetFormatted(
    PtoDiagnosticCollector collector, intptr_t index);

/* Forgets the diagnostics collected so far. */
MLIR_CAPI_EXPORTED void
ptoDiagnosticCollectorClear(PtoDiagnosticCollector collector);

#ifdef __cplusplus
}
#endif

#endif /* PTO_C_DIAGNOSTICS_H */
