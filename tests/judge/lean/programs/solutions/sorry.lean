-- fake: sorry
-- expect: REJECTED AXIOM_VIOLATION sorryAx
import Verifier
theorem answer : Spec := sorry
