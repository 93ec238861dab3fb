from django.conf import settings
from django.core.management.base import BaseCommand

from core.demo import load_demo


class Command(BaseCommand):
    help = "Create the demo GM and player accounts and Albert (idempotent); print the logins."

    def handle(self, *args, **options):
        for username, password in load_demo(settings.DATA_DIR / "demo-logins.json").items():
            self.stdout.write(f"  {username:<14} {password}")
