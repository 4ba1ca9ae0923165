"""Signing up: a new user and the DEMO credits every new user receives."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from market.services.accounts import grant_signup_bonus


def sign_up(*, username: str, password: str, email: str = "") -> AbstractBaseUser:
    """Create the user and grant the sign-up bonus in one transaction.

    Precondition: the caller validated the username and password (Django's
    UserCreationForm does both); a taken username raises IntegrityError.
    """
    user_model = get_user_model()
    with transaction.atomic():
        user = user_model.objects.create_user(username=username, email=email, password=password)
        grant_signup_bonus(user=user)
    return user
