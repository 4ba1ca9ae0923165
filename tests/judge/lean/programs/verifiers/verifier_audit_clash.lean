-- fake: verifier_audit_clash
def Lean.Name.quickLt := 0

abbrev Spec : Prop := 1 = 1
