-- fake: axiom_cheat
-- expect: REJECTED AXIOM_VIOLATION cheat
import Verifier
axiom cheat : False
theorem answer : Spec := cheat.elim
