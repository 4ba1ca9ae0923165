-- fake: type_mismatch
-- expect: REJECTED STATEMENT_MISMATCH
-- Defines its own Spec without importing Verifier: clashes with Verifier.Spec in the bridge.
abbrev Spec : Prop := True
theorem answer : Spec := trivial
