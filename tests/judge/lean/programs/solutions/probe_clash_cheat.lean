-- fake: probe_clash_cheat
-- expect: REJECTED STATEMENT_MISMATCH
-- The probe cannot build (a clash with `import Lean`) and names nothing; Comparator rejects
-- the illegal axiom (exit 1), which reads as Comparator's generic rejection.
import Verifier
def Lean.Name.quickLt := 0
axiom cheat : False
theorem answer : Spec := cheat.elim
