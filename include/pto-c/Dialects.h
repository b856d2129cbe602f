/*===- pto-c/Dialects.h - C API: the pto dialect ------------------*- C -*-===*\
|*                                                                            *|
|* Registration of the pto dialect (MLIR's dialect-handle convention) and of  *|
|* every dialect a pto kernel uses.                                           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef PTO_C_DIALECTS_H
#define PTO_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__pto__(): use with mlirDialectHandleInsertDialect /
 * mlirDialectHandleLoadDialect like any upstream dialect handle. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(PTO, pto);

/* Inserts pto and the upstream dialects pto kernels use (arith, func, index,
 * math, scf) into `registry`. */
MLIR_CAPI_EXPORTED void ptoRegisterAllDialects(MlirDialectRegistry registry);

/* A new context with the dialects of ptoRegisterAllDialects registered and
 * loaded. Destroy it with mlirContextDestroy. */
MLIR_CAPI_EXPORTED MlirContext ptoContextCreate(void);

#ifdef __cplusplus
}
#endif

#endif /* PTO_C_DIALECTS_H */
