import Verifier

-- Rejected: 1 is not a proper factor, so `decide` fails (COMPILE_ERROR).
def answer : Spec := ⟨(1, 391), by decide⟩
