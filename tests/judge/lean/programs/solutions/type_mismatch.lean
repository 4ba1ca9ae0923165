-- fake: type_mismatch
-- expect: REJECTED STATEMENT_MISMATCH
theorem answer : 2 + 2 = 5 := sorry
