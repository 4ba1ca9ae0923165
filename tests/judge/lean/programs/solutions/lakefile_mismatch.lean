-- fake: lakefile_mismatch
-- expect: REJECTED STATEMENT_MISMATCH
-- A wrong answer whose own build writes `lakefile.lean`: step 2 must still load the judge's
-- lakefile.toml (a planted configuration would build any bridge), so the bridge fails there.
import Verifier
theorem answer : 2 + 2 = 5 := sorry
