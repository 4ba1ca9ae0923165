abbrev Spec : Prop := True
