import Verifier

-- The same clash with the probe's `import Lean`, and an illegal axiom: Comparator rejects it.
def Lean.Elab.Command.elabCommand : Nat := 0

axiom cheat : False

theorem answer : Spec := cheat.elim
