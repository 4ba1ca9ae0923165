def target : Nat := 4

abbrev Spec : Prop := 2 + 2 = target

theorem answer : Spec := rfl
