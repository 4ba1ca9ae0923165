-- fake: lakefile_hijack
-- expect: REJECTED STATEMENT_MISMATCH
-- Writes lakefile.lean into the job's root during its own build (Lake prefers it over
-- lakefile.toml); Comparator must never see it.
import Verifier
theorem answer : Spec := by decide
