"""The picture under a fogged battle map (issue 47): a viewer who is not the GM gets it
with the hidden areas painted over, so no part of a hidden area reaches their browser
(the fog the map draws over a picture would only hide it from the eye).

The painted copy is made once per picture and fog (`rules.scene.fog_key`) in each
process and kept in a small cache; it is at most `LONGEST` pixels on its longer side
(a 16-megapixel map painted at full size took a request thread for most of a second;
a JPEG is decoded at that scale already: 0.2-0.3 s for a 16-megapixel one on this
machine, loaded). Requests that ask for the same copy at once wait for the one painting
it. The map asks for it by the fog's key (`?fog=`), so a change of fog is a new address and
the browser's copy of the old one is never shown again.
"""

import io
import threading
from collections import OrderedDict

from django.http import Http404, HttpResponse

from combat import services
from combat.models import MapPicture
from rules.scene import Fog, Picture, fog_key

LONGEST = 2048  # pixels on the painted copy's longer side
CACHE_SIZE = 8
PAINT = (18, 18, 22)  # the fog's colour on the map (static/css: --fog)

WAIT = 10.0  # seconds a request waits for another painting the same picture

_cache: "OrderedDict[tuple, tuple[bytes, str]]" = OrderedDict()
_making: dict[tuple, threading.Event] = {}  # what is being painted now
_lock = threading.Lock()


def picture_response(encounter, picture: int, is_gm: bool) -> HttpResponse:
    """The map's picture `picture` of `encounter` as the GM (`is_gm`) or a player sees it
    (the encounter page's and the table screen's): 404 for one the scene does not show
    them; painted over where the fog hides it, for a player."""
    row = MapPicture.objects.filter(pk=picture, encounter=encounter).defer("content").first()
    if row is None:
        raise Http404
    drawn = None
    if not is_gm:
        engine = services.engine_of(encounter)
        drawn = getattr(services.folded(encounter, engine).state, "scene", None)
        shown = drawn is not None and drawn.picture is not None and drawn.picture.shown
        if not shown or drawn.picture.key != str(row.pk):
            raise Http404
    if drawn is not None and drawn.fog.on:
        content, content_type = painted(row, drawn.picture, drawn.fog, fog_key(drawn.fog))
        response = HttpResponse(content, content_type=content_type)
        response["Cache-Control"] = "private, no-cache"  # the fog's address is its own
    else:
        response = HttpResponse(bytes(row.content), content_type=row.content_type)  # read now
        response["Cache-Control"] = "private, max-age=31536000, immutable"
    response["X-Content-Type-Options"] = "nosniff"
    return response


def painted(row, picture: Picture, fog: Fog, key: str) -> tuple[bytes, str]:
    """`row`'s picture (a MapPicture) with what `fog` hides painted over: bytes and type.
    Made once per picture and fog: the players' pages that ask for it at once after the
    GM changes the fog wait for the one painting it, rather than each painting it too."""
    cache_key = (row.pk, key)
    while True:
        with _lock:
            found = _cache.get(cache_key)
            if found is not None:
                _cache.move_to_end(cache_key)
                return found
            making = _making.get(cache_key)
            if making is None:
                _making[cache_key] = threading.Event()
                break
        making.wait(timeout=WAIT)  # then look again (its painter may have failed)
    made = None
    try:
        made = paint(bytes(row.content), picture, fog)
        return made
    finally:
        with _lock:
            if made is not None:
                _cache[cache_key] = made
                while len(_cache) > CACHE_SIZE:
                    _cache.popitem(last=False)
            _making.pop(cache_key).set()


def paint(content: bytes, picture: Picture, fog: Fog) -> tuple[bytes, str]:
    from PIL import Image, ImageDraw

    with Image.open(io.BytesIO(content)) as opened:
        opened.draft("RGB", (LONGEST, LONGEST))  # a JPEG decodes at a smaller scale
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
