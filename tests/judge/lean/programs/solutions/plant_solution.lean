-- fake: plant_solution
-- expect: REJECTED STATEMENT_MISMATCH
-- A wrong answer whose own build writes `Solution.olean` (the bridge's output, with a trace
-- that would make Lake skip the bridge): only Submission.* may leave step 1, so the real bridge
-- is built and fails; Comparator never sees the planted file.
import Verifier
theorem answer : 2 + 2 = 5 := sorry
