theorem answer : 2 + 2 = 4 := by decide
