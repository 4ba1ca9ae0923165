import Verifier
