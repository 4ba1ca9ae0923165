-- fake: tamper
-- expect: REJECTED STATEMENT_MISMATCH
-- Writes a forged JudgeChallenge.olean into its own build layer; the challenge layer wins.
import Verifier
theorem answer : Spec := by decide
