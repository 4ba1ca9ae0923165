import Mathlib.Tactic.NormNum.Prime

abbrev Spec : Prop := Nat.Prime 997
