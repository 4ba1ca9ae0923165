-- fake: verifier_answer
abbrev Spec : Prop := 2 + 2 = 4

-- The author's reference proof, left in by mistake: `_root_.answer` in the bridge would find it,
-- and an empty solution that only says `import Verifier` would be accepted.
theorem answer : Spec := by decide
