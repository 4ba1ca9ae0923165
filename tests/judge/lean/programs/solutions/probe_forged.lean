-- fake: probe_forged
-- expect: ACCEPTED
-- The solution's own build leaves an axiom report at the probe's path, then the probe cannot
-- build: a report the probe did not write is never read, and Comparator decides.
import Verifier
theorem answer : Spec := by decide
