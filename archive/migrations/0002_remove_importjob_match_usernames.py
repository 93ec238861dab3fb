"""An import no longer matches members to accounts by username (issue 42): every member
but the GM waits as a placeholder, so the job has no choice to remember."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0001_initial'),
    ]

    operations = [
        migrations.RemoveField(
            model_name='importjob',
            name='match_usernames',
        ),
    ]
