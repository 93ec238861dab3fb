from django.contrib import admin

from characters.models import Character, Item


class ItemInline(admin.TabularInline):
    model = Item
    extra = 0


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    inlines = [ItemInline]
    list_display = ("name", "owner", "concept", "dp_budget", "level_cap", "updated_at")
    search_fields = ("name", "concept", "owner__username")
