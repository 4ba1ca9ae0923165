import Mathlib.Tactic.NormNum.Prime

-- Rejected: a true fact, but not the one asked for (STATEMENT_MISMATCH).
theorem answer : Nat.Prime 991 := by norm_num
