"""Images in a request a provider refused (reference §6.1 items 3 and 7): shrink them, or leave them out.

- `shrink_images(messages)`: every data-URL image over the byte cap (5 MB of base64, Anthropic's
  per-image limit and the strictest common one) or over `MAX_SIDE` pixels on its long side is
  downscaled and re-encoded (JPEG, or PNG when it has transparency) until it fits. An image that
  cannot be decoded is replaced by a short text note. Images already within both limits and
  http(s) image links are left alone.
- `strip_images(messages)`: every image part becomes a short text note, for a model that does
  not take images at all.
- `rejects_images(text)`: the phrases a provider uses to say a model takes no images.

Both work on the API copy of a request (the stored conversation keeps the original images) and
replace the message dicts they change rather than mutating them. Decoding is done with Pillow,
imported on first use; re-encoded results are cached by the image's digest, so a conversation
with a large image is not re-encoded on every call. Callers run this in a worker thread.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import re
from collections import OrderedDict
from typing import Any

from hermes_tui.core.messages import Message, is_image_part

IMAGE_CAP_BYTES = 5 * 1024 * 1024  # base64 characters per image (Anthropic's limit, the strictest common one)
MAX_SIDE = 2000  # pixels on the long side (Anthropic's limit for requests with many images)
MIN_SIDE = 16
SCALE_STEP = 0.7
JPEG_QUALITY = 85
UNDECODABLE_NOTE = "[image omitted: the provider rejected it as too large and it could not be decoded to shrink it]"
NO_VISION_NOTE = "[image omitted: this model does not accept images]"
_CACHE_SIZE = 32
_DATA_URL = re.compile(r"^data:(?P<media>[\w.+-]+/[\w.+-]+)?(?P<params>(;[^,;]*)*?);base64,", re.IGNORECASE)
# a provider saying the model takes no images at all (reference §6.1 item 3)
NO_VISION_PHRASES = (
    "only 'text' content type is supported",
    'only "text" content type is supported',
    "does not support images",
    "does not support image input",
    "does not support vision",
    "does not support multimodal",
    "image_url is not supported",
    "unknown variant `image_url`, expected `text`",
    "image_url'. expected",
)

_LIMIT_BYTES = re.compile(r">\s*([\d,]+)\s*bytes", re.IGNORECASE)
_LIMIT_MB = re.compile(r"(\d+(?:\.\d+)?)\s*(?:mb|mib)\b", re.IGNORECASE)

_cache: OrderedDict[tuple[str, int, int], str | None] = OrderedDict()


def rejects_images(text: str) -> bool:
    """The error text says the model does not take images."""
    lowered = text.lower()
    return any(phrase in lowered for phrase in NO_VISION_PHRASES)


def limit_from_error(text: str) -> int | None:
    """The per-image limit an "image too large" error names ("... > 5242880 bytes", "exceeds 5 MB"), if any."""
    match = _LIMIT_BYTES.search(text)
    if match:
        value = int(match.group(1).replace(",", ""))
        return value if value > 0 else None
    match = _LIMIT_MB.search(text)
    if match:
        value = int(float(match.group(1)) * 1024 * 1024)
        return value if value > 0 else None
    return None


# --------------------------------------------------------------------------- reading image parts


def image_url(part: dict[str, Any]) -> str:
    """The URL of an image part in any of the shapes we carry (chat, Responses, Anthropic base64)."""
    value = part.get("image_url")
    if isinstance(value, dict):
        value = value.get("url")
    source = part.get("source")
    if value is None and isinstance(source, dict) and source.get("type") == "base64":
        return f"data:{source.get('media_type', 'image/png')};base64,{source.get('data', '')}"
    return str(value or "")


def _with_url(part: dict[str, Any], url: str) -> dict[str, Any]:
    """`part` in its own shape, pointing at `url` (a data URL)."""
    if isinstance(part.get("source"), dict):
        media, _, data = url.partition(";base64,")
        return {**part, "source": {"type": "base64", "media_type": media.removeprefix("data:"), "data": data}}
    if isinstance(part.get("image_url"), dict):
        return {**part, "image_url": {**part["image_url"], "url": url}}
    return {**part, "image_url": url}


def _payload(url: str) -> str:
    match = _DATA_URL.match(url)
    return url[match.end() :] if match else ""


# --------------------------------------------------------------------------- shrinking one image


def _encode(image: Any, fmt: str) -> bytes:
    out = io.BytesIO()
    if fmt == "JPEG":
        image.convert("RGB").save(out, "JPEG", quality=JPEG_QUALITY, optimize=True)
    else:
        image.save(out, "PNG", optimize=True)
    return out.getvalue()


def _fit(url: str, max_bytes: int, max_side: int) -> str | None:
    """`url` downscaled and re-encoded to at most `max_bytes` of base64 and `max_side` pixels; None if undecodable."""
    from PIL import Image, UnidentifiedImageError

    try:
        raw = base64.b64decode(_payload(url), validate=False)
        with Image.open(io.BytesIO(raw)) as opened:
            opened.load()
            image = opened.copy()
    except (UnidentifiedImageError, OSError, ValueError, binascii.Error, Image.DecompressionBombError):
        return None
    has_alpha = image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info)
    fmt = "PNG" if has_alpha else "JPEG"
    if image.mode not in ("RGB", "RGBA", "L", "LA"):
        image = image.convert("RGBA" if has_alpha else "RGB")
    side = min(max(image.size), max_side)
    while side >= MIN_SIDE:
        scaled = image.copy()
        scaled.thumbnail((side, side), Image.Resampling.LANCZOS)
        encoded = base64.b64encode(_encode(scaled, fmt)).decode("ascii")
        if len(encoded) <= max_bytes:
            return f"data:image/{fmt.lower()};base64,{encoded}"
        side = int(side * SCALE_STEP)
    return None


def _needs_fitting(url: str, max_bytes: int, max_side: int) -> bool:
    if len(_payload(url)) > max_bytes:
        return True
    from PIL import Image

    try:
        with Image.open(io.BytesIO(base64.b64decode(_payload(url), validate=False))) as image:
            return max(image.size) > max_side  # reads the header only
    except Exception:  # undecodable: left for the provider to judge (it was not named too large)
        return False


def fitted(url: str, max_bytes: int = IMAGE_CAP_BYTES, max_side: int = MAX_SIDE) -> str | None:
    """`url` when it already fits, else its shrunk form (cached), or None when it cannot be decoded."""
    if not _needs_fitting(url, max_bytes, max_side):
        return url
    key = (hashlib.sha256(url.encode("ascii", "replace")).hexdigest(), max_bytes, max_side)
    if key in _cache:
        _cache.move_to_end(key)
        return _cache[key]
    result = _fit(url, max_bytes, max_side)
    _cache[key] = result
    while len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return result


# --------------------------------------------------------------------------- over a request


def _replace_parts(messages: list[Message], change: Any) -> int:
    """Apply `change(part) -> new part | None (unchanged)` to every image part; how many changed."""
    changed = 0
    for index, message in enumerate(messages):
        content = message.get("content")
        if not isinstance(content, list) or not any(is_image_part(part) for part in content):
            continue
        parts = list(content)
        touched = False
        for p_index, part in enumerate(parts):
            if is_image_part(part):
                new = change(part)
                if new is not None:
                    parts[p_index] = new
                    touched = True
                    changed += 1
        if touched:
            messages[index] = {**message, "content": parts}
    return changed


def shrink_images(messages: list[Message], max_bytes: int = IMAGE_CAP_BYTES, max_side: int = MAX_SIDE) -> int:
    """Fit every data-URL image within the limits (in place, new dicts); how many were shrunk or dropped."""

    def change(part: dict[str, Any]) -> dict[str, Any] | None:
        url = image_url(part)
        if not _DATA_URL.match(url):
            return None
        new = fitted(url, max_bytes, max_side)
        if new is None:
            return {"type": "text", "text": UNDECODABLE_NOTE}
        return None if new == url else _with_url(part, new)

    return _replace_parts(messages, change)


def strip_images(messages: list[Message]) -> int:
    """Every image part replaced by a short text note (in place, new dicts); how many."""
    return _replace_parts(messages, lambda part: {"type": "text", "text": NO_VISION_NOTE})
