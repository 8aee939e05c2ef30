"""The upload form of "My bots": a game, a bot name, a language, and a file or pasted code.

The form only checks what the browser sent (one source of code, a suffix that agrees with
the language); the limits on the code itself (size, encoding, a new checksum...) belong to
:func:`bots.competition.uploads.upload`, which the view calls with the bytes this form hands it.
"""

from __future__ import annotations

from django import forms

from bots.competition.uploads import LANGUAGE_SUFFIX, UploadError, language_for
from bots.languages import file_accept, get_language, languages, suffix_list
from games.engine import untrusted
from games.registry import game_slugs, get_game


def language_choices() -> list[tuple[str, str]]:
    """Each language the site runs, as the pages name it, with every file suffix it takes
    (C++'s three, and Java's built jars)."""
    return [
        (
            language.name,
            f"{language.title} "
            f"({', '.join(dict.fromkeys((*language.suffixes, *language.binary_suffixes)))})",
        )
        for language in languages()
    ]


def game_choices() -> list[tuple[str, str]]:
    return [(slug, get_game(slug).title) for slug in game_slugs()]


class UploadForm(forms.Form):
    game = forms.ChoiceField(choices=game_choices)
    name = forms.CharField(
        label="Bot name",
        max_length=60,
        help_text="Up to 60 characters. Use the name of one of your bots to upload a new "
        "version of it.",
        widget=forms.TextInput(attrs={"list": "my-bot-names", "autocomplete": "off"}),
    )
    language = forms.ChoiceField(choices=language_choices, widget=forms.RadioSelect)
    file = forms.FileField(
        label="Code file",
        required=False,
        help_text=f"A {suffix_list()} file whose suffix matches the language.",
        widget=forms.FileInput(attrs={"accept": file_accept()}),
    )
    code = forms.CharField(
        label="Or paste the code",
        required=False,
        strip=False,
        help_text="Instead of a file: the whole bot, as you would save it in a file.",
        widget=forms.Textarea(attrs={"rows": 14, "spellcheck": "false", "class": "code"}),
    )

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        problem = untrusted.name_problem(name, "bot name")
        if problem is not None:
            raise forms.ValidationError(problem[0].upper() + problem[1:] + ".", code="not_plain")
        return name

    def clean(self) -> dict:
        data = super().clean()
        upload = data.get("file")
        code = data.get("code") or ""
        language = data.get("language")
        if upload and code.strip():
            raise forms.ValidationError(
                "Choose a file or paste the code, not both.", code="two_sources"
            )
        if not upload and "file" in self.errors:
            return data  # the file was refused (empty, too large): its field says why
        if not upload and code and not code.strip():  # only blanks pasted
            raise forms.ValidationError(
                "The pasted code is empty (only spaces and line ends).", code="blank_code"
            )
        if not upload and not code.strip():
            raise forms.ValidationError(
                "Choose a file to upload or paste the code.", code="no_source"
            )
        if upload and language:
            try:
                found = language_for(upload.name)
            except UploadError as exc:
                self.add_error("file", str(exc))
            else:
                if found != language:
                    self.add_error(
                        "file",
                        f"{upload.name} is a {get_language(found).title} file, but the "
                        f"language chosen is {get_language(language).title}.",
                    )
        return data

    def filename_and_data(self) -> tuple[str, bytes]:
        """What :func:`bots.competition.uploads.upload` takes: a file name (its suffix gives the
        language) and the code's bytes. Pasted code is named after the bot, and the line
        ends a browser sends with a textarea (CR LF) become LF."""
        data = self.cleaned_data
        upload = data.get("file")
        if upload:
            return upload.name, upload.read()
        suffix = LANGUAGE_SUFFIX[data["language"]]
        code = data["code"].replace("\r\n", "\n")
        return f"{data['name'].strip()}{suffix}", code.encode("utf-8")
