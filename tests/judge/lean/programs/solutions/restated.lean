-- expect: ACCEPTED
-- A correct proof that restates the type instead of importing Verifier.
theorem answer : 2 + 2 = 4 := by decide
