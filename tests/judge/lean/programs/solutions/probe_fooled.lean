-- fake: probe_fooled
-- expect: REJECTED STATEMENT_MISMATCH
-- The axiom probe is fooled (it only ever explains rejections); Comparator still rejects.
import Verifier
theorem answer : Spec := by decide
