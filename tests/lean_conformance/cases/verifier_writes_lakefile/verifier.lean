-- While it is built, writes a Lake configuration into the job's root (Lake prefers
-- lakefile.lean to lakefile.toml). Publishing must refuse it, naming the file: had its build
-- layer been kept, every later `lake comparator` would have loaded this configuration.
run_cmd do
  let toml ← IO.FS.readFile "lakefile.toml"
  let name := ((toml.splitOn "name = \"").getD 1 "judge").takeWhile (· != '"')
  IO.FS.writeFile "lakefile.lean" (s!"import Lake\nopen Lake DSL\npackage «{name}» where\n" ++
    "  srcDir := \"evil\"\nlean_lib JudgeChallenge\nlean_lib Solution\n")

abbrev Spec : Prop := 1 = 2
