-- fake: compile_error
-- expect: REJECTED COMPILE_ERROR
theorem answer : Spec := by frobnicate
