"""contract_review.text.numerals: Roman, letters, English words and Chinese numerals, both ways."""

from __future__ import annotations

from decimal import Decimal

import pytest

from contract_review.text.numerals import (
    chinese_to_decimal,
    chinese_to_int,
    english_words_to_int,
    int_to_chinese,
    int_to_cjk_counting,
    int_to_english_ordinal,
    int_to_english_words,
    int_to_letters,
    int_to_roman,
    letters_to_int,
    roman_to_int,
)


def _clause(text: str) -> int | None:
    """The structure parser's reading of clause numbers ('第十四条', '（一）')."""
    return chinese_to_int(text, extended=False, digit_string=False, bare_units=True, arabic=True)


# -- Roman numerals and letters ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [("I", 1), ("iv", 4), ("XIV", 14), ("MCMXCIX", 1999), ("MMMCMXCIX", 3999)],
)
def test_roman_both_ways(text: str, value: int) -> None:
    assert roman_to_int(text) == value
    assert int_to_roman(value) == text.upper()


@pytest.mark.parametrize("text", ["", "IIII", "VX", "MMMM", "ABC", "IC"])
def test_invalid_roman(text: str) -> None:
    assert roman_to_int(text) is None


def test_int_to_roman_edges() -> None:
    assert int_to_roman(0) == ""
    assert int_to_roman(4000) == "MMMM"


@pytest.mark.parametrize(
    ("text", "value"), [("a", 1), ("z", 26), ("aa", 27), ("bb", 28), ("aaa", 53)]
)
def test_letters_both_ways(text: str, value: int) -> None:
    assert letters_to_int(text) == value
    assert letters_to_int(text.upper()) == value
    assert int_to_letters(value) == text


@pytest.mark.parametrize("text", ["", "ab", "1", "é", "a1"])
def test_invalid_letters(text: str) -> None:
    assert letters_to_int(text) is None


# -- English ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("words", "value"),
    [
        ("ten", 10),
        ("twenty-eight", 28),
        ("one hundred and eighty", 180),
        ("one hundred and five", 105),
        ("two million five hundred thousand", 2_500_000),
        ("Ten Thousand", 10_000),
        ("nine hundred ninety-nine thousand", 999_000),
        ("three billion", 3_000_000_000),
        ("zero", 0),
        ("dog", None),
        ("and", None),
        ("", None),
    ],
)
def test_english_number_words(words: str, value: int | None) -> None:
    assert english_words_to_int(words) == value


@pytest.mark.parametrize(
    ("value", "plain", "british"),
    [
        (0, "zero", "zero"),
        (7, "seven", "seven"),
        (20, "twenty", "twenty"),
        (28, "twenty-eight", "twenty-eight"),
        (105, "one hundred five", "one hundred and five"),
        (1005, "one thousand five", "one thousand and five"),
        (1105, "one thousand one hundred five", "one thousand one hundred and five"),
        (999_999, "nine hundred ninety-nine thousand nine hundred ninety-nine",
         "nine hundred and ninety-nine thousand nine hundred and ninety-nine"),
        (2_500_000, "two million five hundred thousand", "two million five hundred thousand"),
    ],
)  # fmt: skip
def test_int_to_english_words(value: int, plain: str, british: str) -> None:
    assert int_to_english_words(value) == plain
    assert int_to_english_words(value, use_and=True) == british
    assert english_words_to_int(plain) == value
    assert english_words_to_int(british) == value


def test_int_to_english_words_rejects_negative() -> None:
    with pytest.raises(ValueError, match="negative"):
        int_to_english_words(-1)


@pytest.mark.parametrize(
    ("value", "words"),
    [(1, "first"), (2, "second"), (12, "twelfth"), (20, "twentieth"), (21, "twenty-first"),
     (40, "fortieth"), (100, "one hundredth"), (103, "one hundred third")],
)  # fmt: skip
def test_int_to_english_ordinal(value: int, words: str) -> None:
    assert int_to_english_ordinal(value) == words


# -- Chinese ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("numeral", "value"),
    [
        ("壹仟贰佰万", "12000000"),
        ("叁拾陆万", "360000"),
        ("一亿二千万", "120000000"),
        ("十五", "15"),
        ("两千", "2000"),
        ("壹万零伍", "10005"),
        ("一万亿", "1000000000000"),
        ("二〇二四", "2024"),
        ("十二点五", "12.5"),
    ],
)
def test_chinese_numerals(numeral: str, value: str) -> None:
    assert chinese_to_decimal(numeral) == Decimal(value)


@pytest.mark.parametrize("numeral", ["", "点五", "abc", "十二点五x", "一点十"])
def test_chinese_decimal_rejects(numeral: str) -> None:
    assert chinese_to_decimal(numeral) is None


@pytest.mark.parametrize(
    ("numeral", "value"),
    [
        ("一", 1),
        ("十", 10),
        ("十四", 14),
        ("二十八", 28),
        ("一百零一", 101),
        ("一百一十", 110),
        ("两百", 200),
        ("〇", 0),
        ("壹佰零伍", 105),
        ("一万零一", 10001),
    ],
)
def test_chinese_to_int(numeral: str, value: int) -> None:
    assert chinese_to_int(numeral) == value


def test_chinese_to_int_options() -> None:
    # Default: digit strings read positionally, bare 百/千 count nothing, financial forms allowed.
    assert chinese_to_int("二〇二四") == 2024
    assert chinese_to_int("百") == 0
    assert chinese_to_int("壹拾") == 10
    assert chinese_to_int("") is None
    assert chinese_to_int("十a") is None
    assert chinese_to_int("14") is None
    # Clause-number reading (structure parser).
    assert _clause("十四") == 14
    assert _clause("14") == 14
    assert _clause("百") == 100
    assert _clause("二〇二四") == 4
    assert _clause("一万") is None
    assert _clause("壹") is None
    assert _clause("") is None


@pytest.mark.parametrize(
    ("value", "numeral"),
    [
        (0, "零"),
        (1, "一"),
        (10, "十"),
        (12, "十二"),
        (28, "二十八"),
        (101, "一百零一"),
        (110, "一百一十"),
        (1001, "一千零一"),
        (10001, "一万零一"),
        (100_000_000, "一亿"),
    ],
)
def test_int_to_chinese(value: int, numeral: str) -> None:
    assert int_to_chinese(value) == numeral
    assert chinese_to_int(numeral) == value


def test_int_to_chinese_financial_and_japanese() -> None:
    assert int_to_chinese(1205, financial=True) == "壹仟贰佰零伍"
    assert chinese_to_int("壹仟贰佰零伍") == 1205
    assert int_to_cjk_counting(101, zero=False, one_before_units=False) == "百一"
    with pytest.raises(ValueError, match="negative"):
        int_to_chinese(-1)
