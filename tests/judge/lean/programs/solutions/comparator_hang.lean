-- fake: comparator_hang
-- expect: REJECTED TIME_LIMIT
import Verifier
theorem answer : Spec := by decide
