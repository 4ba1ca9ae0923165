-- fake: solution_plants=.lake/build/lib/lean/Verifier.olean
-- expect: REJECTED STATEMENT_MISMATCH
-- Its own build plants a Verifier olean over the prepared one: it never travels (the fake
-- comparator accepts if it ever sees it).
import Verifier
theorem answer : Spec := by decide
