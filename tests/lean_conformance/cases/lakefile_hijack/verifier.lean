abbrev Spec : Prop := 1 = 2
