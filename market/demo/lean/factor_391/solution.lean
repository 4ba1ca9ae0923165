import Verifier

def answer : Spec := ⟨(17, 23), by decide⟩
