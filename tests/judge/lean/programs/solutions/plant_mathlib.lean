-- fake: solution_plants=.lake/build/lib/lean/Mathlib/Init.olean
-- expect: REJECTED STATEMENT_MISMATCH
-- Its own build plants a Mathlib olean: only Submission.* outputs travel, so Comparator never
-- sees it (the fake comparator accepts if it ever does).
import Verifier
theorem answer : Spec := by decide
