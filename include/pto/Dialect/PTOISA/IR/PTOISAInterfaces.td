//===- PTOISAInterfaces.td - pto_isa interfaces ------------*- tablegen -*-===//
#ifndef PTOISA_INTERFACES_TD
#define PTOISA_INTERFACES_TD

include "mlir/IR/OpBase.td"

def PTOISA_PipeOpInterface : OpInterface<"PipeOpInterface"> {
  let cppNamespace = "::mlir::ptoisa";
  let description = [{
    An instruction that executes on one hardware pipe of its core. Sync
    insertion orders instructions of different pipes with flags and
    dependent instructions of the vector pipe with barriers; the cost model
    charges the instruction to its pipe.
  }];
  let methods = [
    InterfaceMethod<"The pipe that executes this instruction.",
                    "::mlir::ptoisa::Pipe", "getPipe">,
  ];
}

#endif // PTOISA_INTERFACES_TD
