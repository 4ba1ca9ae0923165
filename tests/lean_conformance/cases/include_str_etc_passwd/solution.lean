import Verifier

-- /etc/passwd IS mounted in the job (the judge's synthesized one), so this include_str
-- compiles; the build fails only because the host's user {{HOST_PASSWD_USER}} is absent from
-- it. Had the host's file been mounted, the solution would have been ACCEPTED with host data
-- embedded in its olean.
def leaked : String := include_str "/etc/passwd"

#eval show IO Unit from do
  unless (leaked.splitOn "\n{{HOST_PASSWD_USER}}:").length > 1 do
    throw (IO.userError "no host account data in /etc/passwd")

theorem answer : Spec := trivial
