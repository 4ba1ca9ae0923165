import Verifier

def answer : Spec := ⟨(1, 391), sorry⟩
