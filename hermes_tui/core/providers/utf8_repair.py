"""Invalid UTF-8 in a provider's event stream becomes U+FFFD before the SDK decodes it.

Both SDKs decode each SSE line strictly, so one stray byte (a proxy that cut a multi-byte
character, a server that mixed encodings) would fail the whole answer as a "malformed stream".
`repair_utf8` makes the SDK read the response body through an incremental decoder with
`errors="replace"`: valid text passes unchanged (a character split between two network reads is
joined, as before), each invalid byte sequence arrives as U+FFFD, visible where it stood.
"""

from __future__ import annotations

import codecs
from collections.abc import AsyncIterator
from typing import Any


def repair_utf8(sdk_stream: Any) -> None:
    """Route the SDK stream's body reads (`response.aiter_bytes`) through a replacing UTF-8 decoder.

    Call it before the stream is iterated; a stream without an httpx response is left alone.
    """
    response = getattr(sdk_stream, "response", None)
    read = getattr(response, "aiter_bytes", None)
    if read is None:
        return

    async def repaired(*args: Any, **kwargs: Any) -> AsyncIterator[bytes]:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        async for chunk in read(*args, **kwargs):
            text = decoder.decode(chunk)
            if text:
                yield text.encode("utf-8")
        tail = decoder.decode(b"", final=True)
        if tail:
            yield tail.encode("utf-8")

    response.aiter_bytes = repaired
