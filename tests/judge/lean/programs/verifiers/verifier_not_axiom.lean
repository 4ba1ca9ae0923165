-- judge: allow foo
-- fake: verifier_not_axiom
def foo : Nat := 1

abbrev Spec : Prop := 1 = 1
