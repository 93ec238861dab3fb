from django import forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm

from core import throttle


class SignupForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        fields = ("username",)


class LoginForm(AuthenticationForm):
    """Django's login form behind the login throttle (core/throttle.py): when the client's
    address or the username has too many recent failures, no password is checked."""

    def __init__(self, request=None, *args, **kwargs):
        super().__init__(request, *args, **kwargs)
        self.retry_after = 0

    def clean(self):
        username = self.cleaned_data.get("username")
        checks = throttle.login_checks(self.request, username)
        self.retry_after = throttle.retry_after(checks)
        if self.retry_after:
            raise forms.ValidationError(
                throttle.throttled_message(self.retry_after), code="throttled"
            )
        try:
            return super().clean()
        except forms.ValidationError as error:
            if getattr(error, "code", None) == "invalid_login":
                throttle.record_failure(checks)
            raise
