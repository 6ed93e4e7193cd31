from django.db import migrations, models


class Migration(migrations.Migration):
    """A stored evaluation records the engine's version with the rules' content
    (`roster.engine.evaluation_version`). The values stored so far name the content
    alone, so every force reads as stale once and is worked out again (quietly, its
    version kept, where the answer is the same)."""

    dependencies = [
        ("roster", "0003_evaluation_content_version"),
    ]

    operations = [
        migrations.RenameField(
            model_name="force",
            old_name="evaluation_content_version",
            new_name="evaluation_version",
        ),
        migrations.AlterField(
            model_name="force",
            name="evaluation_version",
            field=models.CharField(blank=True, default="", editable=False, max_length=40),
        ),
    ]
