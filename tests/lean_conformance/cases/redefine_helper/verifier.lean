def target : Nat := 5

abbrev Spec : Prop := 2 + 2 = target
