theorem helper : 2 + 2 = 5 := sorry

abbrev Spec : Prop := 2 + 2 = 4
