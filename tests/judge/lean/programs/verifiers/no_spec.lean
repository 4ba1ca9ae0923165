-- fake: no_spec
abbrev Spex : Prop := True
