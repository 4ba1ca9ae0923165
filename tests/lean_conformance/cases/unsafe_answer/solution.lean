import Verifier

unsafe def answer : Spec := unsafeCast ()
