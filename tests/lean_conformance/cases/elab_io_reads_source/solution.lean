import Verifier

run_cmd do
  let _ ← IO.FS.readFile "{{FORMALMARKET_FILE}}"

theorem answer : Spec := trivial
