import Verifier

theorem answer : Spec := by
  intro a b
  induction b with
  | zero => simp
  | succ n ih => omega
