-- judge: allow Choice.strong
axiom Choice.strong : ∀ (α : Type), Nonempty α → α

abbrev Spec : Prop := ∃ n : Nat, n = 3
