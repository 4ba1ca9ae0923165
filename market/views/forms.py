"""Forms of the web pages: they parse and validate input; services decide."""

from __future__ import annotations

import json
from decimal import Decimal

from django import forms
from django.contrib.auth.forms import UserCreationForm

from market.models.problems import MAX_SOLUTION_BYTES
from market.starters import PYTHON_VERIFIER_STARTER, VERIFIER_STARTERS


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined,misc]
        fields = ("username",)

    def full_clean(self) -> None:
        """After a refused sign-up, focus goes to the first field in error (the page is
        reloaded: ``autofocus`` on that field, on no other), not to the username."""
        super().full_clean()
        if not self.is_bound or not self.errors:
            return
        bad = next((name for name in self.fields if name in self.errors), None)
        for name, field in self.fields.items():
            field.widget.attrs.pop("autofocus", None)
            if name == bad:
                field.widget.attrs["autofocus"] = True


class SubmitSolutionForm(forms.Form):
    verifier_version = forms.TypedChoiceField(label="Verifier", coerce=int)
    text = forms.CharField(
        label="Solution",
        required=False,
        strip=False,
        widget=forms.Textarea(
            attrs={
                "rows": 6,
                "spellcheck": "false",
                "autocomplete": "off",
                "class": "code",
                "wrap": "off",
            }
        ),
        help_text="Paste your solution in the format the verifier asks for (at most 64 KB).",
    )
    upload = forms.FileField(
        label="…or upload a file",
        required=False,
        help_text="A text file of at most 64 KB; used instead of the pasted text.",
    )

    def __init__(self, *args: object, versions: list[object], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["verifier_version"].choices = [  # type: ignore[attr-defined]
            (v.pk, f"{v.verifier.name} · {v.get_language_display()} · v{v.number}")  # type: ignore[attr-defined]
            for v in versions
        ]

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        upload = data.get("upload")
        if upload is not None:
            if upload.size > MAX_SOLUTION_BYTES:  # type: ignore[attr-defined]
                self.add_error("upload", f"The file is over {MAX_SOLUTION_BYTES} bytes.")
                return data
            data["solution_bytes"] = upload.read()  # type: ignore[attr-defined]
        elif data.get("text", "").strip():  # type: ignore[union-attr]
            data["solution_bytes"] = str(data["text"]).encode("utf-8")
        else:
            self.add_error("text", "Paste a solution or upload a file.")
        return data


class PriceForm(forms.Form):
    """A price in major units (two decimals) and a quantity; the view converts to minor units."""

    price = forms.DecimalField(
        label="Price", min_value=Decimal("0.01"), max_digits=12, decimal_places=2
    )
    quantity = forms.IntegerField(label="Copies", min_value=1, initial=1)

    def __init__(self, *args: object, currency: str = "DEMO", **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        # The market's limits, checked here in the units the user typed (the engine checks
        # them again in minor units).
        from django.conf import settings
        from django.core.validators import MaxValueValidator

        from market.money import format_minor

        top = settings.MARKET_MAX_PRICE_MINOR
        self.fields["price"].validators.append(
            MaxValueValidator(
                Decimal(top) / 100, message=f"At most {format_minor(top, currency)} per copy."
            )
        )
        most = settings.MARKET_MAX_ORDER_QUANTITY
        self.fields["quantity"].validators.append(
            MaxValueValidator(most, message=f"At most {most:,} copies per order.")
        )

    @property
    def price_minor(self) -> int:
        return int(self.cleaned_data["price"] * 100)


class ProblemFilterForm(forms.Form):
    q = forms.CharField(label="Search", required=False, max_length=100)
    language = forms.ChoiceField(
        label="Language",
        required=False,
        choices=[("", "Any"), ("python", "Python"), ("lean", "Lean")],
    )
    # What a problem trades in: "demo" lists every DEMO-credit problem (the site's demos and
    # authors' practice problems), "real" only those that trade in real money.
    kind = forms.ChoiceField(
        label="Kind",
        required=False,
        choices=[("", "All"), ("demo", "Demo (DEMO credits, no money)"), ("real", "Real money")],
    )


SAMPLE_SEPARATOR = "---"


def split_samples(text: str) -> list[str]:
    """Samples typed in one box, separated by a line holding only ``---``."""
    samples: list[str] = []
    current: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.strip() == SAMPLE_SEPARATOR:
            samples.append("\n".join(current))
            current = []
        else:
            current.append(line)
    samples.append("\n".join(current))
    return [s.strip("\n") + "\n" for s in samples if s.strip()]


def join_samples(samples: list[str]) -> str:
    return f"\n{SAMPLE_SEPARATOR}\n".join(s.rstrip("\n") for s in samples)


class ProblemForm(forms.Form):
    title = forms.CharField(label="Title", max_length=200)
    statement_md = forms.CharField(
        label="Statement (Markdown)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text="Markdown; HTML is cleaned. Say what a solution must be.",
    )
    currency = forms.ChoiceField(
        label="Trades in",
        choices=[("DEMO", "DEMO credits (fake, no money)"), ("USD", "US dollars")],
        initial="DEMO",
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        # Offer US dollars only when this server can take and pay out dollars (Stripe keys
        # set); a problem that already trades in USD keeps its choice on its edit page.
        from market.payments.stripe_client import usd_enabled

        if not usd_enabled() and (self.initial or {}).get("currency") != "USD":
            field = self.fields["currency"]
            field.choices = [c for c in field.choices if c[0] != "USD"]  # type: ignore[attr-defined]
            field.help_text = "US dollars are not offered: this server has no payment provider."


class VerifierForm(forms.Form):
    name = forms.CharField(label="Name", max_length=100, initial="main")
    language = forms.ChoiceField(label="Language", choices=[("python", "Python"), ("lean", "Lean")])
    source = forms.CharField(
        label="Verifier source",
        strip=False,
        initial=PYTHON_VERIFIER_STARTER,
        widget=forms.Textarea(
            attrs={
                "rows": 18,
                "spellcheck": "false",
                "autocomplete": "off",
                "class": "code",
                "wrap": "off",
                # static/js/pages.js swaps the starter when the language changes (unedited only).
                "data-starters": json.dumps(VERIFIER_STARTERS),
                "data-language-select": "id_language",
            }
        ),
        help_text=(
            "Python: a module defining verify(solution, rng) that returns True for a correct "
            "solution; put the solution format in its docstring. Lean: a module Verifier "
            "defining Spec. Tab indents; Esc then Tab leaves the box. See the guide for more."
        ),
    )
    time_limit_s = forms.FloatField(label="Time limit (s)", min_value=0.1, initial=10)
    memory_limit_mb = forms.IntegerField(label="Memory limit (MB)", min_value=16, initial=256)
    lean_project = forms.ChoiceField(
        label="Lean project",
        required=False,
        choices=[("", "(Python)"), ("core", "Lean core"), ("mathlib", "Mathlib")],
    )
    is_source_public = forms.BooleanField(
        label="Show the verifier source to solvers", required=False
    )
    reference_solutions = forms.CharField(
        label="Reference solutions (must be ACCEPTED)",
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 4, "spellcheck": "false"}),
        help_text="Separate several with a line holding only ---",
    )
    wrong_solutions = forms.CharField(
        label="Wrong solutions (must be REJECTED)",
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 4, "spellcheck": "false"}),
        help_text="Separate several with a line holding only ---",
    )

    def service_kwargs(self) -> dict[str, object]:
        data = self.cleaned_data
        language = data["language"]
        return {
            "name": data["name"],
            "language": language,
            "source": data["source"],
            "time_limit_s": float(data["time_limit_s"]),
            "memory_limit_mb": int(data["memory_limit_mb"]),
            "lean_project": (data["lean_project"] or "core") if language == "lean" else "",
            "is_source_public": bool(data["is_source_public"]),
            "reference_solutions": split_samples(data["reference_solutions"]),
            "wrong_solutions": split_samples(data["wrong_solutions"]),
        }
