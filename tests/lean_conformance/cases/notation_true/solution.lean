import Verifier

notation "2 + 2 = 5" => True

theorem answer : 2 + 2 = 5 := trivial
