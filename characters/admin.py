from django.contrib import admin

from characters.models import Character


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "concept", "dp_budget", "level_cap", "updated_at")
    search_fields = ("name", "concept", "owner__username")
