abbrev Spec : Prop := 2 + 2 = 4

-- The author's reference proof left in the verifier: `_root_.answer` in the bridge would find it.
theorem answer : Spec := by decide
