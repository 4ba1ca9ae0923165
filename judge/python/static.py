import dataclasses
@dataclasses.dataclass(frozen=True)
class StaticReport:
    ok: bool
def static_check(source: str) -> StaticReport: ...
