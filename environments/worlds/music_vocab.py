"""The music domain's vocabulary: aspects, values, and the words listeners and catalogs use.

Like the restaurant and movie specs, every value carries surface phrases that mostly
avoid the canonical word ("synth-drenched hooks" for 1980s, "four-on-the-floor pulse"
for electronic), so a curator that matches the seeker's words against track text must
bridge paraphrases. Track descriptions use the `phrases`; seekers ask with
`SEEKER_MUSIC_WORDS`, a separate bank (a seeker who says exactly what the catalog says
would hand a lexical curator the answer). All wording is our own.
"""

from __future__ import annotations

from environments.worlds.domain import AspectSpec, aspect, value

_POSITIVE = ["Loved the {p}.", "The {p} is the best part.", "Can't get enough of the {p}."]
_NEGATIVE = ["The {p} does nothing for me.", "Could do without the {p}."]

GENRE = aspect("genre", "genre", salience=2.0, positive=_POSITIVE, negative=_NEGATIVE, values=[
    value("rock", ["crunchy guitar riffs", "stadium-sized power chords", "garage-band swagger", "rock anthem"],
          weight=1.6),
    value("pop", ["radio-ready hooks", "sing-along chorus", "glossy chart polish", "pop earworm"], weight=1.8),
    value("hip hop", ["boom-bap beats", "rapid-fire verses", "sampled breakbeats", "hip hop flow"], weight=1.2),
    value("electronic", ["four-on-the-floor pulse", "shimmering synth arpeggios", "club-ready drops",
                         "electronic textures"], weight=1.1),
    value("jazz", ["swinging brushwork", "smoky saxophone solos", "walking bass lines", "jazz standards feel"],
          weight=0.6),
    value("r&b", ["silky vocal runs", "slow-jam groove", "soulful falsetto", "r&b smoothness"], weight=0.9),
    value("country", ["twangy pedal steel", "dirt-road storytelling", "honky-tonk fiddle", "country heartache"],
          weight=0.8),
    value("folk", ["fingerpicked acoustic guitar", "campfire harmonies", "banjo and fiddle", "folk songwriting"],
          weight=0.7),
    value("metal", ["down-tuned shredding", "double-kick thunder", "guttural screams", "metal heaviness"],
          weight=0.5),
    value("latin", ["clave rhythms", "reggaeton bounce", "salsa horn section", "latin dance floor heat"],
          weight=0.6),
])

MOOD = aspect("mood", "mood", salience=2.0, positive=_POSITIVE, negative=_NEGATIVE, values=[
    value("upbeat", ["sunny energy", "feel-good bounce", "hands-in-the-air euphoria", "upbeat spirit"],
          weight=1.5),
    value("melancholy", ["bittersweet ache", "rainy-window sadness", "heartbroken lyrics", "melancholy tone"]),
    value("chill", ["laid-back groove", "lazy-afternoon haze", "easygoing warmth", "chill vibe"], weight=1.2),
    value("intense", ["furious drive", "pounding adrenaline", "snarling attitude", "intense energy"], weight=0.9),
    value("romantic", ["candlelit tenderness", "love-struck lyrics", "slow-dance sweetness", "romantic glow"],
          weight=0.9),
    value("dreamy", ["hazy reverb washes", "floating, weightless atmosphere", "starry-eyed shimmer",
                     "dreamy haze"], weight=0.7),
])

TEMPO = aspect("tempo", "tempo", salience=1.0, positive=_POSITIVE, negative=_NEGATIVE, values=[
    value("slow", ["unhurried sway", "ballad pace", "crawling heartbeat rhythm", "slow tempo"], weight=0.9),
    value("mid-tempo", ["steady head-nodding rhythm", "cruising pace", "easy strut", "mid-tempo groove"],
          weight=1.4),
    value("fast", ["breakneck rhythm", "racing beat", "sprinting drums", "fast tempo"]),
])

ERA = aspect("era", "era", salience=1.3, positive=_POSITIVE, negative=_NEGATIVE, values=[
    value("1960s", ["sixties jangle", "Motown-style backing", "transistor-radio warmth", "1960s sound"],
          weight=0.5),
    value("1970s", ["seventies disco shimmer", "analog tape warmth", "bell-bottom funk", "1970s sound"],
          weight=0.7),
    value("1980s", ["synth-drenched hooks", "gated-reverb drums", "neon-lit production", "1980s sound"],
          weight=0.9),
    value("1990s", ["grunge-era fuzz", "dial-up-days nostalgia", "nineties crunch", "1990s sound"]),
    value("2000s", ["Y2K-era gloss", "early-millennium sheen", "flip-phone-era hit", "2000s sound"]),
    value("2010s", ["streaming-era polish", "modern trap hi-hats", "recent-years production", "2010s sound"],
          weight=1.3),
])

MUSIC_ASPECTS: tuple[AspectSpec, ...] = (GENRE, MOOD, TEMPO, ERA)
BY_ASPECT: dict[str, AspectSpec] = {a.name: a for a in MUSIC_ASPECTS}

# How a listener asks for a value: short, in their own words, each a phrase that stands on
# its own in a list ("happy stuff, guitar-driven songs and music from the eighties"), and
# never one of the track text's phrases.
SEEKER_MUSIC_WORDS: dict[str, dict[str, list[str]]] = {
    "genre": {
        "rock": ["rock", "guitar-driven songs", "something with loud guitars"],
        "pop": ["pop", "catchy chart stuff", "songs everyone knows the words to"],
        "hip hop": ["hip hop", "rap", "tracks with good beats and bars"],
        "electronic": ["electronic music", "dance music", "synth-heavy club tracks"],
        "jazz": ["jazz", "something with horns and improvisation", "jazzy stuff"],
        "r&b": ["r&b", "smooth soul", "silky vocals"],
        "country": ["country", "cowboy songs", "something from Nashville"],
        "folk": ["folk", "acoustic singer-songwriter stuff", "unplugged songs"],
        "metal": ["metal", "really heavy stuff", "headbanging music"],
        "latin": ["latin music", "reggaeton and salsa", "music to dance salsa to"],
    },
    "mood": {
        "upbeat": ["upbeat songs", "happy stuff", "something that lifts me up"],
        "melancholy": ["sad songs", "something moody, a bit gloomy", "songs to cry to"],
        "chill": ["chill tracks", "relaxed stuff", "mellow background music"],
        "intense": ["intense stuff", "aggressive tracks", "something with real fire"],
        "romantic": ["romantic songs", "love songs", "something sweet and tender"],
        "dreamy": ["dreamy songs", "spacey, atmospheric stuff", "something floaty"],
    },
    "tempo": {
        "slow": ["slow songs", "nothing too fast", "slow-paced stuff"],
        "mid-tempo": ["a medium tempo", "not too fast, not too slow", "a steady pace"],
        "fast": ["fast songs", "high-tempo tracks", "quick beats"],
    },
    "era": {
        "1960s": ["music from the sixties", "sixties songs", "stuff from the 60s"],
        "1970s": ["music from the seventies", "seventies songs", "stuff from the 70s"],
        "1980s": ["music from the eighties", "eighties songs", "stuff from the 80s"],
        "1990s": ["music from the nineties", "nineties songs", "stuff from the 90s"],
        "2000s": ["music from the 2000s", "noughties songs", "stuff from the early 2000s"],
        "2010s": ["music from the last decade or so", "2010s songs", "fairly recent stuff"],
    },
}

ARTIST_FIRST = ["Velvet", "Neon", "Paper", "Silver", "Golden", "Midnight", "Crimson", "Hollow", "Electric",
                "Wild", "Broken", "Lucky", "Static", "Lonely", "Burning", "Quiet", "Northern", "Glass", "Iron",
                "Sugar", "Atomic", "Blue", "Stray", "Copper", "Cosmic", "Rusty", "Honey", "Thunder", "Ghost",
                "Lunar"]
ARTIST_SECOND = ["Tigers", "Harbor", "Saints", "Machines", "Rivers", "Echoes", "Foxes", "Parade", "Kings",
                 "Satellites", "Ravens", "Hearts", "Engines", "Wolves", "Daydreams", "Orchard", "Pilots",
                 "Strangers", "Lanterns", "Comets", "Horizon", "Sirens", "Avenue", "Sparrows", "Giants"]
PERSON_FIRST = ["Mara", "Jonah", "Lila", "Dex", "Nina", "Otis", "June", "Rafael", "Skye", "Theo", "Ivy",
                "Marcus", "Celeste", "Remy", "Dolores", "Kai", "Etta", "Felix", "Rosa", "Wren"]
PERSON_LAST = ["Vance", "Okafor", "Delgado", "Hart", "Lindqvist", "Monroe", "Castillo", "Reyes", "Kowalski",
               "Blake", "Moreau", "Sato", "Fontaine", "Quinn", "Abernathy", "Navarro", "Sterling", "Holloway"]
TITLE_WORDS = ["Love", "Night", "Fire", "Heart", "Summer", "Rain", "Highway", "Dance", "Gold", "Dream",
               "Shadow", "City", "Ocean", "Light", "Storm", "Honey", "Runaway", "Tonight", "Forever", "Stars",
               "Echo", "Wild", "Blue", "Midnight", "Sunday", "Paradise", "Machine", "Rebel", "Static", "Velvet",
               "Thunder", "Ghost", "Lonely", "Diamond", "Satellite", "Neon", "Sugar", "Fever", "Mirror", "Gravity"]
TITLE_PATTERNS = ["{a} {b}", "{a}", "The {a} {b}", "{a} of {b}", "{a} Tonight", "Into the {a}", "{a} {b} {c}",
                  "No More {a}", "{a} & {b}", "Waiting for {a}"]
ALBUM_PATTERNS = ["{a} {b}", "The {a} Sessions", "{a}", "Songs of {a}", "{a} Nights", "Lost in {a}",
                  "{a} and {b}", "Live at {a}"]
VERSION_TAGS = ["(Remastered)", "(Live)", "(Acoustic)", "(Radio Edit)", "(Extended Mix)"]
