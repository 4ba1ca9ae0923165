-- fake: verifier_compile_error
abbrev Spec : Prop :=
  Nat.foo 3
