-- judge: allow Lean.ofReduceBool
abbrev Spec : Prop := 2 ^ 64 % 7 = 2
