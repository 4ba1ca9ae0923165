import Verifier

theorem bad : @Nat.add = @Nat.mul := sorry
attribute [csimp] bad

theorem answer : Spec := by native_decide
