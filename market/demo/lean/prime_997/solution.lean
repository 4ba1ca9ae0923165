import Verifier
import Mathlib.Tactic.NormNum.Prime

theorem answer : Spec := by norm_num
