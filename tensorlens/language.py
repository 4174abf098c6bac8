"""The language tensorlens speaks to the learner: English (``"en"``, the default) or Chinese
(``"zh_CN"``, the Chinese edition's notebooks switch to it in their setup cell).

    import tensorlens as tl
    tl.set_language("zh_CN")   # check reports in Chinese from here on

What it changes is only tensorlens's own words (the check reports: verdict, message, labels,
exercise titles and hints; an exercise's card, ``Exercise.describe()``); what torch prints
(tensor reprs, dtypes, its error messages) stays as torch prints it. The translations are data
shipped in the package (``exercises/zh_CN.json``); nothing is fetched. Until :func:`set_language`
is called, the environment variable ``TENSORLENS_LANGUAGE`` names the language (an unknown value
is ignored: English); the Chinese notebooks' setup cell sets it before it imports tensorlens, so
that the torch check on import speaks Chinese too.
"""

from __future__ import annotations

import os

__all__ = ["LANGUAGES", "LANGUAGE_ENV", "set_language", "get_language"]

#: the languages tensorlens speaks
LANGUAGES = ("en", "zh_CN")
LANGUAGE_ENV = "TENSORLENS_LANGUAGE"

_chosen: str | None = None  # set_language's choice; None follows the environment


def validate(language, caller: str = "set_language") -> str:
    """``language`` itself if tensorlens speaks it (``caller`` names the function in messages).

    Raises
    ------
    TypeError
        If ``language`` is not a string.
    ValueError
        If it is not one of :data:`LANGUAGES` (the message names it and the choices).
    """
    if not isinstance(language, str):
        raise TypeError(f"{caller}: language must be a string such as 'zh_CN', got "
                        f"{type(language).__name__} {language!r}")
    if language not in LANGUAGES:
        raise ValueError(f"{caller}: unknown language {language!r}; tensorlens speaks "
                         + ", ".join(repr(x) for x in LANGUAGES))
    return language


def set_language(language: str) -> None:
    """Speak ``language`` from now on in this process: ``"en"`` or ``"zh_CN"``.

    Raises
    ------
    TypeError, ValueError
        See :func:`validate`.
    """
    global _chosen
    _chosen = validate(language)


def get_language() -> str:
    """The language tensorlens speaks now: :func:`set_language`'s choice, else
    ``TENSORLENS_LANGUAGE``'s when tensorlens speaks it, else English."""
    if _chosen is not None:
        return _chosen
    named = os.environ.get(LANGUAGE_ENV)
    return named if named in LANGUAGES else "en"
