-- fake: verifier_hang
set_option maxHeartbeats 0
abbrev Spec : Prop := True
