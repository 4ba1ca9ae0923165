import Verifier

def leaked : String := include_str "{{SECRET_FILE}}"

theorem answer : Spec := trivial
