-- fake: verifier_sorry
theorem helper : 1 = 1 := sorry

abbrev Spec : Prop := 1 = 1
