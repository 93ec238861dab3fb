"""A picture a member uploads (issue 27's map pictures, issue 47's handouts): PNG, JPEG or
WebP of at most 5 MB and 16 megapixels, read and verified by Pillow before it is kept.
One check for every picture, shared by the fights and the table (and the archive's
importer), which do not import each other."""

import io

from django import forms
from django.utils.translation import gettext_lazy as _

MAX_BYTES = 5 * 1024 * 1024
TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}
# A picture's width × height: more is refused unread. Every phone that opens it decodes
# it whole (4 bytes a pixel): 4096 × 4096 is 64 MB; a 6000 × 6000 PNG of 50 kB would be
# 144 MB on every phone (issue 42).
MAX_PIXELS = 4096 * 4096


def picture_facts(content: bytes) -> dict:
    """A picture's row fields from its bytes (content, content_type, width_px,
    height_px), checked as an image (an upload's, an imported archive's);
    ValidationError when it is none we serve."""
    from PIL import Image, UnidentifiedImageError

    if len(content) > MAX_BYTES:
        raise forms.ValidationError(_("The picture is larger than 5 MB."))
    try:
        with Image.open(io.BytesIO(content)) as image:
            kind = image.format
            width, height = image.size
            if width * height > MAX_PIXELS:
                raise forms.ValidationError(
                    _("The picture is %(width)s × %(height)s pixels: at most 16 megapixels "
                      "(4096 × 4096), since every phone at the table decodes it whole. "
                      "Make it smaller and upload it again."),
                    params={"width": width, "height": height})
            image.verify()
    except forms.ValidationError:
        raise
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError,
            Image.DecompressionBombError):
        raise forms.ValidationError(_("This file is not a picture we can read.")) from None
    if kind not in TYPES:
        raise forms.ValidationError(_("Only PNG, JPEG or WebP pictures."))
    return {"content": content, "content_type": TYPES[kind],
            "width_px": width, "height_px": height}
