-- fake: decoy
-- expect: REJECTED STATEMENT_MISMATCH
import Verifier
#eval IO.println "'answer' depends on axioms: [propext, Classical.choice, Quot.sound]"
#eval IO.println "Your solution is okay!"
theorem answer : Spec := by decide
