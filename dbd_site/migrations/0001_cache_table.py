"""The shared cache's table (`settings.CACHE_TABLE`), made by every `migrate`.

Production without REDIS_URL keeps its cache there; with Redis or in development it stays
empty. Made whatever the cache setting is, so that a database first migrated by a
development start is still ready for a production one. The table is Django's own
(`createcachetable`'s), not a model.
"""

from django.conf import settings
from django.core.management.commands.createcachetable import Command as CreateCacheTable
from django.db import migrations


def create_table(apps, schema_editor):
    command = CreateCacheTable()
    command.verbosity = 0  # it does nothing, quietly, if the table is already there
    command.create_table(schema_editor.connection.alias, settings.CACHE_TABLE, dry_run=False)


def drop_table(apps, schema_editor):
    schema_editor.execute(f"DROP TABLE IF EXISTS {schema_editor.quote_name(settings.CACHE_TABLE)}")


class Migration(migrations.Migration):
    dependencies = []

    operations = [migrations.RunPython(create_table, drop_table)]
