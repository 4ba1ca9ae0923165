import Verifier

theorem _root_.answer : True := trivial
