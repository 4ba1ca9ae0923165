abbrev Spec : Prop := 2 ^ 20 % 7 = 4
