import Verifier

-- Rejected: `sorry` is not a proof (AXIOM_VIOLATION: sorryAx).
theorem answer : Spec := by sorry
