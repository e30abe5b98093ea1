"""Locale profiles: holidays, phone numbers, customers' cities and default offices per locale.

Generated prose stays English (the templates are English; an international company writes its
internal mail in English), but names come from faker's locale, money is written the locale's
way (``officesim.apps.money``) and the calendar follows the locale's offices and holidays.
"""

from __future__ import annotations

from officesim.industries import Locale, Office

_NY = Office("New York", "United States", "America/New_York", "Americas")
_LONDON = Office("London", "United Kingdom", "Europe/London", "EMEA")
_SINGAPORE = Office("Singapore", "Singapore", "Asia/Singapore", "APAC")

LOCALES: dict[str, Locale] = {
    "en_US": Locale(
        "en_US", "English (United States)", "USD",
        offices=(_NY, Office("Chicago", "United States", "America/Chicago", "Americas"),
                 Office("San Francisco", "United States", "America/Los_Angeles", "Americas"), _LONDON),
    ),
    "en_GB": Locale(
        "en_GB", "English (United Kingdom)", "GBP",
        offices=(_LONDON, Office("Manchester", "United Kingdom", "Europe/London", "EMEA"),
                 Office("Edinburgh", "United Kingdom", "Europe/London", "EMEA"), _NY),
        holidays=("the August bank holiday", "Boxing Day", "the early May bank holiday", "the company wellbeing day"),
        phone="+44 20 7946 0###",
        customer_cities=(
            ("London", "United Kingdom", "GBP", "+44", 5), ("Manchester", "United Kingdom", "GBP", "+44", 3),
            ("Birmingham", "United Kingdom", "GBP", "+44", 2), ("Leeds", "United Kingdom", "GBP", "+44", 2),
            ("Edinburgh", "United Kingdom", "GBP", "+44", 2), ("Bristol", "United Kingdom", "GBP", "+44", 2),
            ("Dublin", "Ireland", "EUR", "+353", 1), ("Amsterdam", "Netherlands", "EUR", "+31", 1),
            ("New York", "United States", "USD", "+1", 1),
        ),
        day_first=True,
    ),
    "en_IN": Locale(
        "en_IN", "English (India)", "INR",
        offices=(Office("Mumbai", "India", "Asia/Kolkata", "APAC"),
                 Office("Bengaluru", "India", "Asia/Kolkata", "APAC"),
                 Office("Delhi", "India", "Asia/Kolkata", "APAC"),
                 Office("Dubai", "United Arab Emirates", "Asia/Dubai", "EMEA"), _LONDON),
        holidays=("Diwali", "Republic Day", "Independence Day", "Holi", "Gandhi Jayanti"),
        phone="+91 98### #####",
        customer_cities=(
            ("Mumbai", "India", "INR", "+91", 5), ("Delhi", "India", "INR", "+91", 4),
            ("Bengaluru", "India", "INR", "+91", 4), ("Chennai", "India", "INR", "+91", 2),
            ("Hyderabad", "India", "INR", "+91", 2), ("Pune", "India", "INR", "+91", 2),
            ("Dubai", "United Arab Emirates", "AED", "+971", 1), ("Singapore", "Singapore", "SGD", "+65", 1),
            ("London", "United Kingdom", "GBP", "+44", 1),
        ),
        day_first=True,
    ),
    "de_DE": Locale(
        "de_DE", "German (Germany)", "EUR",
        offices=(Office("Berlin", "Germany", "Europe/Berlin", "EMEA"),
                 Office("München", "Germany", "Europe/Berlin", "EMEA"),
                 Office("Wien", "Austria", "Europe/Vienna", "EMEA"),
                 Office("Chicago", "United States", "America/Chicago", "Americas")),
        holidays=("German Unity Day", "Whit Monday", "Ascension Day", "the Christmas break"),
        phone="+49 30 #######",
        customer_cities=(
            ("Berlin", "Germany", "EUR", "+49", 3), ("München", "Germany", "EUR", "+49", 3),
            ("Hamburg", "Germany", "EUR", "+49", 3), ("Frankfurt", "Germany", "EUR", "+49", 2),
            ("Köln", "Germany", "EUR", "+49", 2), ("Stuttgart", "Germany", "EUR", "+49", 2),
            ("Wien", "Austria", "EUR", "+43", 1), ("Zürich", "Switzerland", "CHF", "+41", 1),
            ("London", "United Kingdom", "GBP", "+44", 1),
        ),
        day_first=True,
    ),
    "fr_FR": Locale(
        "fr_FR", "French (France)", "EUR",
        offices=(Office("Paris", "France", "Europe/Paris", "EMEA"), Office("Lyon", "France", "Europe/Paris", "EMEA"),
                 Office("Bruxelles", "Belgium", "Europe/Brussels", "EMEA"),
                 Office("Montréal", "Canada", "America/Toronto", "Americas")),
        holidays=("Bastille Day", "All Saints' Day", "Armistice Day", "the Christmas break"),
        phone="+33 1 ## ## ## ##",
        customer_cities=(
            ("Paris", "France", "EUR", "+33", 5), ("Lyon", "France", "EUR", "+33", 3),
            ("Marseille", "France", "EUR", "+33", 2), ("Toulouse", "France", "EUR", "+33", 2),
            ("Lille", "France", "EUR", "+33", 2), ("Bordeaux", "France", "EUR", "+33", 2),
            ("Bruxelles", "Belgium", "EUR", "+32", 1), ("Genève", "Switzerland", "CHF", "+41", 1),
            ("Montréal", "Canada", "CAD", "+1", 1),
        ),
        day_first=True,
    ),
}
