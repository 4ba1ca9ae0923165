-- fake: probe_clash
-- expect: ACCEPTED
-- A correct proof that also declares a name `import Lean` brings: the axiom probe cannot
-- build beside it and reports nothing, so Comparator (which decides axioms) decides.
import Verifier
def Lean.Name.quickLt := 0
theorem answer : Spec := by decide
