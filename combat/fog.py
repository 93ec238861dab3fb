"""The picture under a fogged battle map (issue 47): a viewer who is not the GM gets it
with the hidden areas painted over, so no part of a hidden area reaches their browser
(the fog the map draws over a picture would only hide it from the eye).

The painted copy is made once per picture and fog (`rules.scene.fog_key`) in each
process and kept in a small cache; it is at most `LONGEST` pixels on its longer side
(a 16-megapixel map painted at full size took a request thread for most of a second).
The map asks for it by the fog's key (`?fog=`), so a change of fog is a new address and
the browser's copy of the old one is never shown again.
"""

import io
import threading
from collections import OrderedDict

from rules.scene import Fog, Picture

LONGEST = 2048  # pixels on the painted copy's longer side
CACHE_SIZE = 8
PAINT = (18, 18, 22)  # the fog's colour on the map (static/css: --fog)

_cache: "OrderedDict[tuple, tuple[bytes, str]]" = OrderedDict()
_lock = threading.Lock()


def painted(row, picture: Picture, fog: Fog, key: str) -> tuple[bytes, str]:
    """`row`'s picture (a MapPicture) with what `fog` hides painted over: bytes and type."""
    cache_key = (row.pk, key)
    with _lock:
        found = _cache.get(cache_key)
        if found is not None:
            _cache.move_to_end(cache_key)
            return found
    made = paint(bytes(row.content), picture, fog)
    with _lock:
        _cache[cache_key] = made
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return made


def paint(content: bytes, picture: Picture, fog: Fog) -> tuple[bytes, str]:
    from PIL import Image, ImageDraw

    with Image.open(io.BytesIO(content)) as opened:
        image = opened.convert("RGB")
    image.thumbnail((LONGEST, LONGEST))
    width, height = image.size
    metres_high = picture.width * picture.aspect

    def pixel(point):
        x, y = point
        return ((x - picture.x) * width / picture.width, (y - picture.y) * height / metres_high)

    mask = Image.new("L", image.size, 255)  # all hidden, then each area over the last
    draw = ImageDraw.Draw(mask)
    for area in fog.areas:
        draw.polygon([pixel(p) for p in area.points], fill=0 if area.reveal else 255)
    image.paste(PAINT, mask=mask)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue(), "image/jpeg"


def forget() -> None:
    with _lock:
        _cache.clear()
