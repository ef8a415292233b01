"""Word-aware truncation for teasers."""


def truncate_words(text, limit, ellipsis="..."):
    """Cut *text* to at most *limit* characters without splitting a word."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    room = max(limit - len(ellipsis), 0)
    cut = text[:room]
    if text[room] != " " and " " in cut:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:") + ellipsis
