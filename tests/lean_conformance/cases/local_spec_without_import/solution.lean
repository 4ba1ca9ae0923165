abbrev Spec : Prop := True

theorem answer : Spec := trivial
