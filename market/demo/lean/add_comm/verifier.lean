abbrev Spec : Prop := ∀ a b : Nat, a + b = b + a
