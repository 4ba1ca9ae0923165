-- fake: alloc
-- expect: REJECTED MEMORY_LIMIT
import Verifier
theorem answer : Spec := by decide
