-- fake: hang
-- expect: REJECTED TIME_LIMIT
import Verifier
set_option maxHeartbeats 0 in
theorem answer : Spec := by decide
