-- fake: comparator_broken
-- expect: JUDGE_ERROR
import Verifier
theorem answer : Spec := by decide
