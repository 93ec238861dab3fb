"""An import's progress is kept on its job's row (issue 42): the import writes in short
transactions now, so the row can show it, to every server process and to the command
line's imports alike."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0002_remove_importjob_match_usernames'),
    ]

    operations = [
        migrations.AddField(
            model_name='importjob',
            name='beat_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='importjob',
            name='done',
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='importjob',
            name='total',
            field=models.PositiveBigIntegerField(default=0),
        ),
    ]
