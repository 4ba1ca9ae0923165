abbrev Spec : Prop := 2 + 2 = 4
