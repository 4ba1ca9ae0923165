-- judge: allow Lean.ofReduceBool
-- fake: native_decide
-- expect: REJECTED AXIOM_VIOLATION answer._native.native_decide.ax_1_1
-- The allow line above is in the *solution*: it never counts.
import Verifier
theorem answer : Spec := by native_decide
