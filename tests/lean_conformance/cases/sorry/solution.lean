import Verifier

theorem answer : Spec := by sorry
