"""pto-mlir Python helpers (host-side goldens and test tooling; no compiler bindings)."""
